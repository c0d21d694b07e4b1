"""A dict or list built by iterating an MCP server's tool listing (`tools_response.tools`) is
reported by PRM203 with a safe fix that sorts the listing by tool name: MCP `Tool` objects have
no `<`, so a bare `sorted(...)` would raise TypeError at run time."""
from __future__ import annotations

from analysis_support import write

from promptlint import api
from promptlint.fix import apply_edits
from promptlint.model import Applicability, Severity

CLIENT = '''from mcp import ClientSession


class Client:
    async def connect(self, read_stream, write_stream):
        async with ClientSession(read_stream, write_stream) as session:
            await session.initialize()
            tools_response = await session.list_tools()
            self._tools = {tool.name: tool for tool in tools_response.tools}

    def tool_specs(self):
        return [{"name": t.name, "description": t.description, "input_schema": t.inputSchema}
                for t in self._tools.values()]
'''


def test_an_mcp_listing_is_sorted_by_tool_name(tmp_path):
    write(tmp_path, {"client.py": CLIENT})
    found = [d for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics if d.code == "PRM203"]
    assert [d.span.start.row for d in found] == [9]
    # one server's own listing order is usually stable (MCP does not promise it): info, not a warning
    assert found[0].severity is Severity.INFO
    assert found[0].message.endswith("a server usually lists its tools in a stable order, which MCP does not promise")
    fix = found[0].fix
    assert fix is not None and fix.applicability is Applicability.SAFE
    fixed = apply_edits(CLIENT, fix.edits)
    assert "for tool in sorted(tools_response.tools, key=lambda tool: tool.name)}" in fixed
