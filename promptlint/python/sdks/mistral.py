"""Mistral (`mistralai`): `client.chat.complete(...)` / `chat.stream(...)` and their `_async`
forms: OpenAI's chat shape (tools nested as `{"type": "function", "function": {...}}`, then the
messages). Mistral caches prompt prefixes automatically (docs.mistral.ai, prompt caching)."""
from __future__ import annotations

from .base import Sdk, Shape, chain_is


def chat(b, call) -> None:
    frame = call.frame
    kw = call.kwargs
    parts = b.tools(kw.get("tools"), frame, "nested")
    msg_parts, newest = b.message_parts(b.value(kw["messages"], frame), frame) if "messages" in kw else ([], None)
    prov, model = b.provider_for_model(b.static_model(kw.get("model"), frame), "mistral")
    b.add(call.node, "python-call", prov or "mistral", "chat." + call.method, model, parts + msg_parts,
          None if newest is None else len(parts) + newest)


SDK = Sdk(
    name="mistral",
    imports=("mistralai",),
    hints=("chat.complete", "chat.stream"),
    shapes=(Shape("chat.complete", ("complete", "stream", "complete_async", "stream_async"),
                  chain_is(r"chat\.(complete|stream|complete_async|stream_async)", "messages"), chat),),
    routes={"mistral": "mistral"},
    models=(("mistral-", "mistral"), ("magistral-", "mistral"), ("codestral-", "mistral"), ("devstral-", "mistral"),
            ("ministral-", "mistral"), ("pixtral-", "mistral")),
)
