"""LiteLLM: `litellm.completion` / `acompletion` / `text_completion` and `Router(...).completion`:
OpenAI's chat shape; the model string names the provider (`anthropic/claude-...`)."""
from __future__ import annotations

from ..flow.values import Obj
from .base import Sdk, Shape

_FUNCS = {"litellm.completion", "litellm.acompletion", "litellm.text_completion"}


def chat_like(b, call, api: str) -> None:
    frame = call.frame
    kw = call.kwargs
    parts = b.tools(kw.get("tools") or kw.get("functions"), frame, "nested")
    msg_parts, newest = b.message_parts(b.value(kw["messages"], frame), frame) if "messages" in kw else ([], None)
    prov, model = b.provider_for_model(b.static_model(kw.get("model"), frame), "litellm")
    layout = b.add(call.node, "python-call", prov, api, model, parts + msg_parts,
                   None if newest is None else len(parts) + newest)
    b.options(layout, kw, frame)


def _is_completion(call) -> bool:
    q = call.qual
    return q in _FUNCS or (q.startswith("litellm.") and q.rsplit(".", 1)[-1] in ("completion", "acompletion"))


def completion(b, call) -> None:
    chat_like(b, call, "litellm." + call.qual.rsplit(".", 1)[-1])


def router(b, call) -> None:
    base = b.value(call.node.func.value, call.frame)
    if isinstance(base, Obj) and base.qualname.endswith("Router"):
        chat_like(b, call, "Router." + call.method)


SDK = Sdk(
    name="litellm",
    imports=("litellm",),
    hints=("litellm",),
    shapes=(
        Shape("completion", ("completion", "acompletion", "text_completion"), _is_completion, completion),
        Shape("Router.completion", ("completion", "acompletion"), lambda c: c.method in ("completion", "acompletion") and c.has("messages"), router),
    ),
    routes={"vertex_ai": "google", "deepseek": "deepseek", "xai": "xai", "mistral": "mistral", "groq": "groq"},
)
