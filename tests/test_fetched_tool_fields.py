"""PRM101: a value a function awaits on each call, interpolated into a tool definition's text
(python/fetched_tool_fields.py), is info where it enters the definition; a server's own listing,
text written in the code, a caller's value, a record with a name and a description and a tool call's
name are no finding (fixtures/fetched_tool_fields/)."""
from __future__ import annotations

from pathlib import Path

from promptlint.api import check
from promptlint.config import Settings
from promptlint.python.fetched_tool_fields import find_fetched_tool_fields
from promptlint.python.module import load

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "fetched_tool_fields" / "terminal.py"


def test_the_awaited_values_put_into_tool_descriptions_are_the_facts():
    module = load(FIXTURE, FIXTURE.read_text())
    assert [(f.node.lineno, f.target, f.name, f.fetched.lineno, f.function) for f in find_fetched_tool_fields(module)] == [
        (25, "tool_spec['description']", "cwd", 20, "get_terminal_tools"),
        (32, "the tool's `description`", "load", 31, "status_tool")]


def test_each_is_info_at_the_interpolation_with_the_fetch_related():
    # (main: nothing; a tool definition with a value other than an id or a time was not read)
    result = check([FIXTURE], Settings(), jobs=1)
    found = [(d.code, d.severity.value, d.span.start.row, d.span.start.column, [r.span.start.row for r in d.related])
             for d in result.diagnostics]
    assert found == [("PRM101", "info", 25, 116, [20]), ("PRM101", "info", 32, 83, [31])]
