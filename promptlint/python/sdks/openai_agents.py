"""OpenAI Agents SDK (`openai-agents`, imported as `agents`): `Agent(name=..., instructions=...,
tools=[...], model=...)`, drawn as the request the SDK sends when `Runner.run(agent, input)` runs
it: the agent's tools, its instructions as the system prompt, then the input, the newest user
message.

Facts, from the SDK's documentation (https://openai.github.io/openai-agents-python/agents/):
"instructions: also known as a developer message or system prompt"; "tools: Tools that the agent
can use to achieve its tasks"; `model`: "which LLM to use" (OpenAI's by default). `instructions`
may be a function that returns the text (dynamic instructions, called on every run): its returns
are read when it is a function of the module, else the text is unknown."""
from __future__ import annotations

from ..flow.values import Alt, Func
from .base import Sdk, Shape, agent_request, agent_value, framework_call

_ROOTS = ("agents",)


def _instructions(b, node, frame) -> list:
    from ...model import Part
    if node is None:
        return []
    value = agent_value(b, node, frame)
    if isinstance(value, Func):  # dynamic instructions: `def instructions(ctx, agent) -> str`
        f = b.ev.function_frame(value.module, value.node)
        b.ev.ensure(f)
        rets = [b.ev.force(f, r) for r in f.returns]
        value = Alt(rets) if len(rets) > 1 else (rets[0] if rets else None)
        if value is None:
            return []
        return [Part("system", b.ev.text_of(value, f), span=b.span_of(node))]
    return [b.part("system", value, frame, b.span_of(node))]


def agent(b, call) -> None:
    if not framework_call(b, call, _ROOTS) or not call.has("instructions", "tools"):
        return
    frame = call.frame
    model = b.static_model(call.kwargs.get("model"), frame)
    provider, model = b.provider_for_model(model, "openai") if model or "model" not in call.kwargs else (None, None)
    # handoffs and MCP servers are sent as tools too, and an output type as a schema beside them
    # (https://openai.github.io/openai-agents-python/handoffs/: "Handoffs are represented as tools
    # to the LLM"): what they add is not read, so the prefix's size is not claimed
    tools = [p for key in ("tools", "handoffs", "mcp_servers", "output_type") if key in call.kwargs
             for p in b.tools(call.kwargs[key], frame, "flat")]
    agent_request(b, call, "agents.Agent", provider, model, tools,
                  _instructions(b, call.kwargs.get("instructions"), frame) + _handed_history(b, call),
                  "the input the agent is run with")


_RUNS = ("run", "run_sync", "run_streamed")


def _handed_history(b, call) -> list:
    """The conversation the function that builds the agent runs it with: a list given as the
    input of `Runner.run(agent, input)` ("The input can be: a string (treated as a user message),
    a list of input items in the OpenAI Responses API format", https://openai.github.io/
    openai-agents-python/running_agents/), drawn before the newest message; [] for a string or no
    such run."""
    import ast

    from ...model import Kind, Part, Segment, Volatility
    from ..flow.values import Seq
    func = getattr(call.frame, "func", None)
    if func is None:
        return []
    for node in ast.walk(func):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _RUNS
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "Runner"):
            continue
        given = next((k.value for k in node.keywords if k.arg == "input"), node.args[1] if len(node.args) > 1 else None)
        if given is not None and isinstance(b.value(given, call.frame), Seq):
            return [Part("history", [Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, expr=b.m.code(given),
                                             span=b.m.span(given))])]
    return []


SDK = Sdk(
    name="openai_agents",
    imports=_ROOTS,
    hints=("from agents import",),
    shapes=(Shape("agents.Agent", ("Agent",), lambda c: c.qual in ("agents.Agent", "agents.agent.Agent"), agent),),
)
