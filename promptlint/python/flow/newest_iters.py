"""A walk of a list newest first through a method of its class (PRM105): `for h, a in
chat.iter_pairs():` where the parameter `chat` is annotated with a class of the tree whose method
yields or returns its items newest first (its body walks `reversed(...)` or `[::-1]`, or asks for
them so, `get_messages(newest_first=True)`; or its name or docstring says so). A loop over it that
stops at a bound keeps the newest items, as `for m in reversed(xs)` does; `reversed()` of it walks
oldest first. Reads syntax and resolves the annotation only."""
from __future__ import annotations

import ast
import re

from ..walk import subtree
from .values import ClassRef

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: Words of a method's name or docstring that say it gives the newest item first.
_NEWEST = re.compile(r"newest[ _-]first|latest[ _-]first|most recent first|reverse[ -]chronological|"
                     r"\bnewest_first\b|\breversed?_(?:order|chronological)\b", re.I)
_ORDER_KEYWORDS = {"newest_first", "reverse", "latest_first", "descending"}


def method_called(node) -> ast.Call | None:
    """The call `recv.m()` of `node`, also inside `list(...)`/`iter(...)`; else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("list", "iter", "tuple") \
            and len(node.args) == 1:
        node = node.args[0]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
        return node
    return None


def newest_method(ev, frame, node) -> bool:
    """True when `node` calls (`recv.m()`, `list(recv.m())`) a method that gives items newest first,
    of the class the parameter `recv` of the function of `frame` is annotated with."""
    call = method_called(node)
    func = frame.func
    if call is None or func is None:
        return False
    recv = call.func.value.id
    ann = next((a.annotation for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)
                if a.arg == recv), None)
    if not isinstance(ann, ast.Name):
        return False
    ev._bodies.looked_out = True  # the reading depends on more than its body's code (flow.bodies)
    cls = ev.resolve_global(frame.module, ann.id)
    if not isinstance(cls, ClassRef):
        return False
    method = next((n for n in cls.node.body if isinstance(n, _FUNCS) and n.name == call.func.attr), None)
    return method is not None and gives_newest_first(method)


def gives_newest_first(method) -> bool:
    """True for a method whose name or docstring says it gives the newest item first, or whose
    body walks a list reversed or asks for its items so (`newest_first=True`, `reverse=True`)."""
    doc = ast.get_docstring(method) or ""
    if _NEWEST.search(method.name) or _NEWEST.search(doc):
        return True
    for n in subtree(method):
        if isinstance(n, ast.Call):
            if isinstance(n.func, ast.Name) and n.func.id == "reversed":
                return True
            if any(k.arg in _ORDER_KEYWORDS and isinstance(k.value, ast.Constant) and k.value.value is True
                   for k in n.keywords):
                return True
        if isinstance(n, ast.Slice) and isinstance(n.step, ast.UnaryOp) and isinstance(n.step.op, ast.USub) \
                and n.lower is None and n.upper is None:
            return True
    return False


def newest_by_method(ev, frame, stmt, source):
    """The list a `for` loop that stops at a bound walks newest first: `source` (what
    `cuts.newest_first` found) unless it is a method giving items newest first walked `reversed`
    (oldest first: None), or the receiver of such a method walked as it gives them."""
    if source is not None:
        return None if newest_method(ev, frame, source) else source
    call = method_called(stmt.iter)
    return call.func.value if call is not None and newest_method(ev, frame, stmt.iter) else None
