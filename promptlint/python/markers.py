"""Cache breakpoints set by statements (`block["cache_control"] = {...}`) around a send site that
the request's layout may not place: in the function that sends, in a helper it calls with a
message (`mark(messages[-1])`), or in a function read to build the request (a payload builder
that returns a dict). A rule that reports a *missing* breakpoint stays silent when one of them
exists (the breakpoint is there, we only do not know on which block).
"""
from __future__ import annotations

import ast

from ..model import Span

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def sets_cache_marker(target: ast.AST) -> bool:
    """`x[...]["cache_control"] = ...` (on any subscript chain)."""
    return (isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant)
            and target.slice.value == "cache_control")


def marker_targets(func: ast.AST) -> list[ast.Subscript]:
    """The `...["cache_control"]` targets assigned in `func`'s body (nested functions included)."""
    return [t for node in ast.walk(func) if isinstance(node, ast.Assign) for t in node.targets if sets_cache_marker(t)]


def helper_markers(module, func: ast.AST, cls: ast.ClassDef | None) -> list[Span]:
    """Markers set by functions of the same module that `func` calls by name (`mark(m)`,
    `self._mark(m)`): the spans of their `cache_control` assignments."""
    methods = {n.name: n for n in cls.body if isinstance(n, _FUNCS)} if cls is not None else {}
    out: list[Span] = []
    seen: set[int] = set()
    for call in ast.walk(func):
        if not isinstance(call, ast.Call):
            continue
        f = call.func
        callee = None
        if isinstance(f, ast.Name):
            callee = module.functions.get(f.id)
        elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in ("self", "cls"):
            callee = methods.get(f.attr)
        if callee is None or callee is func or id(callee) in seen:
            continue
        seen.add(id(callee))
        out.extend(module.span(t) for t in marker_targets(callee))
    return out
