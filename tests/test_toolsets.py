"""promptlint/python/toolsets.py: changes of a tool set held beyond a call, made by a tool result
or between two requests (PRM204's facts), and the pre-filter that lets such files be analysed."""
from __future__ import annotations

from pathlib import Path

from analysis_support import code

from promptlint.python.module import load
from promptlint.python.prefilter import might_hold_prompt
from promptlint.python.toolsets import find_tool_changes
from promptlint.python.class_toolsets import find_class_tool_changes


def changes(source: str) -> list[tuple[int, str, str, str]]:
    module = load(Path("app.py"), code(source))
    return [(c.node.lineno, c.target, c.function, c.shape) for c in find_tool_changes(module)]


def test_a_function_that_returns_text_and_grows_a_held_tool_set_is_a_tool_result():
    assert changes("""
        TOOLS = []


        def load_server(name):
            TOOLS.extend(connect(name))
            TOOLS.append(name)  # the same function: one root cause
            return f"Loaded {name}"


        def found(self, hits):
            self.discovered_tools.update(hits)
            return "ok"
    """) == [(5, "TOOLS", "load_server", "tool-result"), (11, "self.discovered_tools", "found", "tool-result")]


def test_a_change_between_two_requests_or_in_a_loop_that_sends():
    assert changes("""
        def run(self, task, extra):
            plan = self.call_llm(task)
            self.tools += extra
            return self.call_llm(plan)


        async def steps(self, urls):
            for url in urls:
                await self.client.chat.completions.create(tools=self.page_tools)
                self.page_tools = self.registry.for_page(url)
    """) == [(3, "self.tools", "run", "between-requests"), (10, "self.page_tools", "steps", "between-requests")]


def test_what_is_not_a_change_of_a_held_tool_set_between_requests():
    assert changes("""
        TOOLS = []


        def add_tool(self, tool):
            self.tools.append(tool)  # configuration: no request, no text returned


        def run(self, task):
            tools = [make()]
            tools.append(done)  # a local list
            self.tools = []  # emptied, not grown
            self.extra_tools.append(x)  # before any request
            first = self.llm.invoke(task)
            self.tool_names = ["a"]  # named for tools ...
            self._refresh_llm()  # ... but no request follows: rebuilding a client is none
            return first


        def describe(tools_used):
            tools_used.append("x")  # a parameter
            return "text"


        async def turn(self, params):
            for i in range(3):
                config = self.converter.to_config(params)
                config.tools = await self.tools()  # a request's config made on each pass
                await self.client.chat(config=config)


        def shadow():
            TOOLS = [1]
            TOOLS.append(2)  # a local that shadows the module's name
            return "text"
    """) == []


def test_the_prefilter_lets_a_file_that_changes_a_held_tool_set_through():
    assert might_hold_prompt("def f(self, t):\n    self._discovered_tools[t.name] = t\n    return 'ok'\n")
    assert might_hold_prompt("from .registry import load_dynamic_tool_specs\n")
    assert might_hold_prompt("agent.tools_list_dictionary.append(tool)\n")
    assert not might_hold_prompt("tools = []\nif tools == other:\n    pass\n")
    assert not might_hold_prompt("self.toolbar.items = []\n")


def class_changes(source: str) -> list[tuple[int, str, str]]:
    module = load(Path("app.py"), code(source))
    return [(c.node.lineno, c.target, c.function) for c in find_class_tool_changes(module)]


AGENT = """
    class Agent:
        def __init__(self, llm):
            self.llm = llm
            self._setup_models()

        def _setup_models(self):
            self.AgentOutput = build_output(None)  # set up once, from __init__

        def _for_page(self, url):
            self.AgentOutput = build_output(url)

        async def get_model_output(self, messages):
            kwargs = {"output_format": self.AgentOutput}
            return await self.llm.ainvoke(messages, **kwargs)

        async def step(self, url, messages):
            self._for_page(url)
            return await self.get_model_output(messages)
"""


def test_a_schema_sent_by_the_class_changed_on_each_pass_of_a_loop_that_sends_it():
    looped = AGENT + """
        async def run(self, urls, messages):
            for url in urls:
                await self.step(url, messages)
    """
    assert class_changes(looped) == [(10, "self.AgentOutput", "_for_page")]


def test_a_schema_changed_once_or_never_passed_by_the_class_is_not_a_change_on_each_step():
    once = AGENT + """
        async def run(self, url, messages):
            return await self.step(url, messages)  # one step: no loop
    """
    assert class_changes(once) == []
    unsent = AGENT.replace('{"output_format": self.AgentOutput}', '{"format": self.AgentOutput}') + """
        async def run(self, urls, messages):
            for url in urls:
                await self.step(url, messages)
    """
    assert class_changes(unsent) == []


