"""A list rebound to what a function of the module returns without the list's first items
(`history = evict(history)`, `def evict(rounds): return rounds[1:]`), read by the statement reader
(scopes.py): in a `while` loop that runs until a size fits, the oldest items dropped until it fits,
a window (PRM105). Reads syntax only."""
from __future__ import annotations

import ast

from ..walk import subtree
from .cuts import front_slice

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def front_call(stmt, tree, cls) -> ast.Name | None:
    """The target of `xs = f(xs, ...)` (also `self.f(xs)`, awaited) when `f`, a function of the
    module `tree` or a method of `cls`, returns only its parameter that is handed `xs` without its
    first items (`def evict(rounds): return rounds[1:]`): in a `while` loop that runs until a size
    fits, the oldest items dropped until it fits, as `xs = xs[1:]` there; else None."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return None
    target, call = stmt.targets[0], stmt.value.value if isinstance(stmt.value, ast.Await) else stmt.value
    if not isinstance(call, ast.Call) or call.keywords and not call.args:
        return None
    position = next((i for i, a in enumerate(call.args) if isinstance(a, ast.Name) and a.id == target.id), None)
    f = call.func
    if position is None:
        return None
    if isinstance(f, ast.Name):
        scope, name, skip = getattr(tree, "body", []), f.id, 0
    elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self" and cls is not None:
        scope, name, skip = cls.body, f.attr, 1
    else:
        return None
    func = next((n for n in scope if isinstance(n, _FUNCS) and n.name == name), None)
    params = [a.arg for a in (*func.args.posonlyargs, *func.args.args)][skip:] if func is not None else []
    if position >= len(params):
        return None
    returns = [n for n in subtree(func) if isinstance(n, ast.Return)]
    if not returns or not all(r.value is not None and front_slice(r.value) and isinstance(r.value.value, ast.Name)
                              and r.value.value.id == params[position] for r in returns):
        return None
    return target
