"""The template-method pattern (python/flow/overrides.py, Policy 9; fixtures/template_methods): a
base class's method calls an abstract method on its instance (`self.build_base_prompt()`), and the
call gives what each subclass's override returns, one text per subclass (`Alt.per_caller`): a time
an override writes first is found where it is written, with the base's text after it; fixed texts
of different subclasses are no condition chosen per request."""
from __future__ import annotations

import shutil
from pathlib import Path

from analysis_support import layouts, probe, sent, write

from promptlint import api
from promptlint.python.flow.values import Alt

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "template_methods"


def _check(tmp_path, name):
    shutil.copytree(FIXTURE / name, tmp_path / name)
    report = api.check([tmp_path / name], api.Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row, d.span.start.column,
             d.prompt and d.prompt.split("/")[-1])
            for d in report.diagnostics]


def test_a_time_an_override_writes_before_the_base_classes_text(tmp_path):
    # one-shot text of 354 static tokens after the time: info (Policy 4); the prompt is the base's
    assert _check(tmp_path, "before") == [("dated.py", "PRM102", "info", 8, 27, "base.py:13")]


def test_the_time_after_the_static_text_is_fine(tmp_path):
    assert _check(tmp_path, "after") == []


def test_fixed_texts_of_two_subclasses_are_no_condition(tmp_path):
    # (read as an unknown call before: PRM101 info on `self.build_base_prompt()`)
    assert _check(tmp_path, "static") == []


BUILDERS = '''
class Base:
    def build(self):
        return probe(self.part())

    def part(self):
        raise NotImplementedError("subclasses write it")

    def kept(self):
        return "kept"


class Short(Base):
    def part(self):
        return "short"


class Long(Base):
    def part(self):
        return "long " + self.kept()


class Longer(Long):
    def part(self):
        return "longer"


class Same(Long):
    pass
'''


def test_each_override_of_the_tree_is_read_on_its_own_instance(tmp_path):
    value = probe(tmp_path, BUILDERS).value
    assert isinstance(value, Alt) and value.per_caller
    texts = sorted("".join(s.text for s in o.segs) for o in value.options)
    assert texts == ["long kept", "longer", "short"]


def _texts(value) -> list[str]:
    assert isinstance(value, Alt) and value.per_caller
    return sorted("".join(s.text for s in o.segs) for o in value.options)


def test_a_stub_is_abstract(tmp_path):
    for body in ("...", "pass", '"""The part a subclass writes."""'):
        source = BUILDERS.replace('raise NotImplementedError("subclasses write it")', body)
        assert _texts(probe(tmp_path, source).value) == ["long kept", "longer", "short"]


def test_a_method_with_a_body_gives_it_and_each_override_on_self(tmp_path):
    # `self` of the base's method: an instance of any class of the tree, the base's own included
    source = BUILDERS.replace('raise NotImplementedError("subclasses write it")', 'return "base"')
    assert _texts(probe(tmp_path, source).value) == ["base", "long kept", "longer", "short"]


def test_the_body_of_an_abstract_class_is_no_option(tmp_path):
    # a class with an abstract method is never an instance itself: its subclasses' overrides only
    source = BUILDERS.replace('raise NotImplementedError("subclasses write it")', 'return "base"').replace(
        '    def kept(self):', '    def other(self):\n        raise NotImplementedError\n\n    def kept(self):')
    assert _texts(probe(tmp_path, source).value) == ["long kept", "longer", "short"]


def test_an_instance_built_by_its_class_reads_its_own_method(tmp_path):
    # `Base()` is a Base, `Long()` a Long: no override of another class is read
    source = BUILDERS.replace('raise NotImplementedError("subclasses write it")', 'return "base"')
    source += "\n\ndef build():\n    return probe(Base().part()), probe(Long().part())\n"
    assert probe(tmp_path, source, index=1).text == "base"
    assert probe(tmp_path, source, index=2).text == "long kept"


FIELDS = '''
class Base:
    name = "base"

    def build(self):
        return probe(self.part())

    def part(self):
        return f"I am {self.name}."


class Alpha(Base):
    name = "alpha"


class Beta(Base):
    name = "beta"

    def part(self):
        return f"We are {self.name}."
'''


def test_each_override_reads_the_fields_of_its_own_class(tmp_path):
    # Beta's override reads Beta's field; Alpha, which does not override, is the base's body on `self`
    assert _texts(probe(tmp_path, FIELDS).value) == ["I am base.", "We are beta."]


