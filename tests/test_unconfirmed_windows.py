"""PRM105 on lists an instance grows across turns, cut to their newest items: a list neither
named nor filled as a conversation is reported only where a request sends it (fixtures/unconfirmed_windows)."""
from __future__ import annotations

from pathlib import Path

from analysis_support import fixture_findings

FIXTURES = Path(__file__).parent.parent / "fixtures" / "unconfirmed_windows"


def _prm105(name: str, tmp_path: Path) -> list[tuple]:
    return [(d.span.start.row, d.span.start.column, d.severity.value)
            for d in fixture_findings(FIXTURES, name, tmp_path) if d.code == "PRM105"]


def test_an_event_log_no_request_sends_is_no_cut_conversation(tmp_path):
    assert _prm105("event_log.py", tmp_path) == []


def test_a_list_not_known_as_the_conversation_sent_cut_is_reported_at_info(tmp_path):
    assert _prm105("notes_sent.py", tmp_path) == [(16, 72, "info")]


def test_a_kept_conversation_cut_with_no_request_linked_stays_info(tmp_path):
    assert _prm105("conversation_kept.py", tmp_path) == [(13, 16, "info")]
