"""Shapes a new user met on real packages (fixtures/trial_shapes): each file holds a positive and a
negative example, and the tests assert the findings' codes, rows and wording."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "trial_shapes"


def findings(name: str, *codes: str) -> list[tuple[int, str, str, str]]:
    """(row, code, severity, message up to " at token") of the findings in one fixture file."""
    report = api.check([FIXTURES / name], api.Settings(), jobs=1)
    return sorted((d.span.start.row, d.code, d.severity.value, d.message.split(" at token")[0])
                  for d in report.diagnostics if not codes or d.code in codes)


def test_a_value_reached_by_several_paths_is_one_value_not_a_conditional_section():
    assert findings("same_value_paths.py") == [
        (11, "PRM101", "info", "Content of unknown volatility `op` (the parameter `operators`)"),
        (33, "PRM104", "info", "Conditional content `Explain every step in detail.`"),  # a real choice of texts
    ]
