"""promptlint/python/concurrent_fills.py: a tools registry that coroutines run at once with
`asyncio.gather` fill after an `await`, so its order is their completion order (PRM203 at the
gather call), and what keeps such a registry's order stable."""
from __future__ import annotations

from promptlint import api
from promptlint.python.prefilter import might_hold_prompt

from analysis_support import code, write

LOADER = """
    import asyncio

    from mcp import ClientSession


    class Hub:
        def __init__(self, servers, sessions):
            self.servers = servers
            self.sessions = sessions
            self._tool_index = {}

        async def _fetch(self, name):
            session: ClientSession = self.sessions[name]
            listed = await session.list_tools()
            return listed.tools

        async def load_one(self, name):
            tools = await self._fetch(name)
            for tool in tools:
                self._tool_index[f"{name}.{tool.name}"] = tool

        async def load_all(self):
            await asyncio.gather(*(self.load_one(n) for n in self.servers))

        def all_tools(self):
            return [t for t in self._tool_index.values()]
"""


def _check(tmp_path, source: str):
    write(tmp_path, {"hub.py": source})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related], d.message)
            for d in report.diagnostics]


def test_a_registry_filled_by_concurrent_mcp_listings_is_ordered_by_completion(tmp_path):
    found = _check(tmp_path, LOADER)
    assert [f[:4] for f in found] == [("PRM203", "warning", 23, [20])]
    assert "completion order of concurrent MCP tool listings: `self._tool_index` filled by `load_one`" in found[0][4]


def test_a_registry_only_named_for_tools_is_info(tmp_path):
    source = LOADER.replace("listed = await session.list_tools()", "listed = await session.fetch()")
    found = _check(tmp_path, source)
    assert [f[:4] for f in found] == [("PRM203", "info", 23, [20])]
    assert "only its name says it is a tool list" in found[0][4]


def test_what_keeps_the_order_of_a_registry_filled_concurrently(tmp_path):
    # sorted where it is read
    sorted_read = LOADER.replace("for t in self._tool_index.values()", "for t in sorted(self._tool_index.values())")
    assert _check(tmp_path / "a", sorted_read) == []
    # filled before the coroutine's first await: the calls run to it in the order they are listed
    before_await = LOADER.replace("""            tools = await self._fetch(name)
            for tool in tools:
                self._tool_index[f"{name}.{tool.name}"] = tool""", """            self._tool_index[name] = self.servers[name]
            await self._fetch(name)""")
    assert _check(tmp_path / "b", before_await) == []
    # never iterated: a map looked up by name
    looked_up = LOADER.replace("return [t for t in self._tool_index.values()]", "return self._tool_index[key]")
    assert _check(tmp_path / "c", looked_up) == []
    # awaited one after another: the order of the list
    in_turn = LOADER.replace("await asyncio.gather(*(self.load_one(n) for n in self.servers))",
                             "for n in self.servers:\n                await self.load_one(n)")
    assert _check(tmp_path / "d", in_turn) == []


def test_the_prefilter_lets_a_file_naming_tools_and_gather_through():
    assert might_hold_prompt(code(LOADER).replace("list_tools", "fetch"))


def test_the_other_ways_of_running_the_calls_at_once(tmp_path):
    # the calls listed in a local name, then gathered
    listed = LOADER.replace("await asyncio.gather(*(self.load_one(n) for n in self.servers))",
                            "jobs = [self.load_one(n) for n in self.servers]\n"
                            "            await asyncio.gather(*jobs)")
    assert [f[:3] for f in _check(tmp_path / "a", listed)] == [("PRM203", "warning", 24)]
    # a task per server in a TaskGroup
    grouped = LOADER.replace("await asyncio.gather(*(self.load_one(n) for n in self.servers))",
                             "async with asyncio.TaskGroup() as tg:\n"
                             "                for n in self.servers:\n"
                             "                    tg.create_task(self.load_one(n))")
    assert [f[:3] for f in _check(tmp_path / "b", grouped)] == [("PRM203", "warning", 25)]
    # a task made and awaited in turn: one after another
    awaited = grouped.replace("tg.create_task(self.load_one(n))", "await asyncio.create_task(self.load_one(n))")
    assert _check(tmp_path / "c", awaited) == []
