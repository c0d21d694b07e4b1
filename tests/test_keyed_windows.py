"""A conversation read from a mapping under a key named for it (`kwargs["messages"]`,
`state["chat_history"]`: the value of a parameter we cannot read) and cut to its newest items is a
window (PRM105, info: only the key's name says it is the conversation); the newest items of
another key, or the conversation's head, are not (fixtures/keyed_windows)."""
from __future__ import annotations

from pathlib import Path

from analysis_support import fixture_findings

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "keyed_windows"


def _found(tmp_path, name):
    return [(d.code, d.severity.value, d.span.start.row, d.span.start.column)
            for d in fixture_findings(FIXTURE, name, tmp_path)]


def test_the_newest_items_of_a_key_named_for_the_conversation_are_a_window(tmp_path):
    assert _found(tmp_path, "keyed.py") == [("PRM105", "info", 9, 18), ("PRM105", "info", 17, 44)]


def test_the_newest_documents_and_the_conversations_head_are_no_window(tmp_path):
    assert _found(tmp_path, "clean.py") == []
