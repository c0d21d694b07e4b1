"""Findings a new user's trial judged false or mis-rated (fixtures/trial26/), by kind: each kind
has a case whose finding goes (or drops to info) and one that is still reported as before."""
from __future__ import annotations

from pathlib import Path

from promptlint.api import check
from promptlint.config import Settings

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "trial26"


def _row(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def _found(folder: str):
    result = check([FIXTURES / folder], Settings(), jobs=1)
    return [(d.code, d.severity.value, Path(d.span.filename).name, d.span.start.row) for d in result.diagnostics]


def test_a_field_beside_the_judged_conversation_in_the_newest_message_keeps_its_reading():
    """The newest user message holds the tested model's description and the conversation being
    judged: the conversation makes the message new; the description (an object's field) is of
    unknown volatility, info, not per-request content."""
    app = FIXTURES / "sample_judge" / "judge.py"
    assert _found("sample_judge") == [("PRM101", "info", "judge.py", _row(app, "{description}"))]


def test_the_only_value_of_the_newest_message_is_its_input():
    """One value before 1,643 static tokens of a one-shot user message: the request's input."""
    app = FIXTURES / "one_input" / "summarise.py"
    assert _found("one_input") == [("PRM101", "warning", "summarise.py", _row(app, "{document}"))]
