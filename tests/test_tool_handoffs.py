"""promptlint/python/tool_handoffs.py: a class that lists its requests' tools from an object it
holds and replaces that object in a method run after a tool call (a swarm handoff): PRM204's
facts, and what is no handoff."""
from __future__ import annotations

from pathlib import Path

from analysis_support import code

from promptlint import api
from promptlint.python.module import load
from promptlint.python.tool_handoffs import find_tool_handoffs

SWARM = """
    class Swarm(BaseLLM):
        def __init__(self, agent):
            super().__init__(agent=agent)
            self.instruction = agent.instruction

        async def get_tool(self, name):
            result = await self.agent.list_tools()
            return next((t for t in result.tools if t.name == name), None)

        async def post_tool_call(self, tool_call_id, request, result):
            for content in result.content:
                if isinstance(content, AgentResource):
                    await self.set_agent(content.agent)
            return result

        async def set_agent(self, agent):
            self.agent = agent
            if agent is None:
                self.instruction = None
                return
            self.instruction = agent.instruction
"""


def handoffs(source: str) -> list[tuple]:
    module = load(Path("app.py"), code(source))
    return [(c.node.lineno, c.target, c.function, c.shape, c.before.lineno, c.after and c.after.lineno)
            for c in find_tool_handoffs(module)]


def test_a_tool_source_replaced_after_a_tool_call_is_a_handoff():
    assert handoffs(SWARM) == [(17, "self.agent", "post_tool_call", "handoff", 7, 21)]


def test_what_is_no_handoff():
    # the object set once, in __init__ only
    assert handoffs(SWARM.replace("await self.set_agent(content.agent)", "pass")) == []
    # replaced by a method no tool-call hook runs
    assert handoffs(SWARM.replace("async def post_tool_call", "async def reset_all")) == []
    # an object whose tools the class never lists
    assert handoffs(SWARM.replace("self.agent.list_tools()", "self.registry.list_tools()")) == []
    # emptied: the conversation ends
    assert handoffs(SWARM.replace("self.agent = agent", "self.agent = None")) == []


def test_prm204_reports_the_handoff_as_info(tmp_path):
    (tmp_path / "swarm.py").write_text(code(SWARM), encoding="utf-8")
    found = [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related], d.message)
             for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics]
    assert [f[:4] for f in found] == [("PRM204", "info", 17, [7, 21])]
    assert found[0][4].startswith("`post_tool_call` runs after a tool call and replaces `self.agent`")
    assert "and the system prompt (`self.instruction`, line 21)" in found[0][4]
