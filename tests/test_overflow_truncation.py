"""PRM105 and the Responses API's `truncation="auto"`: it drops input items only from a request
that would outgrow the model's context window (the default, "disabled", rejects that request), so
it is no window of turns; a window the code cuts itself is one, with or without it. The fixture is
fixtures/overflow_truncation/operator.py."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "overflow_truncation" / "operator.py"


def test_overflow_truncation_is_no_cut_and_a_slice_beside_it_still_is():
    report = api.check([FIXTURE], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row, d.span.start.column) for d in report.diagnostics] == [
        ("PRM105", "warning", 29, 84)]
    assert "`self._trajectory[-12:]`" in report.diagnostics[0].message
    assert "truncation" not in report.diagnostics[0].message
