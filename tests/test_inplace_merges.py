"""PRM105 facts: a message merged into the caller's own message object (python/inplace_merges.py):
a walk of the conversation that keeps each message itself and adds the next one's text to the
last kept. The fixture is fixtures/inplace_merges/alternation.py."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.inplace_merges import inplace_merges, might_merge
from promptlint.python.module import load
from promptlint.python.prefilter import might_hold_prompt

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "inplace_merges" / "alternation.py"


def test_merges_into_the_callers_messages_are_found_and_copies_are_not():
    module = load(FIXTURE, FIXTURE.read_text(encoding="utf-8"))
    # `merge_turns` (+= on a dict's content), `Alternating._send` (`a = a + "\n" + b` on an
    # attribute, over a slice of the conversation); not `merge_copies` (`dict(msg)`), not
    # `merge_rebound` (the item rebound to a copy), not `merge_pairs` (`rows`: not named as a conversation)
    assert [(w.lineno, kept.lineno) for w, kept in inplace_merges(module)] == [(14, 16), (26, 28)]


def test_the_rule_reports_them_at_info_with_the_append_related():
    report = api.check([FIXTURE], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
            for d in report.diagnostics] == [("PRM105", "info", 14, [16]), ("PRM105", "info", 26, [28])]
    assert "the caller's own message object" in report.diagnostics[0].message


def test_the_text_test_lets_a_merge_through_and_not_a_comparison():
    merge = 'def merge(messages):\n    for m in messages:\n        out[-1]["content"] += m["content"]\n'
    assert might_merge(merge) and might_hold_prompt(merge)
    assert might_merge("        out[-1].content = out[-1].content + x\n")
    assert not might_merge('        if out[-1]["content"] == x:\n')


def test_a_message_kept_before_the_item_is_rebound_is_the_callers_and_one_kept_after_is_not():
    fixture = FIXTURE.parent / "converted_roles.py"
    module = load(fixture, fixture.read_text(encoding="utf-8"))
    # `format_roles` keeps `message` (line 13) before `message = convert(message)` (line 15): the merge at
    # line 18 writes the caller's message; `format_copied` rebinds first: nothing
    assert [(w.lineno, kept.lineno) for w, kept in inplace_merges(module)] == [(18, 13)]
