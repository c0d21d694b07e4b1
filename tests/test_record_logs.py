"""A list kept on an instance under a generic conversation word (`history`) is the conversation
only when what the module adds to it is a message: a log of records cut at a limit is no window
(memory_windows, kept_turns with stored_cuts.held_conversation; fixtures/record_logs)."""
from __future__ import annotations

from pathlib import Path

from analysis_support import fixture_findings

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "record_logs"


def _found(tmp_path, name):
    return [(d.code, d.severity.value, d.span.start.row)
            for d in fixture_findings(FIXTURE, name, tmp_path)]


def test_a_log_of_records_named_history_is_no_conversation(tmp_path):
    assert _found(tmp_path, "records.py") == []


def test_messages_added_under_a_generic_name_are_the_conversation(tmp_path):
    assert _found(tmp_path, "chat.py") == [("PRM105", "info", 13)]
