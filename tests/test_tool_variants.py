"""PRM204 facts: the tools a request sends taking other values between the requests of one
conversation (`tool_variants`, `tool_fallbacks`), and the rule's severity for each."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.module import load
from promptlint.python.tool_fallbacks import find_fallbacks
from promptlint.python.tool_resets import find_tool_resets
from promptlint.python.tool_variants import find_tool_variants

from analysis_support import code, write


def _found(source: str):
    module = load(Path("app.py"), code(source))
    return [(v.node.lineno, v.send.lineno, v.shape, v.proven, v.evidence)
            for v in [*find_tool_variants(module), *find_tool_resets(module), *find_fallbacks(module)]]


def _checked(tmp_path, source: str):
    write(tmp_path, {"app.py": code(source)})
    return [(d.span.start.row, d.severity.value) for d in api.check([str(tmp_path)]).diagnostics
            if d.code == "PRM204"]


LAST_STEP = """
    from openai import OpenAI

    client = OpenAI()
    TOOLS = [{"type": "function", "function": {"name": "lookup", "parameters": {}}}]


    def run(messages: list[dict], budget: int):
        for step in range(budget):
            reply = client.chat.completions.create(
                model="gpt-4.1", messages=messages,
                tools=None if step == budget - 1 else TOOLS)
            messages.append(reply.choices[0].message)
"""


def test_an_agent_loop_that_drops_its_tools_on_the_last_step_is_proven(tmp_path):
    assert _found(LAST_STEP) == [(11, 9, "branch", True, "loop")]
    assert _checked(tmp_path, LAST_STEP) == [(11, "warning")]


BRANCHES = """
    import anthropic

    claude = anthropic.Anthropic()


    class Planner:
        def __init__(self, think, act):
            self.think, self.act = think, act

        def solve(self, convo: list[dict]):
            rounds = 0
            while rounds < 8:
                rounds += 1
                if rounds > 2:
                    toolset = [self.think, self.act]
                else:
                    toolset = [self.think]
                reply = claude.messages.create(model="claude-sonnet-4-5", max_tokens=800,
                                               messages=convo, tools=toolset)
                convo.append({"role": "assistant", "content": reply.content})
"""


def test_tools_chosen_by_a_counter_of_the_loop_in_the_branches_of_an_if_are_proven(tmp_path):
    assert _found(BRANCHES) == [(15, 18, "branch", True, "loop")]
    assert _checked(tmp_path, BRANCHES) == [(15, "warning")]


PER_TURN = """
    import anthropic
    from langchain_core.messages import HumanMessage

    claude = anthropic.Anthropic()


    def reply(history: list[dict], user_message: str, catalog: list[dict]):
        relevant = rank_tools(user_message)
        picked = [spec for spec in catalog if spec["name"] in relevant]
        return claude.messages.create(model="claude-sonnet-4-5", max_tokens=600, system="Be brief.",
                                      messages=[*history, {"role": "user", "content": user_message}],
                                      tools=picked)


    def lc_turn(chat_model, history, question: str, registry):
        runnable = chat_model.bind_tools(registry.matching(question))
        return runnable.invoke([*history, HumanMessage(question)])
"""


def test_tools_filtered_or_bound_per_turn_by_the_users_message_are_info_by_name(tmp_path):
    assert _found(PER_TURN) == [(9, 10, "filter", False, "name"), (16, 16, "computed", False, "name")]
    assert _checked(tmp_path, PER_TURN) == [(9, "info"), (16, "info")]


PROBED = """
    async def build_payload(payload: dict, ask_client, user):
        available = dict(ALL_TOOLS)
        status = await ask_client({"type": "probe:device"})
        online = bool(status and status.get("online"))
        for key in list(available):
            if key.startswith("device_") and not online:
                available.pop(key)
        payload["tools"] = [entry["spec"] for entry in available.values()]
        payload["messages"] = [*payload["messages"]]
        return payload
"""


def test_tools_removed_by_a_state_awaited_on_every_request_are_info(tmp_path):
    assert _found(PROBED) == [(7, 8, "mutation", False, "awaited")]
    assert _checked(tmp_path, PROBED) == [(7, "info")]


RESET = """
    class ChatService:
        def clear_tool_options(self, opts) -> None:
            opts.tools = None
            opts.tool_choice = None

        async def complete(self, thread, opts, attempts: int):
            for _ in range(attempts):
                answer = await self._request(thread, opts)
                if not answer.calls:
                    return answer
                thread.add_message(answer)
            else:
                self.clear_tool_options(opts)
                return await self._request(thread, opts)


    class BaseService:
        def _reset_function_options(self, opts) -> None:
            return

        async def complete(self, thread, opts, attempts: int):
            for _ in range(attempts):
                answer = await self._request(thread, opts)
                thread.append(answer)
            self._reset_function_options(opts)
            return await self._request(thread, opts)
