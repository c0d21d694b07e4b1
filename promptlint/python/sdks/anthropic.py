"""Anthropic messages (also `beta.messages`, Bedrock and Vertex clients): tools, then `system`
(a string or content blocks with `cache_control` breakpoints), then the messages; a top-level
`cache_control` is Anthropic's automatic breakpoint."""
from __future__ import annotations

from ..flow.containers import one_dict
from .base import Sdk, Shape, chain_is

_BEDROCK = ("anthropic.", "us.anthropic", "eu.anthropic", "apac.anthropic", "global.anthropic")


def messages(b, call) -> None:
    frame = call.frame
    kw = call.kwargs
    parts = b.tools(kw.get("tools"), frame, "flat")
    if "system" in kw:
        parts.append(b.part("system", b.value(kw["system"], frame), frame, b.span_of(kw["system"])))
    msg_parts, newest = b.message_parts(b.value(kw["messages"], frame), frame) if "messages" in kw else ([], None)
    model = b.static_model(kw.get("model"), frame)
    provider = "bedrock" if model and model.startswith(_BEDROCK) else "anthropic"
    api = ("beta." if ".beta." in call.chain else "") + "messages." + call.chain.rsplit(".", 1)[-1]
    layout = b.add(call.node, "python-call", provider, api, model, parts + msg_parts,
                   None if newest is None else len(parts) + newest)
    if "cache_control" in kw:
        layout.auto_cache = b.span_of(kw["cache_control"])
    elif "extra_body" in kw:  # the top-level automatic breakpoint sent as an extra body field
        extra = one_dict(b.value(kw["extra_body"], frame))
        if extra is None:
            layout.unread_options = True
        elif "cache_control" in extra.items:
            layout.auto_cache = extra.key_spans.get("cache_control") or b.span_of(kw["extra_body"])
    b.options(layout, kw, frame)


SDK = Sdk(
    name="anthropic",
    imports=("anthropic",),
    hints=("messages.create", "messages.stream", "messages.parse"),
    # `parse`: a request with structured output (`output_format=Schema`), sent as `create` is
    shapes=(Shape("messages", ("create", "stream", "parse"), chain_is(r"messages\.(create|stream|parse)", "messages", "system"),
                  messages),),
    routes={"anthropic": "anthropic", "bedrock": "bedrock"},
    models=(("claude", "anthropic"),),
)
