"""Anthropic messages (also `beta.messages`, Bedrock and Vertex clients): tools, then `system`
(a string or content blocks with `cache_control` breakpoints), then the messages; a top-level
`cache_control` is Anthropic's automatic breakpoint.

The legacy Text Completions API (`client.completions.create(prompt=..., max_tokens_to_sample=...)`,
before SDK 0.3 `client.completion(...)`): one prompt string (`"\n\nHuman: ... \n\nAssistant:"`),
read as one user message, the whole of the request (api "completions"); it takes no breakpoint:
prompt caching is a feature of the Messages API."""
from __future__ import annotations

from ..flow.variants import one_dict
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


def completion(b, call) -> None:
    frame = call.frame
    node = call.kwargs["prompt"]
    model = b.static_model(call.kwargs.get("model"), frame)
    layout = b.add(call.node, "python-call", "anthropic", "completions", model,
                   [b.part("user", b.value(node, frame), frame, b.span_of(node))], 0)
    b.options(layout, call.kwargs, frame)


def _text_completion(call) -> bool:
    """`completions.create` / `completion` (also async) with a `prompt` and `max_tokens_to_sample`,
    the parameter only Anthropic's Text Completions API takes."""
    return call.has("prompt") and call.has("max_tokens_to_sample") and bool(call.chain) \
        and (call.chain.endswith(("completions.create", ".completion", ".acompletion")))


SDK = Sdk(
    name="anthropic",
    imports=("anthropic",),
    # (a module that imports the SDK may build a request body for another function to send:
    # python/request_bodies.py)
    hints=("messages.create", "messages.stream", "messages.parse", "max_tokens_to_sample", "import anthropic",
           "from anthropic import"),
    # `parse`: a request with structured output (`output_format=Schema`), sent as `create` is
    shapes=(Shape("messages", ("create", "stream", "parse"), chain_is(r"messages\.(create|stream|parse)", "messages", "system"),
                  messages),
            Shape("completions", ("create", "completion", "acompletion"), _text_completion, completion, final=False)),
    routes={"anthropic": "anthropic", "bedrock": "bedrock"},
    models=(("claude", "anthropic"),),
)
