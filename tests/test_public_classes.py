"""A class its users build (exported, subclassed) holds in its fields what they configure, not what
the package's own constructor calls pass; a subclass's method reads the subclass's instances, never
those the base's calls build; a helper record the package builds in one place keeps that call's
values (flow/open_classes.py, flow/callers.field_arguments). The fixture is fixtures/public_classes
(its README says what each file shows)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from promptlint import api

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "public_classes"


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """The fixture checked from a copy (inside the repository, its project would be the repository)."""
    root = Path(shutil.copytree(FIXTURE, tmp_path_factory.mktemp("public") / "public_classes"))
    return root, api.check([root], api.Settings(), jobs=1)


def _found(report):
    root, result = report
    return [(_rel(root, d.span.filename), d.span.start.row, d.code, d.severity.value) for d in result.diagnostics]


def _rel(root: Path, filename: str) -> str:
    return Path(filename).resolve().relative_to(root.resolve()).as_posix()


def test_each_finding_is_where_its_value_enters_with_its_severity(report):
    assert sorted(_found(report)) == [
        ("fw/agent.py", 38, "PRM102", "warning"),  # the timestamp of the assistant's own prompt
        ("fw/checks.py", 13, "PRM101", "warning"),  # the helper record's one caller: its field's value
        ("fw/judging.py", 12, "PRM101", "warning"),  # the judge's own prompt text, where it builds it
    ]


def test_the_timestamp_names_no_question_of_one_caller_before_it(report):
    stamp = next(d for d in report[1].diagnostics if d.code == "PRM102")
    assert "both must go" not in stamp.message and "question" not in stamp.message
    assert stamp.related == []


def test_the_judge_is_judged_as_its_own_prompt_text_not_as_the_assistant_s_request(report):
    root, result = report
    judge = next(d for d in result.diagnostics if Path(d.span.filename).name == "judging.py")
    assert judge.prompt.endswith("fw/judging.py:12")  # prompt text built there, not the assistant's request
    assert "the 1,261 static tokens after it" in judge.message
    assert "conversation history after it" not in judge.message  # a fresh assistant per judgement


def test_the_helper_record_keeps_its_one_caller_s_value(report):
    root, result = report
    check = next(d for d in result.diagnostics if Path(d.span.filename).name == "checks.py")
    assert "`user_message`" in check.message
    assert [(Path(r.span.filename).name, r.span.start.row, r.message) for r in check.related] == [
        ("checks.py", 18, "value produced here")]


def test_no_prompt_of_the_subclass_holds_the_base_s_callers_text(report):
    root, result = report
    assert not any("duck.py" in (d.prompt or "") for d in result.diagnostics)
    duck = [p for p in result.prompts if Path(p.site.filename).name == "duck.py"]
    assert duck == []  # its description is configuration: nothing in it changes
