"""PRM204 tools-changed-mid-conversation."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Iterable

from ..model import Diagnostic, Related, Severity
from ..python.tool_switches import (find_dropped_tools, find_forced_filters, find_pushed_tool_changes,
                                    find_tool_switches, find_tools_emptied_at_limit)
from ..python.agent_followups import find_agent_followups
from ..python.dropped_methods import find_dropped_in_methods
from ..python.node_tools import find_node_tools
from ..python.option_tools import find_option_tools
from ..python.state_tools import find_state_tools
from ..python.stored_requests import find_stored_requests
from ..python.switched_helpers import find_switched_helpers
from ..python.choice_writes import find_choice_writes
from ..python.phase_tools import find_phase_tools
from ..python.tool_rebinds import find_tool_choice_rebound_in_loop, find_tools_rebound_in_loop
from ..python.tool_options import find_tools_turned_off
from ..python.tool_fallbacks import find_fallbacks
from ..python.tool_handoffs import find_tool_handoffs
from ..python.template_tool_gates import find_template_tool_gates
from ..python.tool_narrowing import find_narrowed_tools
from ..python.tool_resets import find_tool_resets
from ..python.tool_variants import find_tool_variants
from ..python.toolsets import find_tool_changes
from ..python.class_toolsets import find_class_tool_changes
from ..python.wrapup_steps import find_option_changes
from ..python.tool_followups import find_tool_followups
from ..python.tool_selectors import find_tool_selections
from ._tools_followed import (FRONT as _FRONT, choice_rebound, choice_write, phase_tools, node_tools, state_tools, switched_helper, tool_followup,
                              tool_selection)
from ._tool_variants import agent_followup, template_gate, tool_variant
from .base import Rule

if TYPE_CHECKING:  # pragma: no cover
    from ..python.module import Module


#: Why the rule is info (Policy 7: names are part of the evidence); `_FRONT`: why a change of
#: tools costs the whole prefix.
_BY_NAME = "only the names say that this is a tool set sent with requests"


def ast_target(node) -> str:
    """`self.instruction` for the assignment `self.instruction = ...`."""
    return ast.unparse(node.targets[0])


class ToolsChangedMidConversationRule(Rule):
    """## What it does
    Finds a tool set that changes between the requests of one conversation: grown or replaced
    while the conversation runs, chosen per turn or per pass of a loop, or sent with one request
    and left out of the next.

    Tools loaded on demand (tool search, an MCP server loaded by a tool call), a tool list bound
    differently on the last step of a loop (`tools=None if step == budget - 1 else TOOLS`), a
    structured-answer request that drops the tools over the same history, and a server's tools
    reloaded in another order are the common shapes. A warning when the code itself says the tools
    differ between two requests of one conversation (the condition changes on each pass of the loop
    that sends it); info when names are the evidence, or when the condition reads the turn's
    message. Every shape it reads is listed under "Shapes it recognises" below.

    ## Why is this bad?
    Tool definitions come first in the cached prefix, before the system prompt and the
    conversation history (OpenAI, Anthropic). When the tool set changes between two requests of
    one conversation, the next request shares no prefix with the cached one: the tools, the
    system prompt and every earlier turn are processed uncached again. Loading tools on demand is
    often deliberate (it keeps the tool list short), and the names of the set and of the calls are
    the evidence that it is a tool set sent with requests and that the change falls between them
    (docs/policies.md, Policy 7), so the finding is info.

    ## Example
    ```python
    def search_tools(self, keywords: str) -> str:
        for tool in self.catalog.search(keywords):
            self._discovered_tools[tool.name] = tool
        return f"Loaded {len(self._discovered_tools)} tools"
    ```
    Use instead: send every tool the conversation may need from its first request (with a
    stable order), or return what the search found as the tool result and let the model call a
    generic tool that dispatches to it, so the tool definitions stay the same.

    ## Fix safety
    Display-only.

    ## Shapes it recognises
    Finds a tool set held beyond one call (an attribute such as `self._discovered_tools`, a
    module-level list) that is grown or replaced while a conversation runs: by a function that
    returns text (a tool the model calls: tool search, loading an MCP server), between two
    requests of one function (a planning phase, then the execution phase with more tools; a tool
    set updated on every step of a loop), or by a method that a loop of the class runs with the
    request on every pass, when a call of the class passes the attribute as the request's tools or
    response schema (`output_format=self.AgentOutput`: known by its use, whatever its name; an
    action model filtered by the current page, a last step that keeps only the `done` action), or
    refreshed by a function that removes entries and inserts tools again (`del tool_map[old]`,
    then `tool_map[name] = tool`: a server's tools reloaded on a list-changed notification go to
    the end, so the order changes even when the tools do not), or a tool that a class adds to
    another object's tool set in one method and removes in another (a tool registered for one
    invocation only: `registry.register_dynamic_tool(tool)`, then `del registry.dynamic_tools[name]`),
    or the object a class lists its tools from (`self.agent.list_tools()`) replaced by a method
    that runs after a tool call (`post_tool_call` -> `self.agent = agent`: a swarm's handoff, often
    with a new system prompt).
    A request whose tools are made of an entry of the conversation's state (`bind_tools([search,
    *[registry[i] for i in state["selected_tool_ids"]]])` beside `invoke(state["messages"])`), an
    entry that a function running after a model's request (it writes a tool result or reads the
    tool calls) writes together with the conversation (`return {"messages": tool_messages,
    "selected_tool_ids": ids}`, `run.active_tools.append(t)` beside `run.messages.append(...)`),
    is a warning: the tool list grows or changes between two requests of one conversation.
    A helper whose request's tools are chosen by one of its parameters (`tools = TOOLS if use_tools
    else None`), called by one function twice over one conversation with different values of it
    (`respond(working)`, then `respond([*working, note], use_tools=False)`), is a warning; so is
    a helper that sends its request with tools only under an `if` on such a parameter (`if
    selected_tool is not None:` a request with `functions=[selected_tool.schema()]`, else the same
    call without them), called over one conversation first with the items of a list (`for tool
    in self._first_tools: self._step(history, selected_tool=tool)`), then with the default.
    Nodes of one graph state (a parameter annotated with the state class, or a class related to it
    by inheritance) that send its conversation (`self.bound.invoke(state.messages)`) through
    runnables bound to different tools (`bind_tools(T)` in the node or its class's `__init__`: an
    extraction node and a retry node with its own forced tool) are info, at the later node's tools.
    A `tool_choice` that a loop's requests of one conversation pass (`tool_choice=tool_choice`),
    bound before the loop and rebound in it to another constant (a forced tool on the first
    request, then `tool_choice = "auto"`), or chosen per pass between two constants
    (`tool_choice="required" if step == 0 else "auto"`), is info: Anthropic drops the cached
    messages at the switch, once per conversation.
    A loop that re-sends the conversation it grows (`messages.append(reply)`) through runnables
    bound to different tool lists (`chain = self.final_chain` on the last step, each made with
    `tools=[...]`, `bind_tools([...])` or `with_structured_output(...)`) is a warning: the code
    itself says the tools differ between two requests of one conversation.
    A request that re-sends the message list a function grows without the tools an earlier
    request of the same callee sent it with (`self._chat(messages, tools=tools)`, then after
    `messages.append(reflection)`, `self._chat(messages, tools=None)`) is info, where the tools
    are left out; so is a method of a class that hands the call another method passes the tools to
    the same conversation parameter with `tools=None` (`_request_no_tools(spec, messages)` beside
    `_request_model(spec, messages)`, both through `self._build_request_kwargs(spec, messages,
    tools=...)`: a wrap-up request), when a method of the class calls it; so is a tool list emptied
    once a count reaches its limit and filled otherwise
    (`elif self._tool_call_count >= self.tool_call_limit: tool_definitions = []`), a tool list that
    a loop's requests of one conversation pass (`run(state.messages, tools=tools)`) rebound in the
    loop to another list (`tools = [final_answer]` when an answer does not parse), options that
    leave the tools out merged into the options a loop sends its requests with
    (`kwargs.update(self.no_tools_kwargs)` once a limit of rounds is reached, `kwargs["tools"] =
    None` after an error; not `tool_choice="none"`, which keeps the definitions), and a tool set
    grown by a function that then writes it to an assistant the provider keeps
    (`agent.tools.append(FileSearch)`, then `client.beta.assistants.update(agent.id, tools=...)`),
    and a conversation's request whose tool list gets a tool, or loses its tools, only when an
    optional parameter is given (`if data_model is not None: tool_schemas.append(...)` or
    `del kwargs["tools"]`: a structured answer asked for within a chat), and a method of a class
    that re-sends the conversation the instance keeps (`self.history`, written back by a method of
    the class) with no tools or with a tool list written in place (one forced answer tool), while
    another method sends it with the tools it fills (`generate` with the agent's tools, then
    `generate_structured` with a response format only); where the method that keeps the
    conversation stores the system message in it, putting it again before the kept conversation is
    named too.
    More generally, the tools a request sends (`tools=` / `functions=`, `bind_tools(X)`, a payload's
    `["tools"]`) are traced back through the sending function (a conditional value, assignments in
    the branches of an `if`, a comprehension's filter, entries removed or added under an `if`)
    and each condition is judged: one that reads a name that changes on each pass of the loop
    that sends one conversation (`tools=None if step == budget - 1 else TOOLS`) is a warning,
    reported where the tools are chosen; one that reads a value awaited anew on every request (a
    probe of the client's state) or a parameter named for the turn's message (`user_message`,
    `query`, `question`) is info; one fixed for the conversation (a configuration flag, the model's
    capability, a setting read once) or a loop that starts a new conversation per item is none.
    A condition that reads an object the loop changes in place (`store.add_response(out)` on a
    pass, then `if len(store.responses) > 0: tools.append(store.tool)`) is info: it may hold on a
    later pass and not on an earlier one. A loop's request rebuilt on each pass from the
    conversation the loop keeps (`ctx = self._build_context(messages=self._messages + local)`,
    then `self._send(messages=ctx, tools=tools)`) sends that one conversation. A tools list a
    loop that counts steps (`while`, `for turn in range(...)`) hands to a helper as a positional
    argument (`agent.astep(task, plan, tool)`), chosen by a condition on the step (`tool = [t for
    t in tools if t["name"] == "submit_task"]` on the last turn), is info: only the names say
    that the helper sends them with one conversation.
    The final request of a loop sent with the same options after a statement removes their tools
    (`opts.tools = None`, or a method of the class that does) is a warning; after a method known
    only by its name (`self._reset_function_choice_settings(settings)`), info. A method that
    uses a turn's own tools instead of the configured ones (`groups_for_turn or
    self.config.toolgroups`) is info there, and so is a method of the class that calls it without
    them before running the same turn as one that passes them (a resumed turn). A function that
    sends a request with the tools of an object its caller handed it (`tools=[to_openai(t) for t in
    runtime.functions.values()]`) and then changes that set on the object (`runtime.update_functions(
    chosen)`, `runtime.functions = chosen`: a tool filter narrowing the tools by the model's answer)
    is info, where the set changes: the caller's later requests carry other tools.
    Tools chosen for each request by a method of the class that selects them from its argument
    (the list it returns filtered by a parameter: a comprehension's `if`, an `append` under an
    `if`; or a retrieval given one: `retriever.retrieve(query)`, also through a callable the
    instance keeps), sent by a request of one conversation there or through a method's `tools`
    parameter it is passed to (`node_tools = self._tools_for_node(node)`, then
    `self._reply(messages, node_tools)`), are info where the method is called, when its argument
    reads state of the instance that a method writes while it runs (the node a graph has moved
    to), or a name that says the turn's request (`task.input`, `query`); a list built once, or a
    filter over settings fixed for the conversation, is not reported.
    A chat template written in the code (`env.from_string(T)`, `jinja2.Template(T)`) that renders
    the conversation (`{% for message in messages %}`) and writes the tool definitions only under a
    flag (`{% if tool_calls %}` in the system message), rendered by one function with the flag on
    (the step that may call a tool) and off (`tool_calls=None`, `tools=[]`: the answer, a request
    with no tools) is info, where the section's `{% if %}` is: the two prompts differ from the tool
    block on, so an engine that reuses the previous prompt's prefix (llama.cpp, vLLM) reads the
    conversation after it again at each switch. A block after the conversation is not reported.
    A function that runs an agent built with `tools=` (`self._agent = create_react_agent(model,
    tools=tools)` in its class, or a name bound so in the module or the function) and sends the
    messages of that run (`[convert(m) for m in
    result["messages"]]`) in a request of its own with no tools (a structured-output follow-up,
    `params["messages"] = [...]` then `self.call_model(**params)`) is info, at that request: it
    shares no prefix with the run's requests and reads the whole conversation uncached. One that
    sends the agent's tools, or only a message picked out of the run (`result["messages"][-1]`), is
    not reported, nor is one handed options of keys not read (`self.config.model_args`).
    A wrap-up request that re-sends the conversation its function grows through the same callee
    as the loop's requests but with other cache-key options is info (one request's prefix each
    time the conversation ends that way): the tools left out (no `tools=` where the loop passed
    them), a switch named for tools given False (`tools_enabled=False`), a response format added
    or removed (the schema is part of the prefix), another constant `tool_choice` (Anthropic
    invalidates the cached messages), and a function that runs its next step by calling itself
    with its request's `tool_choice` bound to another constant (`prompt, tool_choice = final,
    'none'`, then `self._call(prompt, ..., tool_choice)`; or written after the request into the
    options dict it spreads: `parameters["function_call"] = "none"`, then
    `self.query(history, **parameters)`).
    The follow-up request after a tool call (sent under an `if` that reads the answer's
    `tool_calls`) that re-sends the conversation through the same callee without the tools the
    request before it sent (no `tools=`, a payload copied from the first with `del
    final["tools"]`, or built without them; a mapping of keys not read that the first request
    unpacks beside its `tools=` and the follow-up unpacks unchanged, `**TALK_CONFIG`, holds no
    tools, since a keyword given twice raises) is info: once per turn that calls a tool, the
    follow-up reads the whole conversation uncached.
    A constant written to `tool_choice` in the options mapping a loop's requests are sent with,
    after a request (`_reset_required_tool_choice(options)` in the loop, a helper that writes
    `options["tool_choice"] = None`; `options["tool_choice"] = "none"` after the loop, before the
    wrap-up request with the same options) is info: on Anthropic the next request reads none of the
    conversation's messages from the cache.
    A method that passes a conversation to another method of its class that sends it with tools
    (`messages = self._inspect(messages)`), then sends it without them (`self._generate(messages)`
    whose request passes `tools=None`, or a request of its own with no tools keyword) is info, at
    the request without tools.
    """

    code = "PRM204"
    brief = ("tools that change between the requests of one conversation (a kept tool set grown or replaced, "
             "tools chosen per turn or per pass)")
    severity = Severity.INFO
    fix_title = "Keep the tool definitions the same for the whole conversation"

    def check_module(self, module: "Module") -> Iterable[Diagnostic]:
        rows = set()
        for diagnostic in self._shapes(module):
            rows.add(diagnostic.span.start.row)
            yield diagnostic
        followed = [*(state_tools(module, f, module.span(f.node)) for f in find_state_tools(module)),
                    *(switched_helper(module, sw, module.span(sw.node)) for sw in find_switched_helpers(module)),
                    *(node_tools(module, n) for n in find_node_tools(module)),
                    *(choice_write(module, w) for w in find_choice_writes(module)),
                    *(phase_tools(module, f) for f in find_phase_tools(module))]
        for message, span, kw in followed:  # (message, span, keywords): one diagnostic per row, the first
            if span.start.row not in rows:
                rows.add(span.start.row)
                yield self.diagnostic(message, span, **kw)
        for message, span, kw in [*(template_gate(module, g) for g in find_template_tool_gates(module)),
                                  *(agent_followup(module, f) for f in find_agent_followups(module))]:
            yield self.diagnostic(message, span, **kw)
        for followup in find_tool_followups(module):
            message, span, kw = tool_followup(module, followup)
            yield self.diagnostic(message, span, **kw)
        for variant in [*find_tool_variants(module), *find_tool_resets(module), *find_fallbacks(module)]:
            span = module.span(variant.node)
            if span.start.row not in rows:  # one diagnostic per root cause (the shapes above first)
                rows.add(span.start.row)
                message, span, kw = tool_variant(module, variant, span)
                yield self.diagnostic(message, span, **kw)
        for message, span, kw in (tool_selection(module, s) for s in find_tool_selections(module)):
            if span.start.row not in rows:  # (after the variants: a condition in the sender is the nearer cause)
                rows.add(span.start.row)
                yield self.diagnostic(message, span, **kw)

    def _shapes(self, module: "Module") -> Iterable[Diagnostic]:
        memo: dict = {}  # the functions' own nodes, read once for both searches
        for change in [*find_tool_changes(module, memo), *find_class_tool_changes(module, memo),
                       *find_tool_handoffs(module, memo), *find_narrowed_tools(module, memo)]:
            verb = "calls" if change.target.endswith("(...)") else "changes"
            if change.shape == "each-step":
                message = (f"`{change.target}`, sent as a request's tools or response schema (line "
                           f"{change.after.lineno}), is changed by `{change.function}`, which the loop at line "
                           f"{change.before.lineno} runs on every pass with the request: when the value differs "
                           f"from one pass to the next, {_FRONT} change mid-conversation and the whole cached prefix is lost")
                related = [Related(module.span(change.after), "sent here"), Related(module.span(change.before), "the loop")]
            elif change.shape == "reinserted":
                message = (f"`{change.function}` removes entries of `{change.target}` (line {change.before.lineno}) "
                           f"and inserts tools again: the inserted tools go to the end, so {_FRONT} change order (and content, when "
                           "the tools changed) for every later request of a running conversation, and the whole "
                           f"cached prefix is lost; {_BY_NAME}")
                related = [Related(module.span(change.before), "entries removed here")]
            elif change.shape == "temporary":
                message = (f"`{change.function}` removes a tool from `{change.target}`, which a method of the same "
                           "class adds it to: the requests sent while it is there have other tool definitions than "
                           "those before and after, and the tools come before the system prompt and the history, "
                           f"so a conversation that switches loses the whole cached prefix at each switch; {_BY_NAME}")
                related = []
            elif change.shape == "handoff":
                prompt = (f" and the system prompt (`{ast_target(change.after)}`, line {change.after.lineno})"
                          if change.after is not None else "")
                message = (f"`{change.function}` runs after a tool call and replaces `{change.target}` (itself or "
                           f"through a method it calls), an object whose tools the class lists (line "
                           f"{change.before.lineno}): when these are the tools of its requests, the next request of the "
                           f"same conversation has that object's tool definitions{prompt}, which come before the "
                           "history, so the whole cached prefix is lost at each handoff; only the names say that the "
                           "method runs between two requests of one conversation")
                related = [Related(module.span(change.before), "tools listed here")]
                if change.after is not None:
                    related.append(Related(module.span(change.after), "system prompt set here"))
            elif change.shape == "narrowed":
                message = (f"`{change.function}` sends a request with the tools of `{change.target}` (line "
                           f"{change.before.lineno}), then changes that set here on an object its caller handed it: "
                           f"the caller's later requests carry other tools than this one, and {_FRONT} then differ "
                           "between requests of one conversation, so the whole cached prefix is lost (the caller's "
                           "later requests are not followed here); send every request the same tools and restrict "
                           "which may be called with `tool_choice` (or `allowed_tools`)")
                related = [Related(module.span(change.before), "the request that sent these tools")]
            elif change.shape == "tool-result":
                message = (f"`{change.function}` returns text (a tool the model calls) and {verb} "
                           f"`{change.target}`: the next request of the conversation is sent with other tool "
                           "definitions, which come before the system prompt and the history, so the whole "
                           f"cached prefix is lost; {_BY_NAME}")
                related = []
            else:
                where = (f"a request at line {change.before.lineno} before it and another at line "
                         f"{change.after.lineno} after it" if change.after is not None else
                         f"in a loop that sends a request at line {change.before.lineno}")
                what = f"`{change.target}` is called" if verb == "calls" else f"`{change.target}` changes"
                message = (f"{what} between two requests of `{change.function}` ({where}): "
                           f"if these are the tools of the requests, {_FRONT} differ from one request to the next and the "
                           "whole cached prefix is lost; only the names say that these are the tools and the "
                           "requests")
                related = [Related(module.span(change.before), "a request")]
                if change.after is not None:
                    related.append(Related(module.span(change.after), "the next request"))
            yield self.diagnostic(message, module.span(change.node), related=related,
                                  name_only=change.shape != "narrowed")
        for switch in find_tool_switches(module):
            lists = " and ".join("[" + ", ".join(items) + "]" for items in switch.lists[:3])
            message = (f"The loop of `{switch.function}` sends the conversation it grows through runnables bound to "
                       f"different tools ({lists}): when it switches, {_FRONT} differ from the previous request's, "
                       "so that request reads none of the conversation from the cache; bind every tool to one "
                       "runnable and choose the tool with `tool_choice`")
            related = [Related(module.span(o), "another tool set chosen here") for o in switch.others]
            yield self.diagnostic(message, module.span(switch.node), severity=Severity.WARNING, related=related)
        for comp, function in find_forced_filters(module):
            message = (f"`{function}` sends only the tool the call forces, filtered out of the tool list here: "
                       f"the requests that force a tool go out with other tool definitions than the others of the "
                       f"conversation, and {_FRONT} differ, so those requests read none of the cached prefix; "
                       "send the whole list and force the tool with `tool_choice` (or `allowed_tools`)")
            yield self.diagnostic(message, module.span(comp))
        for value, earlier, function in find_dropped_tools(module):
            message = (f"`{function}` re-sends the conversation here without the tools it sent it with at line "
                       f"{earlier.lineno}: {_FRONT} differ from the earlier requests', so this request reads none "
                       "of the conversation from the cache (and writes it again); send the same tools and "
                       "choose with `tool_choice=\"none\"` that none is called")
            yield self.diagnostic(message, module.span(value), related=[Related(module.span(earlier), "sent with tools here")])
        for d in find_dropped_in_methods(module):
            message = (f"`{d.function}` re-sends the conversation it is handed (`{d.param}`) here without tools, "
                       f"through the call that `{d.other}` passes it with tools (line {d.earlier.lineno}): "
                       f"{_FRONT} differ from the earlier requests' of that conversation, so this request reads "
                       "none of it from the cache (and writes it again); send the same tools and choose with "
                       "`tool_choice=\"none\"` that none is called")
            yield self.diagnostic(message, module.span(d.node), related=[Related(module.span(d.earlier), "sent with tools here")])
        for node, target, update, function in find_pushed_tool_changes(module):
            message = (f"`{function}` changes `{target}` and writes the tools to the assistant the provider keeps "
                       f"(line {update.lineno}): the runs of threads it already answered start with other tool "
                       f"definitions from then on, and {_FRONT} no longer match what was cached, so the whole "
                       f"prefix of those conversations is processed again; {_BY_NAME}")
            yield self.diagnostic(message, module.span(node), related=[Related(module.span(update), "written here")])
        for stmt in find_tools_emptied_at_limit(module):
            name = stmt.targets[0].id
            message = (f"`{name}` is emptied here once a count reaches its limit, and filled with the tools "
                       f"otherwise: the request built after the limit goes out without them, and {_FRONT} "
                       "differ from the earlier requests', so it reads none of the conversation from the cache "
                       "(once per conversation that reaches the limit); keep the tools and send "
                       "`tool_choice=\"none\"`")
            yield self.diagnostic(message, module.span(stmt))
        for stmt, request, function in find_tools_rebound_in_loop(module):
            name = stmt.targets[0].id
            message = (f"`{name}` is given another tool list here, in the loop of `{function}` whose requests send "
                       f"one conversation with `{name}` (line {request.lineno}): the next request goes out with other "
                       f"tool definitions than the earlier ones, and {_FRONT} differ, so it reads none of the "
                       "conversation from the cache; send the same tools on every request and choose the tool "
                       "with `tool_choice`")
            yield self.diagnostic(message, module.span(stmt), related=[Related(module.span(request), "sent here")])
        for stmt, request, function in find_tool_choice_rebound_in_loop(module):
            message, span, kw = choice_rebound(module, stmt, request, function)
            yield self.diagnostic(message, span, **kw)
        for merge, request, options, function in find_tools_turned_off(module):
            message = (f"Options that leave the tools out are merged into `{options}` here, in the loop of "
                       f"`{function}` that sends its requests with `**{options}` (line {request.lineno}): the "
                       f"requests after it go out without the tool definitions the earlier ones had, and {_FRONT} "
                       "differ, so they read none of the conversation from the cache; keep the tools and send "
                       "`tool_choice=\"none\"`")
            yield self.diagnostic(message, module.span(merge), related=[Related(module.span(request), "sent here")])
        for change in find_option_tools(module):
            what = (f"removes the tools from the request `{change.target}`" if change.removed
                    else f"adds a tool to `{change.target}`")
            message = (f"`{change.function}` {what} only when `{change.option}` is given: a request that passes it "
                       f"(a structured answer asked for within a chat) goes out with other tool definitions than "
                       f"the other requests of the conversation it sends, and {_FRONT} differ, so it reads none of "
                       "the conversation from the cache, and the next request without it misses again; send the "
                       "same tools on every request of a conversation (a response format instead of a tool, "
                       "or the tool always present and chosen with `tool_choice`)")
            related = [Related(module.span(change.test), f"`{change.option}` tested here"),
                       Related(module.span(change.request), "the conversation's request")]
            yield self.diagnostic(message, module.span(change.node), related=related)
        for change in find_option_changes(module):
            yield self._option_change(module, change)
        for req in find_stored_requests(module):
            what = ("a tool list of its own written here" + (" and a forced `tool_choice`" if req.forced else "")
                    if req.written else "no tools")
            message = (f"`{req.function}` re-sends the conversation kept in `self.{req.stored}` with {what}, while "
                       f"`{req.other_function}` sends it with the tools it fills (line {req.other.lineno}): "
                       f"{_FRONT} differ from those of the conversation's requests, so this request reads none of "
                       "the conversation from the cache and writes it again")
            related = [Related(module.span(req.read), "the kept conversation read here"),
                       Related(module.span(req.other), f"the tools `{req.other_function}` sends it with")]
            if req.system_first is not None:
                message += ("; it also puts the system message again before that conversation, which already "
                            "holds it (the method that keeps the conversation writes it into the list it stores)")
                related.insert(0, Related(module.span(req.system_first), "the system message put again here"))
            if req.forced is not None and req.written:
                related.append(Related(module.span(req.forced), "the tool forced here"))
            message += ("; send the same tools on every request of the conversation (a response format instead "
                        "of a tool, or the tool always present and chosen with `tool_choice`)")
            yield self.diagnostic(message, module.span(req.node), related=related)

    def _option_change(self, module: "Module", c) -> Diagnostic:
        """The diagnostic of one `wrapup_steps.OptionChange`."""
        earlier = c.earlier.lineno
        if c.shape == "recursion":
            where = (f"`{c.function}` binds `{c.text}` here for the next step of the conversation it grows (the "
                     f"call at line {c.request.lineno}), an option its request (line {earlier}) sent the earlier "
                     "steps with another value of")
        else:
            where = {"omitted": f"`{c.function}` re-sends the conversation here without the tools that the request "
                                f"at line {earlier} sent it with",
                     "off": f"`{c.function}` re-sends the conversation here with `{c.text}`, which the request at "
                            f"line {earlier} did not pass (only the name says that it leaves the tools out)",
                     "added": f"`{c.function}` re-sends the conversation here with `{c.text}`, a response format the "
                              f"request at line {earlier} did not pass",
                     "removed": f"`{c.function}` re-sends the conversation here without the `{c.text}` that the "
                                f"request at line {earlier} passed",
                     "changed": f"`{c.function}` re-sends the conversation here with `{c.text}`, another tool choice "
                                f"than the request at line {earlier}"}[c.how]
        if c.option == "tools":
            why = (f"{_FRONT} differ from the earlier requests', so this request reads none of the conversation "
                   "from the cache and writes it again")
            fix = ("keep the tools and the tool choice of the loop and ask for the final answer in the last "
                   "message instead")
        elif c.option == "response_format":
            why = ("the response schema is part of the cached prefix (OpenAI puts it before the system prompt, "
                   "Anthropic keys its cache on it), so this request reads none of the conversation from the cache")
            fix = "send the same response format on every request of the conversation, or none on any"
        else:
            why = ("on Anthropic a change of `tool_choice` invalidates the cached messages, so this request reads "
                   "none of the conversation's history from the cache (the tools and the system prompt stay "
                   "cached)")
            fix = "keep the tool choice of the loop and ask for the final answer in the last message instead"
        message = (f"{where}: {why}; this costs one request's prefix each time the conversation takes this step; {fix}")
        related = [Related(module.span(c.earlier), "sent with the loop's options here")]
        if c.request is not c.node:
            related.append(Related(module.span(c.request), "the changed request"))
        return self.diagnostic(message, module.span(c.node), related=related, name_only=c.how == "off")

