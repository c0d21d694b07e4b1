"""Prompt text a method keeps on its instance: a local prompt (`enriched = build(...)`) whose text
the method stores in an attribute of `self`, itself or in text built from it (`final =
f"...{enriched}..."`, then `self.system_prompt = {"role": "system", "content": final}`). The
instance's requests re-send what it keeps until the method builds it again, so a clock read or a
new id in it changes each time the method runs, not with each request (docs/policies.md, Policy
8: the message says what is known). Syntax only, within the one function."""
from __future__ import annotations

import ast

from ..model import Kind, PromptLayout, Segment, Volatility, replace

#: The evidence of a time or id in text its method keeps on the instance ends with this (with the method's name).
KEPT = "kept on the instance by"


def keeper(func, name: str) -> str:
    """The attribute (`self.system_prompt`) that `func` stores the local `name`'s text in, itself
    or in a value built from it (following assignments to other locals, in statement order), or ''."""
    if func is None:
        return ""
    assigns = [n for n in ast.walk(func) if isinstance(n, ast.Assign)]
    derived, grew = {name}, True
    while grew:  # (a fixpoint: the walk does not visit assignments in statement order)
        grew = False
        for node in assigns:
            if not _reads(node.value, derived):
                continue
            for t in node.targets:
                base = t.value if isinstance(t, ast.Subscript) else t
                if isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name) and base.value.id == "self":
                    return f"self.{base.attr}"
                if isinstance(t, ast.Name) and t.id not in derived:
                    derived.add(t.id)
                    grew = True
    return ""


def _reads(value, names: set) -> bool:
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names for n in ast.walk(value))


def kept_segments(segs: list[Segment], method: str, attr: str) -> list[Segment]:
    """`segs` with each time or id that changes per request marked as read when `method` builds the
    text it keeps in `attr` (its evidence says so: `KEPT`)."""
    note = f"{KEPT} `{method}` in `{attr}`"
    return [replace(s, evidence=f"{s.evidence} ({note})" if s.evidence else note)
            if s.kind in (Kind.TIMESTAMP, Kind.UNIQUE_ID) and s.volatility is Volatility.PER_REQUEST
            and not s.name_only else s for s in segs]


def mark(layouts: list[PromptLayout], func, target) -> None:
    """Mark the times and ids of the prompt candidates `layouts` recorded at one assignment of
    `func` (to `target`: a local, or an attribute of `self` itself) when the text is kept on the
    instance (`keeper`): their segments say the method that builds it (`kept_segments`)."""
    if not layouts or func is None:
        return
    base = target.value if isinstance(target, ast.Subscript) else target
    if isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name) and base.value.id == "self":
        attr = f"self.{base.attr}"
    elif isinstance(target, ast.Name):
        attr = keeper(func, target.id)
    else:
        return
    if not attr:
        return
    for layout in layouts:
        if layout.source != "python-constant" or any(p.is_history for p in layout.parts):
            continue  # (a conversation in it: re-sent with the history, judged as it is)
        for part in layout.parts:
            part.segments = kept_segments(part.segments, func.name, attr)