def test_a_refresh_that_removes_entries_and_inserts_them_again_changes_the_order():
    assert changes("""
        class Aggregator:
            async def refresh_server(self, server, new_tools):
                for old in self._server_tools.get(server, []):
                    del self._tool_map[old.name]
                self._server_tools[server] = []
                for tool in new_tools:
                    self._tool_map[f"{server}-{tool.name}"] = tool
                    self._server_tools[server].append(tool)

            def unregister(self, name):
                self._tool_map.pop(name)  # removed only: no insertion after it

            def reload(self, tools):
                self._tool_map.clear()  # emptied and filled again: the same order
                self._tool_map.update(tools)

            def readd(self, tool):
                self._tool_map[tool.name] = tool  # inserted before the removal
                self.other_tools.pop(tool.name)
    """) == [(7, "self._tool_map", "refresh_server", "reinserted")]


def test_a_tool_a_class_adds_to_another_objects_tool_set_and_removes_is_temporary():
    assert class_changes("""
        class OutputContext:
            def register_tool(self, registry):
                if self.tool.name not in registry.dynamic_tools:
                    registry.register_dynamic_tool(self.tool)

            def cleanup(self, registry):
                if self.tool.name in registry.dynamic_tools:
                    del registry.dynamic_tools[self.tool.name]
    """) == [(8, "registry.dynamic_tools", "cleanup")]


def test_a_registrys_own_api_or_a_removal_alone_is_no_temporary_tool():
    assert class_changes("""
        class ToolRegistry:
            def register_tool(self, tool):
                self._tools[tool.name] = tool

            def unregister_tool(self, name):
                del self._tools[name]


        class Pruner:
            def prune(self, agent, name):
                agent.tools.pop(name)  # nothing of the class adds to agent.tools


        class Session:
            def on_calls(self, state, calls):
                state.pending_tools.update(c["id"] for c in calls)

            def on_result(self, state, item):
                state.pending_tools.discard(item["call_id"])  # ids of tool calls, not tools


        class Adapter:
            def add_tools(self, request):
                request.tools_dict[self.tool.name] = self.tool

            def adapt(self, request, name, adapt):
                adapted = adapt(request.tools_dict[name])
                request.tools_dict[adapted.name] = adapted  # a replacement, the same on every request
                del request.tools_dict[name]
    """) == []


def test_a_schema_passed_by_keyword_is_a_use_too_and_a_method_that_names_no_schema_field_uses_none():
    # (only methods whose text holds a request field of tools or schemas are walked for a use)
    looped = AGENT.replace('kwargs = {"output_format": self.AgentOutput}\n            return await self.llm.ainvoke(messages, **kwargs)',
                           'return await self.llm.ainvoke(messages, response_format=self.AgentOutput)') + """
        async def run(self, urls, messages):
            for url in urls:
                await self.step(url, messages)
    """
    assert "response_format=self.AgentOutput" in looped
    assert class_changes(looped) == [(10, "self.AgentOutput", "_for_page")]
    renamed = looped.replace("response_format=self.AgentOutput", "schema=self.AgentOutput")
    assert class_changes(renamed) == []


def test_a_tool_result_that_replaces_the_agents_tools_by_a_call_is_a_tool_result():
    # (main: nothing; only calls named for loading tools were read: `load_`, `register_`, `add_`...)
    assert changes("""
        async def _update_email(self, email, ctx):
            current_tools = [t for t in self.tools if t.id != "confirm_email"]
            current_tools.append(self._build_confirm_tool(email))
            await self.update_tools(current_tools)
            return f"The email has been updated to {email}. Ask the user to confirm it."
    """) == [(4, "update_tools(...)", "_update_email", "tool-result")]
    assert changes("""
        def found(self, hits):
            self.agent.set_tools(hits)
            return f"{len(hits)} tools ready"
    """) == [(2, "set_tools(...)", "found", "tool-result")]


def test_a_call_that_replaces_tools_outside_a_tool_result_or_requests_is_no_change():
    assert changes("""
        async def configure(self, tools):
            await self.update_tools(tools)  # setup: returns nothing, no request around it


        def describe(self):
            self.update_tool_choice("auto")  # not a tool set: a tool's use
            return "configured"
    """) == []


def test_a_tool_set_replaced_in_the_loop_that_streams_an_agents_run_is_between_requests():
    # (main: nothing; `astream` of an agent executor was no request)
    assert changes("""
        async def stream(self, query):
            messages = [*self.history, query]
            while True:
                async for chunk in self._agent_executor.astream({"messages": messages}):
                    messages.extend(chunk["messages"])
                if self.manager.tools != self._tools:
                    self._tools = self.manager.tools
                    self._agent_executor = self._create_agent()
                    continue
                break
    """) == [(7, "self._tools", "stream", "between-requests")]


def test_a_stream_of_a_receiver_not_named_for_a_model_is_no_request():
    assert changes("""
        async def copy(self, files):
            for f in files:
                async for block in self.storage.astream(f):
                    self.tools_cache.append(block)
    """) == []


def test_setting_the_tool_chosen_for_one_item_is_no_change_of_the_tool_set():
    # `set_tool(task_id, tool)` records one task's tool; only the plural replaces a set
    assert changes("""
        async def route(self, tasks, responses):
            for response, task_id in zip(responses, tasks.ids):
                tasks.set_completion(task_id, response.done)
                tasks.set_tool(task_id, response.tool)
    """) == []
