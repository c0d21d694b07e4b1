"""LlamaIndex's function-calling agents: `FunctionAgent(tools=[...], llm=..., system_prompt=...)`
(`llama_index.core.agent.workflow`) and the older `OpenAIAgent.from_tools(tools, llm=...,
system_prompt=...)` / `FunctionCallingAgent.from_tools(...)`, drawn as the request the agent sends
when it is run: its tools, its system prompt, then the message it is run with, the newest user
message. (A ReAct agent writes its tools and format instructions into a header of LlamaIndex's own
whose place beside the system prompt the documentation does not give: not drawn.)

Facts, from LlamaIndex's documentation
(https://developers.llamaindex.ai/python/framework/module_guides/deploying/agents/): an agent
"uses an LLM, memory, and tools"; when it runs, "Agent gets the latest message + chat history",
"The tool schemas and chat history get sent over the API"; `system_prompt` is the agent's system
prompt ("system_prompt=\"You are a helpful assistant that can multiply two numbers.\""). The chat
history the function that builds the agent hands to its run (`agent.run(msg, chat_history=history)`,
`agent.chat(msg, chat_history=...)`) or to the agent (`memory=`) is drawn as the conversation
between the system prompt and the message; an agent run with no history in its function holds
only its own run's messages after them."""
from __future__ import annotations

import ast

from .base import Sdk, Shape, agent_request, agent_value, client_model, framework_call

_ROOTS = ("llama_index",)
_AGENTS = ("FunctionAgent",)
_FROM_TOOLS = ("OpenAIAgent", "FunctionCallingAgent")
#: LlamaIndex's LLM classes of OpenAI's API (llama_index.llms.openai): automatic caching.
_OPENAI_LLMS = {"OpenAI": "openai", "AzureOpenAI": "azure-openai", "OpenAIResponses": "openai"}


def agent(b, call) -> None:
    if not framework_call(b, call, _ROOTS) or not call.has("system_prompt"):
        return
    frame = call.frame
    node = call.kwargs["system_prompt"]
    system = [b.part("system", agent_value(b, node, frame), frame, b.span_of(node))]
    tools = call.kwargs.get("tools") or (call.args[0] if call.method is not None and call.args else None)
    provider, model = client_model(b, call.kwargs.get("llm"), frame, _OPENAI_LLMS, "llama_index")
    name = call.qual.rsplit(".", 2)[-2] if call.method is not None else call.qual.rsplit(".", 1)[-1]
    history = _handed_history(b, call)
    agent_request(b, call, f"llama_index.{name}", provider, model, b.tools(tools, frame), system + history,
                  "the message the agent is run with")


_RUNS = ("run", "chat", "achat", "stream_chat", "astream_chat")


def _handed_history(b, call) -> list:
    """The conversation part of an agent its building function hands a history: the agent's
    `memory=`, or `chat_history=` of a run call in the same function (`agent.run(msg,
    chat_history=history)`); [] for none."""
    from ...model import Kind, Part, Segment, Volatility
    func = getattr(call.frame, "func", None)
    found = call.kwargs.get("memory")
    if found is None and func is not None:
        found = next((k.value for n in ast.walk(func) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                      and n.func.attr in _RUNS for k in n.keywords if k.arg == "chat_history"), None)
    if found is None:
        return []
    return [Part("history", [Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, expr=b.m.code(found),
                                     span=b.m.span(found))])]


def _is_agent(call) -> bool:
    """`FunctionAgent(...)`, `OpenAIAgent.from_tools(...)`, `FunctionCallingAgent.from_tools(...)`
    of LlamaIndex."""
    parts = call.qual.rsplit(".", 2)
    if call.method == "from_tools":
        return len(parts) == 3 and parts[1] in _FROM_TOOLS
    return parts[-1] in _AGENTS


SDK = Sdk(
    name="llama_index",
    imports=_ROOTS,
    hints=("system_prompt",),
    shapes=(Shape("llama_index.agent", (*_AGENTS, "from_tools"), _is_agent, agent),),
)
