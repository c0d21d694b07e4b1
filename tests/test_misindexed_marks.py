"""PRM302 facts: a cache breakpoint set on a list's item by the counter of a loop over another
list that grows the first several items at a time (python/misindexed_marks.py;
fixtures/misindexed_marks/groups.py)."""
from pathlib import Path

from promptlint import api
from promptlint.python.misindexed_marks import misindexed_marks
from promptlint.python.module import load

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "misindexed_marks" / "groups.py"


def test_a_breakpoint_by_another_lists_counter_on_a_list_grown_by_extend_is_the_fact():
    found = misindexed_marks(load(FIXTURE, FIXTURE.read_text()))
    # `flatten` only: `flatten_own_index` indexes by the list's length, `flatten_one_each` appends
    assert [(n.lineno, items, counted) for n, items, counted in found] == [(17, "messages", "self.groups")]


def test_a_list_indexed_by_a_loop_over_itself_or_a_call_not_named_for_caching_is_not():
    source = (
        "def a(messages):\n"
        "    for i, m in enumerate(messages):\n"
        "        messages.extend(m.parts)\n"
        "        messages[i]['cache_control'] = {'type': 'ephemeral'}\n"
        "def b(groups, cache):\n"
        "    out = []\n"
        "    for i, g in enumerate(groups):\n"
        "        out.extend(g)\n"
        "        out[i].render()\n")
    assert misindexed_marks(load(Path("m.py"), source)) == []


def test_it_is_info_at_the_breakpoint():
    report = api.check([FIXTURE], api.Settings(), jobs=1)
    found = [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics
             if d.code == "PRM302" and "counts the items of" in d.message]
    assert found == [("PRM302", "info", 17)]
