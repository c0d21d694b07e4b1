"""PRM105 facts: text added to a message of the conversation a function is handed
(python/inplace_merges.py, `inplace_appends`): the caller's message grows on every call. A
conversation rebound to a copy first, a new message, or a list not named as a conversation are not
ones. The fixture is fixtures/inplace_appends/suffixes.py."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.inplace_merges import inplace_appends, might_append
from promptlint.python.module import load
from promptlint.python.prefilter import might_hold_prompt

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "inplace_appends" / "suffixes.py"


def test_appends_to_the_callers_messages_are_found_and_copies_are_not():
    module = load(FIXTURE, FIXTURE.read_text(encoding="utf-8"))
    # `add_format_note` (a message looked up with next(...), then +=), `add_reminder` (`m = m + x`
    # on messages[0]); not `add_note_to_copy` (the conversation rebound to copies), not
    # `add_note_to_new` (a new dict), not `count_words` (`rows`: not named as a conversation), not
    # `add_to_newest` (the newest message: another one once an answer follows it)
    assert [(w.lineno, at.lineno) for w, at in inplace_appends(module)] == [(6, 5), (11, 11)]


def test_the_rule_reports_them_at_info_with_the_look_up_related():
    report = api.check([FIXTURE], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
            for d in report.diagnostics] == [("PRM105", "info", 6, [5]), ("PRM105", "info", 11, [11])]
    assert "the caller's own message object" in report.diagnostics[0].message


def test_the_text_test_lets_an_append_through_and_not_a_plain_write():
    source = 'def f(messages):\n    messages[0]["content"] += "x"\n'
    assert might_append(source) and might_hold_prompt(source)
    assert might_append('    m = next(iter(messages))\n    m.content = m["content"] + x\n')
    assert not might_append('    messages[0]["content"] = x\n')
    assert not might_append('    messages[-1]["content"] += x\n')
    assert not might_append('    if m["content"] == x:\n')


def test_a_message_popped_from_a_parameters_conversation_is_the_callers():
    fixture = FIXTURE.parent / "popped_system.py"
    module = load(fixture, fixture.read_text(encoding="utf-8"))
    # `setup`: `messages = state.messages` is the caller's list, `messages.pop(0)` its message (the
    # later binding in the else branch comes after the write); `setup_copy` rebinds the popped
    # message to a new one before the write, `setup_new` writes a message it made
    assert [(w.lineno, at.lineno) for w, at in inplace_appends(module)] == [(12, 11)]
    assert might_append(fixture.read_text(encoding="utf-8"))
