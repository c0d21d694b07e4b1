"""PRM204: a request's tools read from an object the caller handed in, changed on that object
after the request (python/tool_narrowing.py). The fixtures are under fixtures/tool_narrowing/."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.module import load
from promptlint.python.tool_narrowing import find_narrowed_tools

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "tool_narrowing" / "tool_filter.py"


def test_the_runtime_narrowed_after_the_request_that_sent_its_tools_is_info_with_the_request_related():
    report = api.check([FIXTURE], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
            for d in report.diagnostics] == [("PRM204", "info", 26, [21])]
    assert report.diagnostics[0].message.startswith(
        "`query` sends a request with the tools of `runtime.functions` (line 21), then changes that set here")
    assert not report.diagnostics[0].name_only


def test_a_restored_copy_and_a_change_of_what_no_request_sent_are_no_fact():
    module = load(FIXTURE, FIXTURE.read_text(encoding="utf-8"))
    assert [(c.node.lineno, c.target, c.shape, c.before.lineno) for c in find_narrowed_tools(module)] == [
        (26, "runtime.functions", "narrowed", 21)]
