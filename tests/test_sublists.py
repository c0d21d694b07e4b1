"""A slice of a list read as a list (`relevant[:-1]`, `TIPS[:2]`) holds items of that list, as they
are (flow/values.sublist): retrieved text trimmed to a budget is still retrieved for the turn; a part
of constant texts is constant (fixtures/sublists)."""
from __future__ import annotations

from pathlib import Path

from analysis_support import fixture_findings

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "sublists"


def _found(tmp_path, name):
    return [(d.code, d.severity.value, d.span.start.row, d.span.start.column)
            for d in fixture_findings(FIXTURE, name, tmp_path)]


def test_retrieved_text_trimmed_in_a_loop_is_still_per_request(tmp_path):
    found = _found(tmp_path, "trimmed.py")
    assert found == [("PRM101", "warning", 14, 90)], found


def test_a_part_of_constant_texts_is_constant(tmp_path):
    assert _found(tmp_path, "constant.py") == []
