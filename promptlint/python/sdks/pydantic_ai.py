"""pydantic-ai: `Agent(model, system_prompt=..., instructions=..., tools=[...])` and functions decorated with
`@agent.system_prompt` / `@agent.instructions`, whose return value is system text.

pydantic-ai sets Anthropic's breakpoints from model settings (`anthropic_cache_instructions`,
`anthropic_cache_tool_definitions`, `anthropic_cache_messages`; `bedrock_cache_*` on Bedrock):
an Agent whose `model_settings` name one caches (`auto_cache`, at the key); settings whose keys
are not known (`ModelSettings(**settings)`) may (`unread_options`), and so may a module that names
one elsewhere (settings given to `agent.run(...)`: `unplaced_markers`)."""
from __future__ import annotations

import ast

from ...model import Part
from ..flow.variants import one_dict
from ..flow.values import Alt, Obj
from .base import Decorator, Sdk, Shape


def agent(b, call) -> None:
    if not call.qual.startswith("pydantic_ai") or not call.has("system_prompt", "instructions", "tools"):
        return
    frame = call.frame
    # the tools' definitions go with every model request of a run, before its messages: "tools:
    # Tools to register with the agent" (https://ai.pydantic.dev/api/agent/), sent as the
    # request's tool definitions (https://ai.pydantic.dev/tools/)
    parts = b.tools(call.kwargs.get("tools"), frame) + [
        b.part("system", b.value(call.kwargs[key], frame), frame, None)
        for key in ("system_prompt", "instructions") if key in call.kwargs]
    prov, model = b.provider_for_model(b.static_model(call.arg(0, "model"), frame), None)
    layout = b.add(call.node, "python-call", prov or "pydantic-ai", "Agent", model, parts, None)
    if "model_settings" in call.kwargs:
        settings = b.value(call.kwargs["model_settings"], frame)
        keys = _keys(settings)
        if keys is None:
            layout.unread_options = True
        elif any(k.startswith(_CACHE_SETTINGS) for k in keys):
            layout.auto_cache = b.span_of(call.kwargs["model_settings"])
    if layout.auto_cache is None and any(word in b.m.source for word in _CACHE_SETTINGS):
        layout.unplaced_markers = True


#: Model settings that make pydantic-ai set cache breakpoints (prefixes of their names).
_CACHE_SETTINGS = ("anthropic_cache", "bedrock_cache")


def _keys(settings) -> list[str] | None:
    """The keys of an Agent's model settings: a dict (`{"anthropic_cache_instructions": True}`), or a
    settings class called with keywords (`AnthropicModelSettings(anthropic_cache_instructions="1h")`);
    None when they are not known (`ModelSettings(**settings)`, a value from elsewhere)."""
    mapping = one_dict(settings)
    if mapping is not None:
        return None if mapping.repeated else list(mapping.items)
    if isinstance(settings, Obj) and isinstance(settings.node, ast.Call) \
            and all(k.arg is not None for k in settings.node.keywords):
        return list(settings.kwargs)
    return None


def decorated(b, node: ast.FunctionDef, name: str) -> None:
    """`@agent.system_prompt def f(...): return "..."`: the function's returns as a system part."""
    frame = b.ev.function_frame(b.m, node)
    b.ev.ensure(frame)
    rets = [b.ev.force(frame, r) for r in frame.returns]
    segs = b.ev.text_of(Alt(rets) if len(rets) > 1 else (rets[0] if rets else None), frame)
    if segs:
        b.add(node, "python-call", "pydantic-ai", "agent." + name.rsplit(".", 1)[1], None,
              [Part("system", segs, span=b.m.span(node))])


SDK = Sdk(
    name="pydantic_ai",
    imports=("pydantic_ai",),
    hints=("system_prompt", ".instructions"),
    shapes=(Shape("Agent", ("Agent",), lambda c: c.qual.endswith(".Agent") or c.qual == "Agent", agent),),
    decorators=(Decorator(lambda n: "." in n and n.endswith((".system_prompt", ".instructions")), decorated),),
)