"""


def test_the_tools_removed_before_the_final_request_of_an_invocation_loop(tmp_path):
    assert _found(RESET) == [(13, 14, "reset", True, "statement"), (25, 26, "reset", False, "method name")]
    assert _checked(tmp_path, RESET) == [(13, "warning"), (25, "info")]


FALLBACK = """
    class Agent:
        def __init__(self, config, api):
            self.config, self.api = config, api
            self.tool_defs = []

        async def _setup_tools(self, groups_for_turn=None):
            groups = groups_for_turn or self.config.toolgroups or []
            self.tool_defs = [d for g in groups for d in await self.api.list(g)]

        async def start_turn(self, request):
            await self._setup_tools(request.toolgroups)
            return await self._run(request)

        async def continue_turn(self, request):
            await self._setup_tools()
            return await self._run(request)
"""


def test_a_turns_tools_replacing_the_configured_ones_and_a_resume_that_omits_them(tmp_path):
    assert _found(FALLBACK) == [(7, 11, "fallback", False, "name"), (15, 11, "omitted", False, "name")]
    assert _checked(tmp_path, FALLBACK) == [(7, "info"), (15, "info")]


FIXED = """
    from openai import OpenAI

    client = OpenAI()
    TOOLS = [{"type": "function", "function": {"name": "lookup", "parameters": {}}}]


    def configured(messages, config, steps: int):
        for step in range(steps):
            use = config.use_tools
            tools = TOOLS if use else None
            messages.append(client.chat.completions.create(model="gpt-4.1", messages=messages, tools=tools))


    def capable(messages, model_info, user_message: str):
        if model_info.supports_tools:
            tools = TOOLS
        else:
            tools = None
        return client.chat.completions.create(model="gpt-4.1", messages=[*messages, user_message], tools=tools)


    def each_item(items: list[str]):
        for i, item in enumerate(items):
            messages = [{"role": "user", "content": item}]          # a conversation per item
            client.chat.completions.create(model="gpt-4.1", messages=messages, tools=TOOLS if i % 2 else None)


    def same_both_ways(messages, steps: int):
        for step in range(steps):
            tools = TOOLS if step else TOOLS
            messages.append(client.chat.completions.create(model="gpt-4.1", messages=messages, tools=tools))


    def per_item_filter(messages, catalog, steps: int):
        for _ in range(steps):
            tools = []
            for spec in catalog:
                if spec["kind"] == "search":                         # per item of the catalog
                    tools.append(spec)
            messages.append(client.chat.completions.create(model="gpt-4.1", messages=messages, tools=tools))


    class Agent:
        def __init__(self, config):
            self.config = config

        def each_document(self, documents, steps: int):
            for i, doc in enumerate(documents):
                self.messages = [{"role": "user", "content": doc}]  # a new conversation per document
                self.llm.invoke(self.messages, tools=TOOLS if i else None)

        def _tools(self, extra=None):
            return extra or self.config.tools                        # not the turn's by any name

        def settings_once(self, messages, user_query: str):
            tools = [t for t in TOOLS if t["function"]["name"] in self.config.allowed]
            return client.chat.completions.create(model="gpt-4.1", messages=[*messages, user_query], tools=tools)


    async def deferred(payload: dict, registry):
        catalog = registry.tools()
        hidden = await choose_deferred(catalog)                     # a function of the tools
        payload["tools"] = [t for name, t in catalog.items() if name not in hidden]
        meta = {}
        meta["tools"] = catalog                                      # not the request
        payload["messages"] = list(payload["messages"])
"""


def test_a_switch_fixed_for_the_conversation_or_a_new_conversation_per_item_is_no_variant(tmp_path):
    assert _found(FIXED) == []
    assert _checked(tmp_path, FIXED) == []


RELOADED_AND_RETRIED = """
    from openai import OpenAI
    client = OpenAI()
    TOOLS = [{"type": "function", "function": {"name": "f"}}]

    def run(messages):
        for _ in range(5):
            settings = load_settings()
            reply = client.chat.completions.create(model="gpt-4o", messages=messages,
                                                   tools=TOOLS if settings.enabled else None)
            messages.append(reply.choices[0].message)

    def ask(messages):
        for attempt in range(3):
            try:
                return client.chat.completions.create(model="gpt-4o", messages=messages,
                                                      tools=TOOLS if attempt == 0 else None)
            except Exception:
                continue
