"""PRM203: tools lists built from an MCP server's `list_tools()` where the session or the listing is
known by a type, not by a call the code makes: a session attribute annotated `ClientSession | None`
(opened where we cannot see), a connector parameter annotated with a class of the tree whose own
`list_tools()` lists its session's tools (its callers hand it an element of a list), a session
parameter annotated `ClientSession`, a function named for tools that returns the list its loop
fills (`schema`), the `.tools` of a result checked to be an MCP `ListToolsResult` (an actor's
reply), and the servers of a dict attribute annotated `Dict[str, McpWorkbench]` walked by a loop. Info: one server's order is usually stable, which MCP does not promise. A sorted
listing and a list of names stay clean. Fixtures under fixtures/mcp_listings/."""
from __future__ import annotations

import shutil
from pathlib import Path

from analysis_support import pos

from promptlint import api
from promptlint.fix import apply_edits

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "mcp_listings"
STABLE = "a server usually lists its tools in a stable order, which MCP does not promise"


def _check(tmp_path, monkeypatch):
    root = tmp_path / "project"
    shutil.copytree(FIXTURES, root)
    monkeypatch.chdir(root)
    return root, api.check([Path(".")], api.Settings(), jobs=1).diagnostics


def test_typed_sessions_and_connectors_are_listings(tmp_path, monkeypatch):
    # (main: none of them; a session or connector known only by its annotation was not a listing)
    root, found = _check(tmp_path, monkeypatch)
    actor = (root / "app" / "actor.py").read_text()
    adapter = (root / "app" / "adapter.py").read_text()
    workbench = (root / "app" / "workbench.py").read_text()
    at_actor = pos(actor, "listed.tools:\n            schema")
    at_adapter = pos(adapter, "await connector.list_tools()")
    at_bench = pos(workbench, "(await session.list_tools()).tools")
    aggregate = (root / "app" / "aggregate.py").read_text()
    at_servers = pos(aggregate, "listed:")
    assert [(d.code, d.span.filename, d.span.start.row, d.span.start.column, d.severity.value) for d in found] == [
        ("PRM203", "app/actor.py", at_actor.row, at_actor.column, "info"),
        ("PRM203", "app/adapter.py", at_adapter.row, at_adapter.column, "info"),
        ("PRM203", "app/aggregate.py", at_servers.row, at_servers.column, "info"),
        ("PRM203", "app/workbench.py", at_bench.row, at_bench.column, "info")]
    assert all(d.message.endswith(STABLE) and not d.name_only for d in found)
    assert "for tool in sorted(listed.tools, key=lambda tool: tool.name):" in apply_edits(actor, found[0].fix.edits)
    # where the connector's own method lists them
    connectors = (root / "app" / "connectors.py").read_text()
    assert [(r.span.filename, r.span.start.row) for r in found[1].related] == [
        ("app/connectors.py", pos(connectors, "self.client_session.list_tools()").row)]
    # the safe fix sorts the listing by tool name (MCP `Tool` objects have no `<`)
    fixed = apply_edits(adapter, found[1].fix.edits)
    assert "for tool in sorted(await connector.list_tools(), key=lambda tool: tool.name):" in fixed


def test_sorted_listings_and_names_are_clean(tmp_path, monkeypatch):
    # (`SortedConnector.list_tools` sorts and `server_names` returns names, not tools: neither is
    # among the findings above); with the other two sorted too, nothing is left
    root, _ = _check(tmp_path, monkeypatch)
    bench = root / "app" / "workbench.py"
    bench.write_text(bench.read_text().replace("(await session.list_tools()).tools:\n            schema",
                                               "sorted((await session.list_tools()).tools, key=lambda t: t.name):\n"
                                               "            schema"))
    actor = root / "app" / "actor.py"
    actor.write_text(actor.read_text().replace("in listed.tools:\n            schema",
                                               "in sorted(listed.tools, key=lambda t: t.name):\n            schema"))
    aggregate = root / "app" / "aggregate.py"
    aggregate.write_text(aggregate.read_text().replace("for tool in listed:", "for tool in sorted(listed, key=str):"))
    adapter = root / "app" / "adapter.py"
    adapter.write_text(adapter.read_text().replace("connector: BaseConnector)", "connector: SortedConnector)"))
    assert api.check([Path(".")], api.Settings(), jobs=1).diagnostics == []
