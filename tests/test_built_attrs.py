"""An attribute a method builds itself (`self.system_prompt = ""`, then `self.system_prompt += ...`)
read in that method holds what the method built (flow/own_attrs.py), not the class-wide reading
in which a `+=` makes a list its methods grow (of unknown content). Fixture package under
fixtures/built_attrs/ (templates in one module, filled on the instance in another)."""
from __future__ import annotations

import ast
import shutil
from pathlib import Path

from promptlint import api
from promptlint.python.flow.own_attrs import own_attrs

from analysis_support import probe

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "built_attrs"


def _findings(tmp_path):
    shutil.copytree(FIXTURES, tmp_path / "built_attrs")
    report = api.check([tmp_path / "built_attrs" / "roleplay"], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, Path(d.span.filename).name, d.span.start.row) for d in report.diagnostics]


def test_the_documents_put_first_in_a_system_prompt_built_on_the_instance_are_found(tmp_path):
    # (main: nothing; `self.system_prompt` was read as a list the class's methods grow, of unknown
    # content.) RolePlay.run puts the retrieved documents before the static tools and role text and
    # before the history; RolePlayAfter.run sends them in the newest user message: no finding
    assert _findings(tmp_path) == [("PRM101", "info", "templates.py", 6)]


def _own(source: str) -> list[str]:
    func = next(n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.FunctionDef) and n.name == "run")
    return sorted(own_attrs(func))


def test_which_attributes_a_method_builds_itself():
    assert _own("def run(self):\n    self.p = ''\n    self.p += T\n    send(self.p)\n") == ["p"]
    # only added to (never assigned here), a list changed in place, a counter: the class reading
    assert _own("def run(self):\n    self.p += T\n") == []
    assert _own("def run(self):\n    self.p = []\n    self.p += xs\n    self.p.append(x)\n") == []
    assert _own("def run(self):\n    self.n = 0\n    self.n += 1\n") == []
    assert _own("def run(self):\n    self.p = ''\n    self.p += T\n    self.p[0] = 'x'\n") == []
    assert _own("def run(self):\n    self.p, self.q = '', ''\n    self.p += T\n") == []


_CLASS = """
    RULES = "Answer from the documents. Cite them by title. Never invent a citation."

    class Agent:
        def add_notes(self, notes):
            self.system_prompt += notes

        def run(self, docs, notes, flag):
            self.system_prompt = ""
            self.system_prompt += docs
            {middle}
            self.system_prompt += RULES
            probe(self.system_prompt)
"""


def test_the_attribute_holds_what_the_method_built(tmp_path):
    found = probe(tmp_path, _CLASS.replace("{middle}", "pass"))
    assert found.described == [("text", ""), ("unknown", "unknown", "docs"),
                                ("text", "Answer from the documents. Cite them by title. Never invent a citation.")]


def test_a_call_of_a_method_that_writes_the_attribute_gives_the_class_reading_back(tmp_path):
    found = probe(tmp_path, _CLASS.replace("{middle}", "self.add_notes(notes)"))
    # what the class's methods add to it, not read (`self.system_prompt`, a list its methods grow)
    assert found.described == [("history", "unknown", "self.system_prompt")]


def test_an_attribute_built_in_one_branch_only_gives_the_class_reading_after_it(tmp_path):
    source = """
        RULES = "Answer from the documents. Cite them by title. Never invent a citation."

        class Agent:
            def run(self, docs, flag):
                if flag:
                    self.system_prompt = ""
                    self.system_prompt += RULES
                probe(self.system_prompt)
    """
    found = probe(tmp_path, source)
    assert "Answer from the documents" not in found.text

