"""A list filled one message at a time from the conversation's newest messages (`for m in
history[-10:]: kept.append(m)`, also newest first under a budget, `kept = [m] + kept`) is that cut:
PRM105 where the conversation is cut, named by the cut; every message, or the first ones, is no
window (fixtures/item_windows)."""
from __future__ import annotations

from pathlib import Path

from analysis_support import fixture_findings

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "item_windows"


def _found(tmp_path, name):
    return [(d.code, d.severity.value, d.span.start.row, d.span.start.column, d.message.split(" is cut")[0])
            for d in fixture_findings(FIXTURE, name, tmp_path)]


def test_messages_of_a_cut_put_one_by_one_are_the_cut(tmp_path):
    assert _found(tmp_path, "walks.py") == [
        ("PRM105", "info", 9, 20, "The conversation history `messages[-10:]`"),
        ("PRM105", "info", 16, 20, "The conversation history `messages[-10:]`")]


def test_every_message_or_the_first_ones_put_one_by_one_are_no_window(tmp_path):
    assert _found(tmp_path, "whole.py") == []
