"""The oldest message taken out and handed on in one statement (`pruned.append(messages.pop(0))`)
in a loop that runs until the conversation fits is the cut, as `messages.pop(0)` alone is; a list
drained with no size test or a key taken out is not (fixtures/popped_cuts, python/flow/popped.py)."""
from __future__ import annotations

import ast
from pathlib import Path

from promptlint.python.flow.popped import popped_into

from analysis_support import fixture_findings

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "popped_cuts"


def _found(tmp_path, name):
    return [(d.code, d.severity.value, d.span.start.row, d.span.start.column, d.message.split(" is cut")[0])
            for d in fixture_findings(FIXTURE, name, tmp_path)]


def test_a_message_popped_into_another_list_until_it_fits_is_the_cut(tmp_path):
    assert _found(tmp_path, "kept.py") == [
        ("PRM105", "info", 17, 38, "The conversation history `chat_messages`")]


def test_a_list_drained_with_no_size_test_or_a_key_taken_out_is_no_cut(tmp_path):
    assert _found(tmp_path, "consumed.py") == []


def test_popped_into_reads_a_pop_handed_to_a_call_in_one_statement():
    def one(text):
        found = popped_into(ast.parse(text).body[0])
        return None if found is None else ast.unparse(found)
    assert one("pruned.append(history.pop(0))") == "history.pop(0)"
    assert one("log.debug('%s', msgs.pop())") == "msgs.pop()"
    assert one("kept.insert(0, messages.pop(i))") == "messages.pop(i)"
    assert one("send(kwargs.pop('model'))") is None
    assert one("history.pop(0)") is None  # (the statement reader's own shape: `drops_oldest`)
    assert one("x = history.pop(0)") is None
    assert one("self.a.append(self.history.pop(0))") is None
