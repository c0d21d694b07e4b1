"""PRM304 facts: the one breakpoint a caller put on a message, copied by a converter's loop onto
every block it builds (python/spread_marks.py; fixtures/spread_marks/convert.py)."""
from pathlib import Path

from promptlint import api
from promptlint.python.module import load
from promptlint.python.spread_marks import spread_marks

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "spread_marks" / "convert.py"


def test_a_read_breakpoint_written_in_a_loop_over_blocks_is_the_fact_once_per_loop():
    found = spread_marks(load(FIXTURE, FIXTURE.read_text()))
    # the parts' loop (its two writes: one fact) and the tool results' loop; nothing in
    # `convert_last_only` (break, last index, a slice) nor `convert_per_item` (read off the item,
    # a block made before the loop)
    assert [(m.node.lineno, m.read.lineno, [o.lineno for o in m.others]) for m in found] == \
        [(13, 8, [16]), (23, 8, [])]


def test_a_literal_breakpoint_or_a_loop_that_returns_is_not():
    source = (
        "def a(messages):\n"
        "    for m in messages:\n"
        "        m['cache_control'] = {'type': 'ephemeral'}\n"
        "def b(message, content):\n"
        "    cc = message['cache_control']\n"
        "    for blk in reversed(content):\n"
        "        blk['cache_control'] = cc\n"
        "        return\n"
        "def c(message, content):\n"
        "    cc = getattr(message, 'cache_control')\n"
        "    for blk in content:\n"
        "        blk['cache_control'] = cc\n")
    assert [m.node.lineno for m in spread_marks(load(Path("m.py"), source))] == [12]


def test_it_is_info_at_the_loops_first_write():
    report = api.check([FIXTURE], api.Settings(), jobs=1)
    found = [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
             for d in report.diagnostics if d.code == "PRM304"]
    assert found == [("PRM304", "info", 13, [8, 16]), ("PRM304", "info", 23, [8])]
