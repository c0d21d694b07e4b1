"""The head of a conversation written again inside the loop that sends it and grows it
(`chat[0]["content"] = RULES.replace("{{calls}}", done)` before each request, `chat.append(reply)`
after it): flow/keyed_targets.path_binding reads a plain write through constant keys in a loop,
and into a list grown at its end from a position of its start (the items written out keep their
places: flow/growth._at_path), so the request holds the system message as the loop writes it, not
as the list was first written. An addition in a loop (`+=`, each pass would add it again) and a
position from the end of a grown list stay unread (tests/test_merged_instructions.py)."""
from __future__ import annotations

import shutil
from pathlib import Path

from analysis_support import probe, segs

from promptlint import api

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "loop_head_writes"


def _report(tmp_path, name):
    shutil.copy(FIXTURE / name, tmp_path / name)
    return api.check([tmp_path], api.Settings(), jobs=1).diagnostics


def test_a_system_message_rewritten_in_the_loop_with_what_the_loop_collects_is_found(tmp_path):
    found = [(d.code, d.severity.value, d.span.start.row) for d in _report(tmp_path, "rewritten.py")]
    # the scratchpad of tool calls (a list the loop appends to) before the history: of unknown
    # volatility, so an info; the time of the request written into the head: a warning
    assert found == [("PRM101", "info", 7), ("PRM102", "warning", 33)]


def test_the_rewritten_head_is_judged_before_the_conversation_history(tmp_path):
    by_row = {d.span.start.row: d.message for d in _report(tmp_path, "rewritten.py")}
    assert "the conversation history after it is processed uncached" in by_row[7]
    assert "of the request, in the system prompt" in by_row[33]
    assert "1,825 static tokens and the conversation history after it" in by_row[33]


def test_a_head_written_again_with_the_same_text_or_before_the_loop_is_fine(tmp_path):
    assert _report(tmp_path, "unchanged.py") == []


def test_an_item_of_a_list_grown_by_appends_is_read_at_a_position_from_its_start(tmp_path):
    value = probe(tmp_path, '''def f(extra, reply):
    chat = [{"role": "system", "content": "A"}, {"role": "user", "content": "B"}]
    chat.append(reply)
    chat[0]["content"] = extra
    chat[1]["content"] += "C"
    probe(chat)
''').value
    assert segs(value.items[0].items["content"].segs) == [("unknown", "unknown", "extra")]
    assert segs(value.items[1].items["content"].segs) == [("text", "B"), ("text", "C")]


def test_a_write_in_a_loop_is_read_as_the_last_pass_wrote_it_and_an_addition_is_not(tmp_path):
    value = probe(tmp_path, '''def f(xs):
    head = [{"role": "system", "content": "A"}]
    for x in xs:
        head[0]["content"] = "B"
        head[0]["name"] += x
    probe(head)
''').value
    assert segs(value.items[0].items["content"].segs) == [("text", "B")]
    assert "name" not in value.items[0].items
