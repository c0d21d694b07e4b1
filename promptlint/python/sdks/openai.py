"""OpenAI: chat completions and the Responses API (sync, async, Azure clients).

Chat completions: tools (nested `{"type": "function", "function": {...}}`), a response schema,
then the messages. Responses: tools, `instructions` (a system part), then `input`: a string is the
newest user message, a list is messages (docs/policies.md, Policy 3).
"""
from __future__ import annotations

from dataclasses import replace

from ...model import Kind, Part
from ..flow.text import const_str
from ..flow.values import Seq
from ..layout import history_seg, is_history_like
from .base import Sdk, Shape, chain_is


def chat(b, call) -> None:
    frame = call.frame
    parts = b.tools(call.kwargs.get("tools") or call.kwargs.get("functions"), frame, "nested")
    if "response_format" in call.kwargs:
        parts += b.schema_part(call.kwargs["response_format"], frame)
    msg_parts, newest = b.message_parts(b.value(call.kwargs["messages"], frame), frame) if "messages" in call.kwargs else ([], None)
    prov, model = b.provider_for_model(b.static_model(call.kwargs.get("model"), frame), "openai")
    layout = b.add(call.node, "python-call", prov or "openai", "chat.completions." + call.chain.rsplit(".", 1)[-1], model,
                   parts + msg_parts, None if newest is None else len(parts) + newest)
    b.options(layout, call.kwargs, frame)


def responses(b, call) -> None:
    frame = call.frame
    parts = b.tools(call.kwargs.get("tools"), frame, "flat")
    if "instructions" in call.kwargs:
        node = call.kwargs["instructions"]
        parts.append(b.part("system", b.value(node, frame), frame, b.span_of(node)))
    newest = None
    if "input" in call.kwargs:
        node = call.kwargs["input"]
        value = b.value(node, frame)
        if isinstance(value, Seq):
            msg_parts, n = b.message_parts(value, frame)
            newest = None if n is None else len(parts) + n
            parts += msg_parts
        elif is_history_like(value):
            parts.append(Part("history", [history_seg(value, b.span_of(node), b.code_of(node))]))
        else:
            parts.append(b.part("user", value, frame, b.span_of(node)))
            newest = len(parts) - 1
    truncation = call.kwargs.get("truncation")
    if truncation is not None and const_str(b.value(truncation, frame)) == "auto":
        # the API drops the oldest input items once the conversation outgrows the context window
        parts = [replace(p, segments=[replace(s, window=b.span_of(truncation), expr='truncation="auto"')
                                      if s.kind is Kind.HISTORY else s for s in p.segments]) if p.is_history else p
                 for p in parts]
    layout = b.add(call.node, "python-call", "openai", "responses.create", b.static_model(call.kwargs.get("model"), frame),
                   parts, newest)
    b.options(layout, call.kwargs, frame)


SDK = Sdk(
    name="openai",
    imports=("openai",),
    hints=("completions.", "responses.create", "responses.parse", "responses.stream"),
    shapes=(
        Shape("chat.completions", ("create", "parse", "stream"), chain_is(r"chat\.completions\.(create|parse|stream)"), chat),
        Shape("responses", ("create", "parse", "stream"), chain_is(r"responses\.(create|parse|stream)", "input", "instructions"),
              responses),
    ),
    routes={"openai": "openai", "azure": "azure-openai"},
    models=(("gpt-", "openai"), ("o1", "openai"), ("o3", "openai"), ("o4", "openai"), ("chatgpt", "openai")),
)
