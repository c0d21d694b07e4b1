"""PRM204 facts: a loop that re-sends the conversation it grows through runnables bound to
different tool lists (python/tool_switches.py)."""
import ast
import textwrap
from pathlib import Path

from promptlint.python.module import load
from promptlint.python.tool_switches import find_tool_switches


def _switches(src: str):
    return find_tool_switches(load(Path("m.py"), textwrap.dedent(src)))


def test_a_runnable_chosen_per_step_with_other_tools_is_a_switch():
    found, = _switches("""
        class Opt:
            def __init__(self, model):
                self.a = create(model, tools=[think, critique])
                self.b = create(model, tools=[recommend])

            def run(self, messages, n):
                for ix in range(n):
                    chain = self.b if ix == n - 1 else self.a
                    chain = self.a if ix < 2 else self.b
                    messages.append(chain.invoke(messages))
    """)
    assert ast.unparse(found.node) == "chain.invoke(messages)" and found.function == "run"
    assert set(found.lists) == {("recommend",), ("think", "critique")}


def test_two_requests_with_runnables_from_a_helper_tuple_are_a_switch():
    found, = _switches("""
        class Opt:
            def _chains(self, model, schema):
                first = model.bind_tools([self.think, schema])
                last = model.with_structured_output(schema)
                return first, last

            async def run(self, model, schema, messages, n):
                first, last = self._chains(model, schema)
                for ix in range(n):
                    if ix == n - 1:
                        return await last.ainvoke(messages)
                    messages += [await first.ainvoke(messages)]
    """)
    assert ast.unparse(found.node) == "last.ainvoke(messages)"
    assert set(found.lists) == {("self.think", "schema"), ("schema",)}


def test_same_tools_unknown_tools_or_a_fresh_conversation_are_no_switch():
    assert not _switches("""
        def same(model, messages, tools, n):
            a = model.bind_tools([t1, t2])
            b = model.bind_tools([t1, t2])
            for ix in range(n):
                chain = a if ix else b
                messages.append(chain.invoke(messages))

        def unknown(x, y, messages, n):
            for ix in range(n):
                chain = x if ix else y
                messages.append(chain.invoke(messages))

        def fresh(model, items):
            a = model.bind_tools([t1])
            b = model.with_structured_output(S)
            for i, item in enumerate(items):
                messages = [item]
                chain = a if i else b
                chain.invoke(messages)
    """)


def _filters(src: str):
    from promptlint.python.tool_switches import find_forced_filters
    return [(ast.unparse(c), f) for c, f in find_forced_filters(load(Path("m.py"), textwrap.dedent(src)))]


def test_a_tool_list_filtered_to_the_forced_tool_is_found():
    assert _filters("""
        def fmt(tools, tool_choice):
            allowed = set(tool_choice.tools)
            return [t for t in tools if t["function"]["name"] in allowed]

        def retry(ctx):
            forced_tool = ctx.tool_choice["tool"]["name"]
            return [s for s in ctx.tool_specs if s.name == forced_tool]
    """) == [("[t for t in tools if t['function']['name'] in allowed]", "fmt"),
             ("[s for s in ctx.tool_specs if s.name == forced_tool]", "retry")]


def test_a_configured_allow_list_or_a_lookup_of_the_forced_tool_is_not():
    assert _filters("""
        def configured(tools, agent):
            return [t for t in tools if t["name"] in agent.allowed_tools]

        def lookup(tools, tool_choice):
            return [t for t in tools if t["name"] == tool_choice["name"]][0]["parameters"]

        def other_lists(rows, tool_choice):
            return [r for r in rows if r["name"] == tool_choice]
    """) == []
