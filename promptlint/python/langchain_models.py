"""LangChain's Anthropic chat model in a package that never sets a cache breakpoint but runs
tool-calling agents: a fact for PRM302 (the rule judges it).

`ChatAnthropic(...)` sends a request with a cache breakpoint only where a message's content block
or the call carries a `cache_control`; Anthropic caches nothing without one. In a package tree where
no Python file names a breakpoint key (`cache_control`, `cachePoint`: `tree.marker_files`), none
of its requests carries one, and where a file of the tree builds a tool-calling agent or binds
tools to a model (`create_react_agent(model, tools)`, `model.bind_tools(tools)`,
`create_tool_calling_agent`, `AgentExecutor`, `create_agent`), every step of such an agent sends
the tool definitions, the system prompt and the growing conversation again: with this model, each
step pays the full input price for all of it. A model of a package with no agent (one-shot
prompts, maybe short) is not reported: its loss is not shown.
"""
from __future__ import annotations

import ast

from .walk import subtree

#: The LangChain chat models of Anthropic's Messages API (langchain_anthropic, and Claude on
#: Vertex AI through langchain_google_vertexai): their requests carry a breakpoint only where the
#: messages or the call set one.
_MODELS = ("langchain_anthropic.ChatAnthropic", "langchain_anthropic.chat_models.ChatAnthropic",
           "langchain_google_vertexai.model_garden.ChatAnthropicVertex", "langchain_google_vertexai.ChatAnthropicVertex",
           "langchain_community.chat_models.ChatAnthropic")
#: Calls that build a tool-calling agent loop, or bind tools to a chat model for one.
AGENT_CALLS = ("create_react_agent", "bind_tools", "create_tool_calling_agent", "AgentExecutor", "create_agent")


def might_build(source: str) -> bool:
    """Cheap test of a module's text: it names an Anthropic chat model of LangChain."""
    return "ChatAnthropic" in source


def uncached_models(module, project) -> list[ast.Call]:
    """The `ChatAnthropic(...)` constructor calls of `module` (resolved through its imports) when
    no file of its package tree names a breakpoint key and a file of the tree calls one of
    `AGENT_CALLS`; [] otherwise."""
    calls = [n for n in subtree(module.tree) if isinstance(n, ast.Call)
             and (module.qualified_name(n.func) or "") in _MODELS]
    if not calls or project.marker_files(module.path):
        return []
    if not any(project.calling_files(module.path, name) for name in AGENT_CALLS):
        return []
    return calls
