"""PRM302 facts: cache breakpoints written on the first items of a list, the loop stopping at a
count, so its tail is never marked (python/head_marks.py; fixtures/head_marks/loop.py)."""
from pathlib import Path

from promptlint import api
from promptlint.python.head_marks import head_marks
from promptlint.python.module import load

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "head_marks" / "loop.py"


def test_a_loop_from_the_head_that_marks_and_breaks_is_the_fact():
    module = load(FIXTURE, FIXTURE.read_text())
    # `mark_oldest` only: `mark_newest` walks from the end, `mark_every_system_block` never stops
    assert [n.lineno for n in head_marks(module)] == [7]


def test_a_slice_from_the_end_or_a_loop_over_another_list_is_not():
    source = (
        "def a(messages):\n"
        "    for m in messages[-3:]:\n"
        "        m['cache_control'] = {'type': 'ephemeral'}\n"
        "        break\n"
        "def b(messages, blocks):\n"
        "    for m in messages:\n"
        "        blocks[-1]['cache_control'] = {'type': 'ephemeral'}\n"
        "        break\n"
        "def c(messages):\n"
        "    for m in messages[:2]:\n"
        "        m['content'][0]['cache_control'] = {'type': 'ephemeral'}\n"
        "        if m['role'] == 'user':\n"
        "            break\n")
    assert [n.lineno for n in head_marks(load(Path("m.py"), source))] == [11]


def test_it_is_info_at_the_breakpoint():
    report = api.check([FIXTURE], api.Settings(), jobs=1)
    found = [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics
             if d.code == "PRM302" and "first items of the list" in d.message]
    assert found == [("PRM302", "info", 7)]


CAPPED = (
    "def send(client, messages, limit=4):\n"
    "    count = 0\n"
    "    for m in messages:\n"
    "        if m.get('cache_control'):\n"
    "            if count == limit:\n"
    "                m.pop('cache_control')\n"
    "            else:\n"
    "                count += 1\n"
    "    return client.messages.create(model='claude-sonnet-4-5', max_tokens=512, messages=messages)\n")


def test_a_loop_that_keeps_the_first_breakpoints_and_removes_the_later_is_the_fact():
    from promptlint.python.head_marks import kept_first_marks
    assert [n.lineno for n in kept_first_marks(load(Path("m.py"), CAPPED))] == [6]


def test_a_loop_from_the_end_or_one_that_removes_without_a_count_is_not():
    from promptlint.python.head_marks import kept_first_marks
    newest = CAPPED.replace("for m in messages:", "for m in reversed(messages):")
    uncounted = CAPPED.replace("                count += 1\n", "                pass\n")
    assert kept_first_marks(load(Path("m.py"), newest)) == []  # the newest breakpoints kept: right
    assert kept_first_marks(load(Path("m.py"), uncounted)) == []


def test_the_kept_first_breakpoints_are_info_where_they_are_removed(tmp_path):
    (tmp_path / "send.py").write_text("import anthropic\n\n" + CAPPED)
    report = api.check([tmp_path], api.Settings(), jobs=1)
    found = [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics
             if d.code == "PRM302" and "first marked items" in d.message]
    assert found == [("PRM302", "info", 8)]
