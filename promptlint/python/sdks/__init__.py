"""The SDK registry: the one list of SDK modules, in the order their call shapes are tried.

Adding an SDK is one new module in this folder (declaring an `SDK = Sdk(...)`: see base.py) and one
entry in `SDKS`. The pre-filter of the engine, the call matching of the site finder and the model
to provider mapping are all built from these declarations.
"""
from __future__ import annotations

import re

from . import (adk, anthropic, autogen, bedrock, cohere, crewai, dspy, google, http, langchain, litellm, llama_index, llama_index_llms,
               mistral,
               openai, openai_agents, openai_legacy, pydantic_ai)
from ..placeholder_models import is_placeholder_model
from .base import Call, Sdk, Shape, module_attributes

SDKS: list[Sdk] = [openai.SDK, openai_legacy.SDK, anthropic.SDK, google.SDK, litellm.SDK, langchain.SDK, openai_agents.SDK,
                   crewai.SDK, autogen.SDK, llama_index.SDK, llama_index_llms.SDK, adk.SDK, pydantic_ai.SDK,
                   mistral.SDK, cohere.SDK, bedrock.SDK, dspy.SDK, http.SDK]


#: How the README names each SDK of the registry.
DISPLAY_NAMES = {"openai": "OpenAI", "openai_legacy": "OpenAI (before 1.0)", "anthropic": "Anthropic", "google": "Gemini",
                 "litellm": "LiteLLM", "langchain": "LangChain", "openai_agents": "OpenAI Agents SDK", "crewai": "CrewAI",
                 "autogen": "AutoGen", "llama_index": "LlamaIndex", "llama_index_llms": "LlamaIndex LLMs", "adk": "ADK", "pydantic_ai": "pydantic-ai",
                 "mistral": "Mistral", "cohere": "Cohere", "bedrock": "Bedrock", "dspy": "DSPy",
                 "http": "requests / httpx / aiohttp"}


def display_name(shape) -> str | None:
    """How the README names the SDK that declares `shape` (a call `Shape`, a `Decorator` or its
    `called` builder): 'pydantic-ai', 'LangChain', 'OpenAI'; None for a shape of no SDK of the
    registry."""
    for sdk in SDKS:
        if any(s is shape for s in (*sdk.shapes, *sdk.decorators, sdk.called)):
            return DISPLAY_NAMES.get(sdk.name, sdk.name)
    return None


def shapes() -> list[tuple[Sdk, Shape]]:
    """Every call shape, in the order they are tried."""
    return [(sdk, shape) for sdk in SDKS for shape in sdk.shapes]


def shapes_for(name: str) -> list[Shape]:
    """The call shapes that can match a callee whose last name is `name`, in order."""
    return _BY_NAME.get(name, [])


def method_names() -> list[str]:
    """The last names of every call shape (`create`, `parse`, `generate_content`, ...), in order."""
    return list(_BY_NAME)


def called_for(imports) -> list:
    """The `called` builders of the SDKs a module imports (`imports`: its imported dotted names)."""
    roots = {name.split(".", 1)[0] for name in imports}
    return [sdk.called for sdk in SDKS if sdk.called is not None and roots & set(sdk.imports)]


def decorators():
    return [d for sdk in SDKS for d in sdk.decorators]


def hints() -> list[str]:
    """Literal text whose presence in a file suggests a prompt is sent from it (every SDK's hints)."""
    return sorted({h for sdk in SDKS for h in sdk.hints})


def import_and_call(source: str) -> bool:
    """True when the file imports an SDK whose calls have generic method names and calls one."""
    for sdk in SDKS:
        if sdk.methods and any(f"import {n}" in source or f"from {n}" in source for n in sdk.imports) \
                and any(f".{m}(" in source for m in sdk.methods):
            return True
    return False


from . import base as _base
_base.SDK_ROOTS = tuple(sorted({n for sdk in SDKS for n in sdk.imports}))

_BY_NAME: dict[str, list[Shape]] = {}
for _sdk in SDKS:
    for _shape in _sdk.shapes:
        for _name in _shape.names:
            _BY_NAME.setdefault(_name, []).append(_shape)
_base.SEND_METHODS = frozenset(_BY_NAME)

_ROUTES: dict[str, str] = {}
for _sdk in SDKS:
    _ROUTES.update(_sdk.routes)
_ROUTE = re.compile(r"^(" + "|".join(sorted(map(re.escape, _ROUTES), key=len, reverse=True)) + r")[/:](.+)$")
_MODELS = [(prefix, provider) for sdk in SDKS for prefix, provider in sdk.models]


def provider_for_model(model: str | None, default: str | None) -> tuple[str | None, str | None]:
    """(provider, model) from a model string such as `openai/gpt-4.1`, `anthropic:claude-3-5-haiku`
    or `gpt-4o`; `default` when the string names no provider; (default, None) for a placeholder
    that names no model (`is_placeholder_model`)."""
    if is_placeholder_model(model):
        return default, None
    if not model:
        return default, model
    m = _ROUTE.match(model)
    if m:
        return _ROUTES[m.group(1)], m.group(2)
    low = model.lower()
    for prefix, provider in _MODELS:
        if provider == "anthropic" and prefix in low:  # Claude names come with many prefixes
            return ("anthropic" if default != "bedrock" else default), model
        if low.startswith(prefix):
            return provider, model
    return default, model


__all__ = ["SDKS", "Call", "Sdk", "Shape", "module_attributes", "shapes", "decorators", "hints", "provider_for_model", "is_placeholder_model"]
