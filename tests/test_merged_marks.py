"""PRM302 facts: consecutive messages merged by a converter that keeps the first one's cache
breakpoint only (python/merged_marks.py; fixtures/merged_marks/convert.py)."""
from pathlib import Path

from promptlint import api
from promptlint.python.merged_marks import merged_marks
from promptlint.python.module import load

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "merged_marks" / "convert.py"


def test_a_merge_that_reads_no_breakpoint_of_the_messages_it_takes_is_the_fact():
    # `merge_first_only`'s inner loop; not `merge_each` (it reads each merged message's), nor
    # the outer loops (the first message's breakpoint is read in them)
    assert [n.lineno for n in merged_marks(load(FIXTURE, FIXTURE.read_text()))] == [15]


def test_a_loop_that_moves_another_index_or_takes_nothing_is_not():
    source = (
        "def a(messages):\n"
        "    i = 0\n"
        "    cc = messages[i]['cache_control']\n"
        "    j = 0\n"
        "    while j < 3:\n"
        "        j += 1\n"
        "        out.extend(messages[j].parts)\n"
        "    while i < 3:\n"
        "        i += 1\n"
        "        n = messages[i]\n")
    assert merged_marks(load(Path("m.py"), source)) == []


def test_it_is_info_at_the_merging_loop():
    report = api.check([FIXTURE], api.Settings(), jobs=1)
    found = [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics
             if d.code == "PRM302" and "merges the following messages" in d.message]
    assert found == [("PRM302", "info", 15)]
