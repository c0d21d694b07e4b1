"""What a tool list is made of, read from its value: an unordered iteration anywhere in it, the
shape of its tools (OpenAI nested, flat, objects, names), the schema a `@tool` function is sent
as, and the JSON text of a list of static dicts. Used by layout.py for the tools part of a request.
"""
from __future__ import annotations

import json

from ..model import Kind, Segment
from .flow.values import Alt, Func, Mapping, Seq, Spread, Text


def find_unordered(value, depth: int = 0) -> Segment | None:
    """An unordered-iteration segment anywhere in a (tools) value."""
    if depth > 6:
        return None
    if isinstance(value, Text):
        return next((s for s in value.segs if s.kind is Kind.UNORDERED_ITERATION), None)
    if isinstance(value, Spread):
        return find_unordered(value.value, depth + 1)
    if isinstance(value, Mapping):  # a registry dict: its order is its values' order
        return value.unordered
    if isinstance(value, Seq):
        if value.ordered:
            return None
        if value.unordered is not None:
            return value.unordered
        return next((f for f in (find_unordered(i, depth + 1) for i in value.items) if f is not None), None)
    if isinstance(value, Alt):
        return next((f for f in (find_unordered(o, depth + 1) for o in value.options) if f is not None), None)
    return None


def all_unordered(value, depth: int = 0, fields: bool = False) -> list[Segment]:
    """Every unordered-iteration segment of a (tools) value, each source once (by span), in the
    order `find_unordered` meets them (its result first): a list joined from two sets
    (`list(local) + list(remote)`, `[*a, *b]`) has two sources, which one sort of the list fixes.
    `fields`: also those in the fields of its dicts (`[{"name": n} for n in local]`: the set's
    element written into each tool it makes)."""
    found: list[Segment] = []

    def walk(v, d: int) -> None:
        if d > 6:
            return
        if isinstance(v, Text):
            found.extend(s for s in v.segs if s.kind is Kind.UNORDERED_ITERATION)
        elif isinstance(v, Spread):
            walk(v.value, d + 1)
        elif isinstance(v, Mapping):
            found.extend([v.unordered] if v.unordered is not None else [])
            for item in v.items.values() if fields else ():
                walk(item, d + 1)
        elif isinstance(v, Seq) and not v.ordered:
            if v.unordered is not None:
                found.append(v.unordered)
            else:
                for i in v.items:
                    walk(i, d + 1)
        elif isinstance(v, Alt):
            for o in v.options:
                walk(o, d + 1)

    walk(value, depth)
    seen: set = set()
    out = []
    for seg in found:
        key = seg.span if seg.span is not None else id(seg)
        if key not in seen:
            seen.add(key)
            out.append(seg)
    return out


def listed_order(ev, node, value, frame) -> Segment | None:
    """The unordered segment of `xs`, placed there, when the value assigned by the statement
    `node` is `list(xs)` / `tuple(xs)` of an unordered source (the call iterates xs into a list:
    `self.tools = list(set(names))`), else None."""
    import ast
    call = getattr(node, "value", None)
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in ("list", "tuple")
            and len(call.args) == 1 and isinstance(value, Text)):
        return None
    unordered = find_unordered(value)
    if unordered is None or unordered.anchor is not None:
        return unordered
    return ev.unordered_at(unordered, call.args[0], frame)


def tool_shape(value, depth: int = 0) -> str | None:
    """How the tools of a list are shaped, when every tool we can see agrees: "nested" (OpenAI
    `{"type": "function", "function": {"name": ...}}`), "flat" (`{"name": ...}`), "object"
    (objects with a `.name`, e.g. `@tool` functions or MCP tools), "str" (tool names written as
    string literals); None when not known."""
    shapes: set[str] = set()

    def walk(v, d):
        if d > 6:
            shapes.add("?")
        elif isinstance(v, Mapping):
            shapes.add("nested" if isinstance(v.items.get("function"), Mapping) else "flat" if "name" in v.items else "?")
        elif isinstance(v, Func):
            shapes.add("object")
        elif isinstance(v, Text) and v.segs and all(seg.is_static for seg in v.segs):
            shapes.add("str")  # a tool name
        elif isinstance(v, Seq):
            for item in v.items:
                walk(item, d + 1)
        elif isinstance(v, Spread):
            walk(v.value, d + 1)
        elif isinstance(v, Alt):
            for option in v.options:
                walk(option, d + 1)
        else:
            shapes.add("?")
    walk(value, depth)
    return shapes.pop() if len(shapes) == 1 and "?" not in shapes else None


def tool_schema(fn: Func) -> Mapping:
    """The schema a `@tool` function (LangChain, pydantic-ai) is sent as: name, docstring and
    parameters with their annotations. Approximate in formatting, exact in content."""
    import ast
    node = fn.node
    doc = ast.get_docstring(node) or ""
    params = {}
    for p in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
        if p.arg in ("self", "cls"):
            continue
        ann = fn.module.code(p.annotation) if p.annotation is not None else "string"
        params[p.arg] = Text([Segment(text=ann)])
    return Mapping({"name": Text([Segment(text=node.name)]), "description": Text([Segment(text=doc)]),
                    "parameters": Mapping(params)})


def static_json(seq: Seq) -> str | None:
    """The JSON text of a list of dicts written with static values only, else None."""
    missing = object()

    def py(v):
        if isinstance(v, Mapping):
            out = {}
            for k, x in v.items.items():
                r = py(x)
                if r is missing:
                    return missing
                out[k] = r
            return out
        if isinstance(v, Seq):
            out = [py(x) for x in v.items]
            return missing if any(x is missing for x in out) else out
        if isinstance(v, Text) and all(s.is_static for s in v.segs):
            return "".join(s.text for s in v.segs)
        return missing
    data = py(seq)
    if data is missing:
        return None
    return json.dumps(data, indent=None, ensure_ascii=False)
