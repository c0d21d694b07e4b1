"""Infos that cannot be a cache loss are not reported (fixtures/info_precision): each kind has a
positive and a negative example, and the tests assert the findings' codes, rows and wording."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "info_precision"


def findings(name: str) -> list[tuple[int, int, str, str, str]]:
    """(row, column, code, severity, message up to " at token") of the findings in one fixture file."""
    report = api.check([FIXTURES / name], api.Settings(), jobs=1)
    return sorted((d.span.start.row, d.span.start.column, d.code, d.severity.value, d.message.split(" at token")[0])
                  for d in report.diagnostics)


def test_a_user_input_before_a_few_labels_only_is_at_the_end_where_it_belongs():
    # row 17: `User message: "{{ user_input }}"` then only 16 tokens of question and answer label:
    # not reported; row 26: the same value before the 109 tokens of the policy is
    assert findings("self_check.yml") == [(26, 22, "PRM101", "info", "Per-request content `user_input`")]
