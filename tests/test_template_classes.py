"""A class named for templates that is only a namespace of static text builders (`class
JudgeTemplate:` with `@staticmethod generate_verdicts(claims)`) holds prompts, as a class named for
prompts does (python/candidates.py); a template class with instances, or one built on another kind
of class, does not. The fixtures are under fixtures/template_classes/."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.prefilter import might_hold_prompt

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "template_classes"


def _check(*names):
    report = api.check([FIXTURES / n for n in names], api.Settings(), jobs=1)
    prompts = sorted((Path(p.site.filename).name, p.site.start.row) for p in report.prompts)
    found = [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row) for d in report.diagnostics]
    return prompts, found


def test_static_builders_of_a_template_class_are_prompts_and_their_head_values_are_judged():
    """`generate_verdicts` opens with the claims of the test case before ~330 tokens of rubric (a
    value of unknown volatility before at least 256 static tokens: info); the subclass's class method is a
    prompt too, with too little static text after its value to be worth a note."""
    prompts, found = _check("judge_template.py")
    assert prompts == [("judge_template.py", 6), ("judge_template.py", 33)]
    assert found == [("judge_template.py", "PRM101", "info", 7)]


def test_a_template_class_with_instances_or_another_base_holds_no_prompt():
    assert _check("mail_template.py") == ([], [])


def test_the_prefilter_reads_a_file_with_a_template_class():
    assert might_hold_prompt("class JudgeTemplate:\n    pass\n")
    assert might_hold_prompt("class StrictJudgeTemplate(JudgeTemplate):\n    pass\n")
    assert not might_hold_prompt("class TemplateError(Exception):\n    pass\n")
