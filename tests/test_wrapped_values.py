"""A value handed to a helper that only wraps it (a code fence) is placed where the caller puts the
helper's result (python/flow/wrapped.py): fixtures/wrapped_values (see its README)."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "wrapped_values"


def _found(name):
    report = api.check([FIXTURES / name], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row, d.span.start.column) for d in report.diagnostics], report


def test_each_prompt_that_fences_the_value_is_reported_at_its_own_call_of_the_helper():
    found, report = _found("fenced.py")
    assert found == [("PRM101", "warning", 13, 77), ("PRM101", "warning", 18, 68)]  # (was one, at 9:25 in `fence`)
    lines = (FIXTURES / "fenced.py").read_text().splitlines()
    assert lines[12][76:].startswith("fence(question)")
    assert lines[17][67:].startswith("fence(question, lang=\"\")")
    first = report.diagnostics[0]
    assert "the 1,364 static tokens after it" in first.message
    assert [(r.span.start.row, r.message) for r in first.related] == [(12, "value produced here")]


def test_a_helper_that_writes_a_sentence_of_its_own_keeps_its_placeholder():
    found, _ = _found("builder.py")
    assert found == [("PRM101", "warning", 9, 77)]  # `{question}` in `ask`, where the prompt text is built


def test_a_clock_the_wrapping_helper_reads_itself_keeps_its_place():
    found, _ = _found("stamped.py")
    assert found == [("PRM102", "warning", 11, 15)]  # `datetime.now()` inside `tagged`