"""


def test_a_setting_read_again_each_pass_and_a_retry_loop_prove_no_per_pass_tools(tmp_path):
    """`settings = load_settings()` in the loop is no proof that `settings.enabled` changes per
    pass (only a counter or a model's reply is); a send returned from the loop is retried after a
    failure, not sent again with a grown conversation: neither is a warning."""
    assert [row for row, severity in _checked(tmp_path, RELOADED_AND_RETRIED) if severity == "warning"] == []



PRESENT = """
    async def generate(self, history, tools, emulate):
        request = dict(messages=await convert(history), model=self.model)
        if (not emulate) and len(tools) > 0:
            request["tools"] = convert_tools(tools)
        logged = request | dict(
            tools=[tool.as_dict() for tool in request["tools"]] if request.get("tools", None) is not None else None,
        )
        record(logged)
        return await self.client.complete(**request)
"""


def test_tools_sent_when_there_are_any_are_no_variant(tmp_path):
    """A test of whether what the tools are made of is there (`len(tools) > 0`, `req.get("tools") is
    not None`) sends the same tools on every request of a conversation, although the request holds a
    value awaited per request (which PROBED's state test above still is)."""
    assert _found(PRESENT) == []
    assert _checked(tmp_path, PRESENT) == []


CHANGED_IN_PLACE = """
    import openai


    class Agent:
        def run(self, task, max_steps: int):
            tools = list(self._tools)
            store = ResponseStore()
            local_messages = []
            step = 0
            while step < max_steps:
                step += 1
                if len(store.responses) > 0 and store.tool not in tools:
                    tools.append(store.tool)
                context = self._build_context(messages=self._messages + local_messages, tools=tools)
                reply = self._get_llm_response(messages=context, tools=tools)
                if len(reply.output) > 2000:
                    store.add_response(reply.output)
                local_messages.append(reply)

        def _get_llm_response(self, messages, tools):
            return openai.chat.completions.create(model="gpt-4.1", messages=messages, tools=tools)
"""

NOT_CHANGED = """
    import openai


    class Agent:
        def run(self, task, max_steps: int):
            tools = list(self._tools)
            store = self.store
            local_messages = []
            step = 0
            while step < max_steps:
                step += 1
                if len(store.responses) > 0 and store.tool not in tools:
                    tools.append(store.tool)
                context = self._build_context(messages=self._messages + local_messages, tools=tools)
                reply = self._get_llm_response(messages=context, tools=tools)
                local_messages.append(reply)
"""


def test_tools_added_by_a_condition_on_an_object_the_loop_changes_in_place_are_info(tmp_path):
    # the request is rebuilt on each pass from the conversation the instance keeps
    assert _found(CHANGED_IN_PLACE) == [(13, 15, "mutation", False, "changed")]
    assert _checked(tmp_path, CHANGED_IN_PLACE) == [(13, "info")]
    # the same condition on an object the loop leaves alone is fixed for the conversation
    assert _found(NOT_CHANGED) == []


REBUILT = """
    import openai


    class Agent:
        def run(self, budget: int):
            for step in range(budget):
                context = self._build_context(messages=self._messages)
                tools = None if step == budget - 1 else self.tools
                reply = self._send(messages=context, tools=tools)
                self._messages.append(reply)
"""

PER_ITEM = """
    import openai


    class Agent:
        def run(self, docs):
            for doc in docs:
                context = self._build_context(doc)
                tools = None if doc.short else self.tools
                self._send(messages=context, tools=tools)
"""


def test_a_request_rebuilt_on_each_pass_from_the_kept_conversation_is_one_conversation(tmp_path):
    assert _found(REBUILT) == [(8, 9, "branch", True, "loop")]
    assert _found(PER_ITEM) == []


HANDED = """
    import openai


    class Executor:
        async def astep(self, task, plans, agents):
            tools = {name: self.tools for name in agents}
            for turn in range(self.max_turns):
                calls = []
                for name in agents:
                    if turn == self.max_turns - 1:
                        tool = [t for t in tools[name] if t["name"] == "submit_task"]
                    else:
                        tool = tools[name]
                    calls.append(self.agents[name].astep(task, plans[name], tool, current_turn=turn + 1))
                await asyncio.gather(*calls)


    class ExecutorAgent:
        async def astep(self, task, plan, tools, current_turn=0):
            return await openai.AsyncOpenAI().chat.completions.create(
                model="gpt-4.1", messages=[*self.memory, {"role": "user", "content": plan}], tools=tools)
"""

HANDED_PER_ITEM = """
    import openai


    class Executor:
        async def astep(self, task, plans, agents):
            for name in agents:
                if name == "writer":
                    tool = [t for t in self.tools if t["name"] == "submit_task"]
                else:
                    tool = self.tools
                self.agents[name].astep(task, plans[name], tool)
                log.info(len(tool))
"""


def test_tools_chosen_by_the_step_and_handed_to_a_helper_are_info_by_name(tmp_path):
    assert _found(HANDED) == [(11, 14, "branch", False, "helper")]
    assert _checked(tmp_path, HANDED) == [(11, "info")]
    # chosen per item of the agents (each its own conversation), not per step
    assert _found(HANDED_PER_ITEM) == []
