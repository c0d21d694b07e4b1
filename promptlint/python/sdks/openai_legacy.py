"""The OpenAI Python SDK before 1.0: module-level resource classes instead of a client.

`openai.ChatCompletion.create(model=..., messages=..., functions=...)` (and `acreate`): the chat
shape of today's `chat.completions.create` (the function definitions, then the messages).
`openai.Completion.create(model=..., prompt=...)` (and `acreate`): one prompt string, no roles:
read as one user message, the whole of the request. Azure deployments name the model with
`engine=` or `deployment_id=`; the endpoint is set on the module (`openai.api_base = "..."`,
`openai.api_type = "azure"`), read from the file's text: a literal base URL names its host's
provider (a host of no known provider: provider unknown), `api_type = "azure"` Azure OpenAI.
Both resources still cache prompt prefixes on the server as any request does.
"""
from __future__ import annotations

import re

from .base import Sdk, Shape, chain_is
from .openai import HOSTS, _host_provider

#: The endpoint a module sets on the SDK (`openai.api_base = "https://..."`, `openai.api_type = "azure"`).
_BASE = re.compile(r"""\bopenai\.api_base\s*=\s*(?:(["'])([^"'\n]*)\1)?""")
_AZURE = re.compile(r"""\bopenai\.api_type\s*=\s*["']azure(?:_ad)?["']""", re.I)


def _model(b, call) -> str | None:
    """The model named statically: `model=`, else Azure's `engine=` / `deployment_id=`."""
    for key in ("model", "engine", "deployment_id"):
        if key in call.kwargs:
            return b.static_model(call.kwargs[key], call.frame)
    return None


def _provider(b, model: str | None) -> tuple[str | None, str | None]:
    """(provider, model): the model's provider when its name says it, else the one the
    module-level endpoint sends to (see the module docstring; None for a host of no known
    provider, or a base URL read at run time with a model no provider names), else OpenAI."""
    source = getattr(b.m, "source", "") or ""
    base = _BASE.search(source)
    if _AZURE.search(source):
        default = "azure-openai"
    elif base is None:
        default = "openai"
    elif base.group(2) is not None:
        host = _host_provider(base.group(2))
        default = host if host in HOSTS.values() else None
    else:
        default = None if model and b.provider_for_model(model, None)[0] is None else "openai"
    return b.provider_for_model(model, default)


def chat(b, call) -> None:
    frame = call.frame
    # `functions=[{"name": ..., "parameters": ...}]` (flat), or `tools=[{"type": "function", "function": ...}]`
    parts = b.tools(call.kwargs["functions"], frame, "flat") if "functions" in call.kwargs else \
        b.tools(call.kwargs.get("tools"), frame, "nested")
    msg_parts, newest = b.message_parts(b.value(call.kwargs["messages"], frame), frame)
    prov, model = _provider(b, _model(b, call))
    layout = b.add(call.node, "python-call", prov, "ChatCompletion." + call.chain.rsplit(".", 1)[-1],
                   model, parts + msg_parts, None if newest is None else len(parts) + newest)
    b.options(layout, call.kwargs, frame)


def completion(b, call) -> None:
    frame = call.frame
    node = call.kwargs["prompt"]
    value = b.value(node, frame)
    prov, model = _provider(b, _model(b, call))
    parts = [b.part("user", value, frame, b.span_of(node))]
    layout = b.add(call.node, "python-call", prov, "Completion." + call.chain.rsplit(".", 1)[-1],
                   model, parts, 0)
    b.options(layout, call.kwargs, frame)


SDK = Sdk(
    name="openai_legacy",
    imports=("openai",),
    hints=("ChatCompletion.create", "ChatCompletion.acreate", "Completion.create", "Completion.acreate"),
    shapes=(
        Shape("ChatCompletion", ("create", "acreate"), chain_is(r"ChatCompletion\.(create|acreate)", "messages"), chat),
        Shape("Completion", ("create", "acreate"), chain_is(r"Completion\.(create|acreate)", "prompt"),
              completion),
    ),
)
