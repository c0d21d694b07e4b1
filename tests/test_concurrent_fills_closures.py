"""PRM203: a tools registry filled in completion order by coroutines run at once, where the
coroutine is defined inside the method that starts them (a closure) and fills the registry through
a method of the class (`self.add(tool)`) (python/concurrent_fills.py). The fixture is
fixtures/concurrent_fills/toolset.py."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "concurrent_fills" / "toolset.py"


def test_a_closure_that_adds_through_the_classs_setter_fills_in_completion_order():
    report = api.check([FIXTURE], api.Settings(), jobs=1)
    # `Toolset.connect_all` only; `OrderedToolset` adds after gather returns, in the servers' order
    assert [(d.code, d.severity.value, d.span.start.row, [(r.span.start.row, r.message) for r in d.related])
            for d in report.diagnostics] == [("PRM203", "warning", 30, [(26, "value produced here")])]
    assert "`self._tool_dict` filled by `_connect` as each call completes" in report.diagnostics[0].message
