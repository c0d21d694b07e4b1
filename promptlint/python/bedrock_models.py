"""The Bedrock chat models of LangChain and LlamaIndex running Claude in a package that never asks
for a cache point: a fact for PRM302 (the rule judges it).

Claude on Bedrock caches only up to a cache point the request carries (a `cachePoint` block of the
Converse API, a `cache_control` of the Anthropic format that `ChatBedrock` sends:
https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html). LangChain's
`ChatBedrockConverse(...)` / `ChatBedrock(...)` (langchain_aws) send one only where a message's
content holds it, and LlamaIndex's `BedrockConverse(...)` only where a message holds a `CachePoint`
or the model is built with `system_prompt_caching=True` / `tool_caching=True`. An agent sends the
tool definitions, the system prompt and the growing conversation again on every step: with no
cache point, each step pays the full input price for all of it.

`uncached_models(module, project)`: the constructor calls of those classes in `module` when
- the model runs Claude: its `model` / `model_id` keyword is a string naming Claude (`"us.anthropic.
  claude-sonnet-4-..."`), or it is not a string written there and the module writes a Claude model
  name in its code (`DEFAULTS = {"bedrock": "us.anthropic.claude-sonnet-4-..."}`, not a
  docstring's example): Bedrock also runs models that cache nothing at all (Llama, Mistral), where
  a missing cache point costs nothing;
- the call sets no caching option (no keyword named for caching, `tool_caching=False` aside:
  `system_prompt_caching=True`) and passes no `**mapping` (it may hold one);
- no breakpoint the package names may reach the module's requests (`own_marks.marks_reach`: a file
  naming `cachePoint` / `cache_control` outside a function that sends its own request) and no file
  calls LlamaIndex's `CachePoint(...)`;
- the package runs tool-calling agents, or the module's prompt template replays the conversation
  (`langchain_models.runs_agents`, `replays`): a model of one-shot prompts shows no loss.
Its size is not known: info (docs/policies.md, Policy 5).
"""
from __future__ import annotations

import ast

from . import langchain_models
from .own_marks import marks_reach
from .walk import subtree

#: The Bedrock chat model classes of LangChain (langchain_aws, langchain_community) and LlamaIndex.
_CLASSES = ("langchain_aws.ChatBedrockConverse", "langchain_aws.chat_models.ChatBedrockConverse",
            "langchain_aws.chat_models.bedrock_converse.ChatBedrockConverse",
            "langchain_aws.ChatBedrock", "langchain_aws.chat_models.ChatBedrock",
            "langchain_aws.chat_models.bedrock.ChatBedrock",
            "langchain_community.chat_models.BedrockChat", "langchain_community.chat_models.bedrock.BedrockChat",
            "llama_index.llms.bedrock_converse.BedrockConverse", "llama_index.llms.bedrock_converse.base.BedrockConverse")
#: The keywords that name the model.
_MODEL_KEYS = ("model", "model_id")
#: Words of a model id that say Claude.
_CLAUDE_WORDS = ("claude", "anthropic.")
#: The class names, for a cheap test of a module's text.
NAMES = ("ChatBedrockConverse(", "ChatBedrock(", "BedrockChat(", "BedrockConverse(")


def might_build(source: str) -> bool:
    """Cheap test of a module's text: it calls one of the classes by its name."""
    return any(n in source for n in NAMES)


def uncached_models(module, project) -> list[ast.Call]:
    """The constructor calls of `module` that build a Bedrock chat model running Claude with no
    cache point (module docstring); [] otherwise."""
    calls = [n for n in subtree(module.tree) if isinstance(n, ast.Call)
             and (module.qualified_name(n.func) or "") in _CLASSES and not _caches(n)]
    calls = [c for c in calls if _on_claude(module, project, c)]
    if not calls or marks_reach(module, project) or project.calling_files(module.path, "CachePoint"):
        return []
    if not (langchain_models.replays(module) or langchain_models.runs_agents(module, project)):
        return []
    return calls


def _caches(call: ast.Call) -> bool:
    """True when the call may ask for caching: a keyword named for it that is not a constant
    False / None (`system_prompt_caching=True`, `tool_caching=self.cache`), or a `**mapping`."""
    for k in call.keywords:
        if k.arg is None:
            return True
        if "cach" in k.arg.lower() and not (isinstance(k.value, ast.Constant) and not k.value.value):
            return True
    return False


def _on_claude(module, project, call: ast.Call) -> bool:
    """True when the model the call is given runs Claude (module docstring)."""
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    model = next((keywords[k] for k in _MODEL_KEYS if k in keywords), None)
    if model is None:
        return False
    if isinstance(model, ast.Constant):
        return isinstance(model.value, str) and any(w in model.value.lower() for w in _CLAUDE_WORDS)
    return langchain_models.claude_in_code(module, project, module.path)
