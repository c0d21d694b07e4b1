"""PRM105 facts: the newest message of a conversation given content for one request only
(python/newest_marks.py), on a copy or on a list converted for the request: once it is history it
is sent without that content. A cache breakpoint added so, the caller's own message with callers
unknown (or handed a list that shares its messages), a one-shot request built in place, a walk
that writes every message and a rewrite of the message's own text are not ones. The fixture is
fixtures/newest_marks/converters.py."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.module import load
from promptlint.python.newest_marks import might_mark, newest_marks

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "newest_marks" / "converters.py"


def test_the_newest_message_marked_for_the_request_only_is_found_and_kept_marks_are_not():
    module = load(FIXTURE, FIXTURE.read_text(encoding="utf-8"))
    # `_guard_last_turn` (newest user message, walking reversed; a caller hands it a converted list),
    # `converted_here` (`out[-1]` of a list converted in the function), `inject_reminder` (the
    # trailing tool results, a copy of the message), `ask_json` (`[dict(m) for m in messages]`, a
    # module-level text); not `_tag_last` (its caller hands a list sharing the caller's messages),
    # `mark_breakpoint`, `tag_last`, `one_shot`, `stamp_all`, `rename_role`
    assert [(w.lineno, r.lineno, how) for w, r, how in newest_marks(module)] == [
        (29, 34, "converted"), (47, 46, "converted"), (58, 57, "copy"), (66, 64, "copy")]


def test_the_rule_reports_them_at_info_with_the_copy_or_conversion_related():
    report = api.check([FIXTURE], api.Settings(), jobs=1)
    found = [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
             for d in report.diagnostics if "newest message of the conversation" in d.message]
    assert found == [("PRM105", "info", 29, [34]), ("PRM105", "info", 47, [46]), ("PRM105", "info", 58, [57]),
                     ("PRM105", "info", 66, [64])]
    # the help line is the finding's own advice, not the rule's sliding-window advice
    advice = {d.advice for d in report.diagnostics if "newest message of the conversation" in d.message}
    assert advice == {"Send that content after the conversation, or keep the message as it was sent"}


def test_the_text_test_needs_a_newest_pick_a_content_write_and_a_conversation():
    assert might_mark('for m in reversed(messages):\n    m["content"] = x\n')
    assert might_mark('out[-1]["content"] += hint  # msgs\n')
    assert might_mark('while i>0 and msgs[i-1]["role"]=="tool": i-=1\nm["content"] = x\n')  # unspaced
    assert not might_mark('for m in reversed(rows):\n    m["content"] = x\n')  # no conversation
    assert not might_mark('messages[0]["content"] = x\n')  # no newest pick
