"""pydantic-ai's Claude models in a package that never asks for a cache breakpoint: a fact for
PRM302 (the rule judges it).

pydantic-ai puts a `cache_control` on an Anthropic (or Bedrock) request only where its model
settings ask for one (`anthropic_cache_instructions`, `anthropic_cache_tool_definitions`,
`anthropic_cache_messages`, `bedrock_cache_*`) or a message holds a `CachePoint()`
(https://ai.pydantic.dev/models/anthropic/#prompt-caching); Anthropic caches nothing without
one. An agent run sends the tool definitions, the instructions and the conversation so far on
every step of its tool loop, and every later run of the same conversation (`message_history`)
sends them again: on Claude, each pays the full input price for all of it.

`uncached_models(module, project)`: the places `module` makes a pydantic-ai Claude model:
- `AnthropicModel(...)` or `BedrockConverseModel(...)` of `pydantic_ai.models`;
- a model string written for Anthropic, or for Claude on Bedrock (`"anthropic:claude-sonnet-4-5"`,
  `"bedrock:us.anthropic.claude-..."`), given to `Agent(...)` or `infer_model(...)`;
- a model string formatted from a provider setting (`f"{provider}:{model}"`) in a function that
  builds an `Agent` or calls `infer_model`, in a module that gives or compares that setting as
  `"anthropic"` or `"bedrock"` (`if provider == "anthropic":`): Claude is one of the providers
  the code expects;
when the package builds pydantic-ai agents (a file that imports `pydantic_ai` calls `Agent(...)`)
and no file of the package names a breakpoint key (`cache_control`, `cachePoint`) or one of
pydantic-ai's cache settings (`anthropic_cache`, `bedrock_cache`, `CachePoint`). Its size is not
known: info (docs/policies.md, Policy 5).
"""
from __future__ import annotations

import ast
import re

from .parsing import ParseError
from .tree_search import OverBudget
from .walk import subtree

#: pydantic-ai's model classes of Claude on Anthropic's API and on Bedrock.
_CLASSES = ("pydantic_ai.models.anthropic.AnthropicModel", "pydantic_ai.models.bedrock.BedrockConverseModel")
#: pydantic-ai's calls that take a model or a model string.
_TAKERS = ("pydantic_ai.Agent", "pydantic_ai.agent.Agent", "pydantic_ai.models.infer_model")
#: A model string of pydantic-ai's Anthropic provider, or a Claude model of its Bedrock provider.
_CLAUDE_STRING = re.compile(r"anthropic:\S|bedrock:.*(?:anthropic|claude)")
#: A provider setting given or compared as Anthropic's or Bedrock's (as request_facts._CLAUDE_PROVIDER).
_CLAUDE_PROVIDER = re.compile(r"provider\w*[\"']?\s*(?:==|=|:)\s*[\"'](?:anthropic|bedrock)[\"']")
#: What a file names when it may ask pydantic-ai (or the request) for a breakpoint.
_CACHE_WORDS = ("cache_control", "cachePoint", "anthropic_cache", "bedrock_cache", "CachePoint")
#: Cheap test of a module's text.
HINTS = ("AnthropicModel(", "BedrockConverseModel(", "infer_model(", "Agent(")
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def might_build(source: str) -> bool:
    """Cheap test: the module imports pydantic-ai and names a model class, `infer_model` or `Agent(`."""
    return "pydantic_ai" in source and any(h in source for h in HINTS)


def uncached_models(module, project) -> list[ast.AST]:
    """The nodes where `module` makes a pydantic-ai Claude model (module docstring), when the
    package builds pydantic-ai agents and asks for no breakpoint anywhere; [] otherwise."""
    if any(w in module.source for w in _CACHE_WORDS):
        return []
    found = _claude_models(module)
    if not found or project.marker_files(module.path) or not _agents_uncached(module, project):
        return []
    return found


def _claude_models(module) -> list[ast.AST]:
    out: list[ast.AST] = []
    expects_claude = _CLAUDE_PROVIDER.search(module.source) is not None
    for node in subtree(module.tree):
        if isinstance(node, ast.Call):
            qual = module.qualified_name(node.func) or ""
            if qual in _CLASSES:
                out.append(node)
            elif qual in _TAKERS:
                model = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "model"), None)
                if isinstance(model, ast.Constant) and isinstance(model.value, str) \
                        and _CLAUDE_STRING.match(model.value):
                    out.append(model)
        elif expects_claude and isinstance(node, _FUNCS) and _takes_model(module, node):
            out.extend(_formatted_models(node))
    return out


def _takes_model(module, func) -> bool:
    """True when `func` calls `Agent(...)` or `infer_model(...)` of pydantic-ai."""
    return any(isinstance(n, ast.Call) and (module.qualified_name(n.func) or "") in _TAKERS for n in subtree(func))


def _formatted_models(func) -> list[ast.JoinedStr]:
    """The f-strings of `func` (not of a nested function) that join a provider and a model
    (`f"{provider}:{model}"`): a placeholder naming a provider, then `:`, then a placeholder."""
    out = []
    for node in subtree(func):
        if not isinstance(node, ast.JoinedStr) or len(node.values) != 3:
            continue
        first, sep, last = node.values
        if isinstance(first, ast.FormattedValue) and isinstance(sep, ast.Constant) and sep.value == ":" \
                and isinstance(last, ast.FormattedValue) and "provider" in ast.unparse(first.value).lower():
            out.append(node)
    return out


def _agents_uncached(module, project) -> bool:
    """True when a file of the package that imports pydantic-ai calls `Agent(...)`, and no such
    file (nor one that builds model settings) names a cache word (`_CACHE_WORDS`)."""
    agents = False
    for name in ("Agent", "ModelSettings", "AnthropicModelSettings", "BedrockModelSettings"):
        for path in project.calling_files(module.path, name):
            try:
                other = module if path == module.path else project.load(path)
            except (ParseError, OverBudget):
                return False
            if "pydantic_ai" not in other.source:
                continue
            if any(w in other.source for w in _CACHE_WORDS):
                return False
            agents = agents or name == "Agent"
    return agents
