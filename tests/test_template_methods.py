"""The template-method pattern (python/flow/overrides.py, Policy 9; fixtures/template_methods): a
base class's method calls an abstract method on its instance (`self.build_base_prompt()`), and the
call gives what each subclass's override returns, one text per subclass (`Alt.per_caller`): a time
an override writes first is found where it is written, with the base's text after it; fixed texts
of different subclasses are no condition chosen per request."""
from __future__ import annotations

import shutil
from pathlib import Path

from analysis_support import probe

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


def test_a_method_with_a_body_is_not_replaced_by_overrides(tmp_path):
    source = BUILDERS.replace('raise NotImplementedError("subclasses write it")', 'return "base"')
    assert probe(tmp_path, source).text == "base"


def test_too_many_overrides_are_not_followed(tmp_path):
    many = "".join(f'\n\nclass Sub{i}(Base):\n    def part(self):\n        return "text {i}"\n' for i in range(9))
    value = probe(tmp_path, BUILDERS + many).value
    assert not isinstance(value, Alt)
    assert [s.expr for s in value.segs] == ["self.part()"]