AGENTS = {
    "agents/__init__.py": "",
    "agents/base.py": '''
        from openai import OpenAI

        client = OpenAI()


        class BaseAgent:
            def system_prompt(self):
                return "You are a helpful assistant."

            def run(self, question):
                messages = [{"role": "system", "content": self.system_prompt()},
                            {"role": "user", "content": question}]
                return client.chat.completions.create(model="gpt-4o", messages=messages)
    ''',
    "agents/mine.py": '''
        from datetime import datetime

        from agents.base import BaseAgent

        GUIDE = "Answer from the research notes, cite every source you read, and say what you do not know. " * 150


        class MyAgent(BaseAgent):
            def system_prompt(self):
                return f"Now: {datetime.now()}\\n" + GUIDE


        class LaterAgent(BaseAgent):
            def system_prompt(self):
                return GUIDE + f"\\nNow: {datetime.now()}"
    ''',
}


def _agents(tmp_path, files):
    write(tmp_path, files)
    report = api.check([tmp_path / "agents"], api.Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row,
             d.prompt and d.prompt.split("/")[-1]) for d in report.diagnostics]


def test_an_override_of_a_default_system_prompt_is_what_the_base_sends(tmp_path):
    # the time MyAgent writes first sits before ~2.5k static tokens of the request the base
    # sends (a warning of the request, the base's site); LaterAgent's time, last, costs nothing;
    # BaseAgent itself sends its short default, below every minimum (each class a request of
    # its own: both overrides write a time)
    assert _agents(tmp_path, AGENTS) == [("base.py", "PRM301", "info", 13, "base.py:13"),
                                         ("mine.py", "PRM102", "warning", 10, "base.py:13")]


def test_the_time_after_the_static_text_of_every_override_is_fine(tmp_path):
    files = dict(AGENTS)
    files["agents/mine.py"] = files["agents/mine.py"].replace(
        'return f"Now: {datetime.now()}\\n" + GUIDE', 'return GUIDE')
    assert _agents(tmp_path, files) == []


def test_too_many_overrides_are_not_followed(tmp_path):
    many = "".join(f'\n\nclass Sub{i}(Base):\n    def part(self):\n        return "text {i}"\n' for i in range(9))
    value = probe(tmp_path, BUILDERS + many).value
    assert not isinstance(value, Alt)
    assert [s.expr for s in value.segs] == ["self.part()"]


PREAMBLES = {
    "agents/__init__.py": "",
    "agents/base.py": '''
        from openai import OpenAI

        client = OpenAI()

        RULES = "Answer from the research notes, cite every source you read, and say what you do not know. " * 150


        class BaseAgent:
            def preamble(self):
                return "Hello."

            def run(self, question):
                messages = [{"role": "system", "content": self.preamble() + RULES},
                            {"role": "user", "content": question}]
                return client.chat.completions.create(model="gpt-4o", messages=messages)
    ''',
    "agents/mine.py": '''
        import uuid
        from datetime import datetime

        from agents.base import BaseAgent


        class TimedAgent(BaseAgent):
            def preamble(self):
                return f"Now: {datetime.now()}\\n"


        class TracedAgent(BaseAgent):
            def preamble(self):
                return f"Trace: {uuid.uuid4()}\\n"
    ''',
}


def test_each_class_whose_override_changes_is_a_request_of_its_own(tmp_path):
    # one layout draws one value for `self.preamble()`: the request is laid out once per class,
    # so the id of TracedAgent is found as well as the time of TimedAgent
    assert _agents(tmp_path, PREAMBLES) == [("mine.py", "PRM102", "warning", 9, "base.py:15"),
                                            ("mine.py", "PRM103", "warning", 14, "base.py:15")]
    found = sent(layouts(tmp_path, PREAMBLES["agents/base.py"], files={k: v for k, v in PREAMBLES.items()
                                                                       if k != "agents/base.py"}, name="agents/base.py"))
    assert [x.variant for x in found] == [0, 1, 2, 3]  # the open `self`, then BaseAgent, TimedAgent, TracedAgent


def test_one_override_that_changes_is_drawn_in_the_request_itself(tmp_path):
    files = dict(PREAMBLES)
    files["agents/mine.py"] = files["agents/mine.py"].replace('f"Trace: {uuid.uuid4()}\\n"', '"Traced.\\n"')
    assert _agents(tmp_path, files) == [("mine.py", "PRM102", "warning", 9, "base.py:15")]
    found = sent(layouts(tmp_path, files["agents/base.py"], files={k: v for k, v in files.items()
                                                                    if k != "agents/base.py"}, name="agents/base.py"))
    assert [x.variant for x in found] == [0]
