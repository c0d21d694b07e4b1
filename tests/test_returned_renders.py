"""A template that a function renders and returns (not a call that sends it) is judged where it is
rendered, with the values Python gives its placeholders, and not also alone by their names
(promptlint/judged.py, `_rendered`). The fixtures are under fixtures/returned_renders/."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "returned_renders"


def _found(folder: str):
    report = api.check([FIXTURES / folder], api.Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row, Path(d.prompt).name)
            for d in report.diagnostics]


def test_a_template_rendered_into_returned_messages_is_judged_from_that_rendering_only():
    """`build_prompt(row)` returns the template rendered as the user message with `row` values:
    `func_desc` (row 2) is the first per-request value, before ~480 static tokens (info, below the
    minimum). The template alone would blame `query` (row 3) by its name, as a system prompt: no
    second finding."""
    assert _found("rendered") == [("checker.jinja2", "PRM101", "info", 2, "checker.py:11")]


def test_a_template_whose_text_is_returned_as_written_is_still_judged_alone():
    """Read as written (`read_text()`, nothing rendered), the template is judged on its own: its
    `query` by name."""
    assert _found("as_written") == [("checker.jinja2", "PRM101", "info", 3, "checker.jinja2:1")]
