"""pydantic-ai: `Agent(model, system_prompt=..., instructions=...)` and functions decorated with
`@agent.system_prompt` / `@agent.instructions`, whose return value is system text."""
from __future__ import annotations

import ast

from ...model import Part
from ..flow.values import Alt
from .base import Decorator, Sdk, Shape


def agent(b, call) -> None:
    if not call.qual.startswith("pydantic_ai") or not call.has("system_prompt", "instructions"):
        return
    frame = call.frame
    parts = [b.part("system", b.value(call.kwargs[key], frame), frame, None)
             for key in ("system_prompt", "instructions") if key in call.kwargs]
    prov, model = b.provider_for_model(b.static_model(call.arg(0, "model"), frame), None)
    b.add(call.node, "python-call", prov or "pydantic-ai", "Agent", model, parts, None)


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
