"""Cohere (`cohere`): `ClientV2(...).chat(...)` / `chat_stream(...)` (also `AsyncClientV2`): tools
nested as `{"type": "function", "function": {...}}`, then the messages (a system message first)."""
from __future__ import annotations

from ..flow.values import Obj
from .base import Sdk, Shape

_CLIENTS = ("cohere.ClientV2", "cohere.AsyncClientV2", "cohere.client_v2.ClientV2", "cohere.Client", "cohere.AsyncClient")


def chat(b, call) -> None:
    frame = call.frame
    base = b.value(call.node.func.value, frame)
    if not (isinstance(base, Obj) and base.qualname.startswith(_CLIENTS)):
        return
    kw = call.kwargs
    parts = b.tools(kw.get("tools"), frame, "nested")
    msg_parts, newest = b.message_parts(b.value(kw["messages"], frame), frame) if "messages" in kw else ([], None)
    model = b.static_model(kw.get("model"), frame)
    b.add(call.node, "python-call", "cohere", "chat" if call.method == "chat" else "chat_stream", model,
          parts + msg_parts, None if newest is None else len(parts) + newest)


SDK = Sdk(
    name="cohere",
    imports=("cohere",),
    methods=("chat", "chat_stream"),
    hints=("ClientV2",),
    shapes=(Shape("chat", ("chat", "chat_stream"), lambda c: c.method in ("chat", "chat_stream") and c.has("messages"), chat, final=False),),
    models=(("command-", "cohere"),),
)
