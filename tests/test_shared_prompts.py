"""PRM105 facts: a prompt a class holds for all its instances, added to through `self`
(python/shared_prompts.py). A class whose instances bind the name themselves first (a copy, a new
list), a class list not named as a prompt, and a class method adding to its own registry are not
ones. The fixture is fixtures/shared_prompts/envs.py."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.module import load
from promptlint.python.shared_prompts import might_share, shared_prompts

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "shared_prompts" / "envs.py"


def test_additions_to_a_class_held_prompt_through_self_are_found_and_own_copies_are_not():
    module = load(FIXTURE, FIXTURE.read_text(encoding="utf-8"))
    # DebateEnv: the template's text (`a = a + ...`) and the examples list; not CopiedEnv (a copy
    # bound first), InstanceEnv (a list of its own), Counter (`scores`: no prompt word), Registry
    # (a class method: the class's own registry)
    assert [(a.lineno, h.lineno, name, cls) for a, h, name, cls in shared_prompts(module)] == [
        (11, 7, "_moderator_prompt_template", "DebateEnv"), (14, 8, "examples", "DebateEnv")]


def test_the_rule_reports_them_at_info_with_the_class_assignment_related():
    report = api.check([FIXTURE], api.Settings(), jobs=1)
    found = [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
             for d in report.diagnostics if "one object serves every instance" in d.message]
    assert found == [("PRM105", "info", 11, [7]), ("PRM105", "info", 14, [8])]


def test_the_text_test_needs_a_class_an_indented_assignment_and_an_addition_through_self():
    assert might_share("class A:\n    _prompt = T()\n    def f(self):\n        self._prompt.template += x\n")
    assert might_share("class A:\n    examples: list = []\n    def f(self):\n        self.examples.append(x)\n")
    assert not might_share("class A:\n    def f(self):\n        self.examples.append(x)\n")  # not assigned
    assert not might_share("class A:\n    scores = []\n    def f(self):\n        self.scores.append(x)\n")
    assert not might_share("def f(t):\n    t.template += x\n")


def test_a_pydantic_model_copies_its_field_defaults_for_each_instance_so_holds_no_shared_prompt(tmp_path):
    source = (
        "from pydantic import BaseModel\n"
        "import pydantic\n\n\n"
        "class ChatSession(BaseModel):\n"
        "    messages: list = []\n\n"
        "    def add(self, m):\n"
        "        self.messages.append(m)\n\n\n"
        "class ToolSession(ChatSession):\n"
        "    examples: list = []\n\n"
        "    def add_example(self, e):\n"
        "        self.examples.append(e)\n\n\n"
        "class Settings(pydantic.BaseModel):\n"
        "    history: list = []\n\n"
        "    def note(self, h):\n"
        "        self.history.append(h)\n\n\n"
        "class Plain:\n"
        "    messages = []\n\n"
        "    def add(self, m):\n"
        "        self.messages.append(m)\n")
    path = tmp_path / "sessions.py"
    path.write_text(source, encoding="utf-8")
    # the three pydantic models (one through a model of the module) copy `[]` per instance; Plain shares it
    assert [(a.lineno, name, cls) for a, _h, name, cls in shared_prompts(load(path, source))] == [
        (30, "messages", "Plain")]
