"""PRM302 facts: a converter that puts a message's own cache breakpoint on its block only when the
message's content is a string, and drops it for content that is a list of blocks
(python/string_marks.py; fixtures/string_marks/convert.py)."""
from pathlib import Path

from promptlint import api
from promptlint.python.module import load
from promptlint.python.string_marks import might_mark_strings, string_marks

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "string_marks" / "convert.py"


def test_a_breakpoint_read_in_the_string_branch_only_is_the_fact():
    # format_message's `_get_cache_control(message)`; not format_both (its list branch reads it
    # too), format_after (read before the test and put on the last block after it, whatever the
    # content), parse_response (a response's content, no request)
    found = string_marks(load(FIXTURE, FIXTURE.read_text()))
    assert [(n.lineno, n.col_offset) for n in found] == [(13, 28)]


def test_a_string_test_without_a_list_branch_or_of_another_value_is_not():
    source = (
        "def only_strings(message):\n"
        "    if isinstance(message.content, str):\n"
        "        return {'text': message.content, 'cache_control': message['cache_control']}\n"
        "    raise TypeError(message)\n"
        "def other_value(message, text):\n"
        "    if isinstance(text, str):\n"
        "        return {'text': text, 'cache_control': message['cache_control']}\n"
        "    else:\n"
        "        return [b for b in text]\n")
    assert string_marks(load(Path("m.py"), source)) == []


def test_it_is_info_at_the_read():
    # (main: nothing)
    report = api.check([FIXTURE], api.Settings(), jobs=1)
    found = [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics
             if d.code == "PRM302" and "only when the message's content is a string" in d.message]
    assert found == [("PRM302", "info", 13)]


def test_the_cheap_test():
    assert might_mark_strings('if isinstance(m.content, str): b["cache_control"] = c')
    assert not might_mark_strings('if isinstance(m.content, str): pass')
