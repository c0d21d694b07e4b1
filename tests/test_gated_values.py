"""A per-request value produced only when an option off by default is on (python/gated_values.py):
the finding keeps its severity (what happens once the option is on) and says when it happens, as
PRM302 says of breakpoints behind such an option. Fixtures: fixtures/gated_values."""
from __future__ import annotations

from pathlib import Path

from analysis_support import fixture_findings

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "gated_values"


def _prm102(tmp_path, name):
    return [(d.severity.value, d.span.start.row, d.message.split(") at token")[0])
            for d in fixture_findings(FIXTURE, name, tmp_path) if d.code == "PRM102"]


def test_a_time_added_only_under_an_option_off_by_default_says_so(tmp_path):
    assert _prm102(tmp_path, "opt_in.py") == [
        ("warning", 18, "Timestamp `datetime.now()` (sub-day precision; only when `self.add_time_to_prompt` is on, "
                         "and it is off by default")]


def test_a_time_under_an_option_on_by_default_is_reported_without_the_clause(tmp_path):
    assert _prm102(tmp_path, "always.py") == [("warning", 18, "Timestamp `datetime.now()` (sub-day precision")]
