"""A conversation cut in a helper of its own: messages removed from its middle in a loop, halves
of it joined, messages selected from it by a filter, a parameter annotated as a list of messages."""
from promptlint.model import Kind
from promptlint.python.candidates import windows_in
from promptlint.python.flow.values import Seq, Text

from analysis_support import pos, probe

MIDDLE = """
    def f(messages, max_tokens, rows):
        current = messages.copy()
        while count(current) > max_tokens:
            middle = len(current) // 2
            current.pop(middle)
        probe(current)
        for i in reversed(range(len(rows))):
            if rows[i] is None:
                rows.pop(i)
        probe(rows)
        kept = messages.copy()
        while count(kept) > max_tokens:
            kept.pop(len(kept) // 2)
        probe(kept)
        probe(len(messages) - 1)
"""


def test_removing_middle_messages_until_it_fits_cuts_the_conversation(tmp_path):
    cut, = probe(tmp_path, MIDDLE, index=0).segs
    assert cut.kind is Kind.HISTORY and cut.window.start == pos(MIDDLE, "current.pop(middle)")
    halved, = probe(tmp_path, MIDDLE, index=2).segs
    assert halved.window.start == pos(MIDDLE, "kept.pop(len(kept) // 2)")


def test_popping_the_item_a_for_loop_visits_is_a_filter_not_a_cut(tmp_path):
    rows = probe(tmp_path, MIDDLE, index=1).segs
    assert not any(s.window for s in rows)


HALVES = """
    def f(messages, n):
        head = messages[:n]
        tail = messages[-n:]
        both = head + tail
        probe(both[:n])
        both.insert(n, messages[3])
        probe(both[:n])
        probe(both[-n:])
"""


def test_halves_of_a_conversation_joined_and_sliced_keep_the_cut(tmp_path):
    for index in (0, 1):
        cut, = windows_in(probe(tmp_path, HALVES, index=index).value)
        assert cut.kind is Kind.HISTORY and cut.window.start == pos(HALVES, "messages[-n:]")
    again, = probe(tmp_path, HALVES, index=2).segs
    assert again.kind is Kind.HISTORY and again.window.start == pos(HALVES, "both[-n:]")


SELECTED = """
    from typing import List


    class Message:
        role: str


    def f(messages: List[Message], log: list["Message"], rows: list[str], n):
        others = [m for m in messages if m.role != "system"]
        probe(others)
        probe(others[-n:])
        probe(log)
        probe(rows)
        probe([m.content for m in messages])
"""


def test_messages_selected_by_a_filter_are_still_the_conversation(tmp_path):
    others, = probe(tmp_path, SELECTED, index=0).segs
    assert others.kind is Kind.HISTORY and others.window is None
    recent, = probe(tmp_path, SELECTED, index=1).segs
    assert recent.kind is Kind.HISTORY and recent.window.start == pos(SELECTED, "others[-n:]")


def test_a_parameter_annotated_as_a_list_of_messages_is_the_conversation(tmp_path):
    log, = probe(tmp_path, SELECTED, index=2).segs
    assert log.kind is Kind.HISTORY and log.expr == "log"
    rows, = probe(tmp_path, SELECTED, index=3).segs
    assert rows.kind is not Kind.HISTORY


def test_a_comprehension_that_converts_each_message_is_not_the_conversation_itself(tmp_path):
    contents = probe(tmp_path, SELECTED, index=4).value
    assert isinstance(contents, Seq) and not isinstance(contents, Text)


CHOSEN = """
    def f(messages, n, keep):
        early = messages[:-keep] if keep > 0 else messages
        probe(early[-n:])
        probe(early[:n])
"""


def test_a_slice_of_one_of_two_conversation_cuts_cuts_each(tmp_path):
    options = probe(tmp_path, CHOSEN, index=0).value.options
    assert [o.segs[0].window.start for o in options] == [pos(CHOSEN, "early[-n:]")] * 2
    kept = probe(tmp_path, CHOSEN, index=1).value
    assert not windows_in(kept)


def test_a_file_that_cuts_a_conversation_in_a_helper_is_read(tmp_path):
    from promptlint.python.prefilter import might_hold_prompt
    assert might_hold_prompt("def fit(messages, n):\n    return messages[-n:]\n")
    assert might_hold_prompt("def fit(history):\n    for m in reversed(history):\n        break\n")
    assert not might_hold_prompt("def last(rows, n):\n    return rows[-n:]\n")
    assert not might_hold_prompt("def last(messages):\n    return messages[-1]\n")
    assert might_hold_prompt("def fit(messages):\n    while big(messages):\n        messages.pop(mid)\n")
    assert not might_hold_prompt("def take(messages, key):\n    return messages.pop(key)\n")


TURN = """
    def f(messages, budget):
        results = []
        for msg in reversed(messages):
            if msg.role == "assistant":
                break
            results.append(msg)
        probe(results)
        kept = []
        for msg in reversed(messages):
            if len(kept) >= budget:
                break
            kept.append(msg)
        probe(kept)
"""


def test_a_newest_first_walk_that_stops_at_the_last_answer_keeps_the_newest_turn_not_a_window(tmp_path):
    assert not windows_in(probe(tmp_path, TURN, index=0).value)
    cut, = windows_in(probe(tmp_path, TURN, index=1).value)
    assert cut.window.start == pos(TURN, "reversed(messages)", 1)
