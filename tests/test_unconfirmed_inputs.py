"""Data fetched with an input (flow/opaque_calls.py, Policy 7): a list an instance grows across calls
that nothing says holds the conversation (`self.models`, filled by `add_model`) is not the
conversation, so what a call not followed makes of it (`getdoc(model)` of its items) is not new on
every request; a grown list of messages with roles is, and what is made of it is fetched per request
(fixtures/unconfirmed_inputs)."""
from __future__ import annotations

from pathlib import Path

from analysis_support import fixture_findings

FIXTURES = Path(__file__).parent.parent / "fixtures" / "unconfirmed_inputs"


def _prm101(name: str, tmp_path: Path) -> list[tuple]:
    return [(d.span.start.row, d.severity.value)
            for d in fixture_findings(FIXTURES, name, tmp_path) if d.code == "PRM101"]


def test_an_item_of_a_grown_list_not_known_as_the_conversation_is_not_per_request(tmp_path):
    assert _prm101("documented_models.py", tmp_path) == [(15, "info")]


def test_what_a_call_makes_of_a_grown_conversation_is_fetched_per_request(tmp_path):
    assert _prm101("summarised_history.py", tmp_path) == [(17, "warning")]
