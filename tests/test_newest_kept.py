"""PRM105 facts (python/kind_windows.newest_kinds): a walk of the conversation newest first that
keeps a message of a kind whole only while a count is under a limit (`if seen < MAX: kept.append(msg)`,
the `else` leaving it out or keeping a stripped copy). The fixture is fixtures/newest_kept/screens.py."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.kind_windows import newest_kinds
from promptlint.python.module import load

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "newest_kept" / "screens.py"


def test_a_newest_first_rebuild_that_keeps_the_newest_of_a_kind_is_a_window():
    module = load(FIXTURE, FIXTURE.read_text(encoding="utf-8"))
    # `keep_recent_screens` only: `count_screens` keeps every message either way, and
    # `keep_first_screens` walks oldest first (the kept ones are a fixed head)
    assert [(test.lineno, ast_keep.lineno) for test, ast_keep in newest_kinds(module)] == [(24, 25)]


def test_the_rule_reports_it_at_info_where_the_limit_is_tested():
    report = api.check([FIXTURE], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row, d.span.start.column, [r.span.start.row for r in d.related])
            for d in report.diagnostics] == [("PRM105", "info", 24, 16, [25])]
