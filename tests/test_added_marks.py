"""Breakpoints a middleware adds to a request it is handed (the top-level automatic one, the last
system block, the last tool), in a package that carries breakpoints written on its callers' message
blocks into its requests, without counting those: two there make five (python/added_marks.py,
PRM304 info; fixtures/added_marks)."""
from __future__ import annotations

import shutil
from pathlib import Path

from promptlint import api

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "added_marks"


def _found(tmp_path, package):
    shutil.copytree(FIXTURE / package, tmp_path / package)
    report = api.check([tmp_path / package], api.Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row, d.message)
            for d in report.diagnostics]


def test_a_middleware_adding_three_breakpoints_to_messages_that_may_carry_some_is_info(tmp_path):
    found = _found(tmp_path, "carried")
    assert [f[:4] for f in found] == [("middleware.py", "PRM304", "info", 30)]  # not counted.py
    assert "at 3 places of a request it is handed" in found[0][4] and "with 2 or more there" in found[0][4]


def test_in_a_package_whose_messages_carry_no_breakpoint_the_middleware_is_fine(tmp_path):
    assert _found(tmp_path, "plain") == []


def test_a_breakpoint_read_off_a_block_is_carried_and_one_written_or_read_off_tools_or_options_is_not():
    from promptlint.python.packages import reads_markers
    assert [reads_markers(t) for t in (
        'if block.get("cache_control"):', "if 'cache_control' in part:", 'cc = block["cache_control"]',
        'block["cache_control"] = cc', 'if "cache_control" in tool:', 'kwargs.get("cache_control")',
        'x = tool_def["cache_control"]', 'if block["cache_control"] == cc:',
    )] == [True, True, True, False, False, False, False, True]


def test_breakpoints_written_on_the_two_sides_of_one_if_count_once(tmp_path):
    # the system block, then one message marked by a helper that writes one breakpoint in either
    # branch: two a request, room for the two the messages may carry
    assert _found(tmp_path, "branched") == []


def test_most_at_once_counts_one_side_of_each_if():
    import ast

    from promptlint.python.added_marks import _most_at_once, _writes
    func = ast.parse('''
def f(m, cc):
    a = {"cache_control": cc}
    if m:
        b = {"cache_control": cc}
        if m.x:
            c = {"cache_control": cc}
        else:
            d = {"cache_control": cc}
    else:
        e = {"cache_control": cc}
''').body[0]
    writes = [node for _where, node in _writes(func)]
    assert len(writes) == 5
    assert _most_at_once(func, writes) == 3  # a, b and c (or d); never e with b
