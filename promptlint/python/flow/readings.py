"""What an expression reads from the bindings it is evaluated in: two readings of one expression
with the same reading of their bindings have the same value (in one frame), so the second can
reuse the first (a loop read twice for its back edge: an iterable none of the loop's assignments
rebinds).

The reading is the binding of each name the expression holds and, through the expressions those
names are bound to (`Thunk` of kind "expr"), of each name those hold, looked up in the same
bindings: what the evaluator's resolvers may follow (`rewrites.env_resolver`). A name not bound
there reads as None (the function's closure or the module's global, the same for both readings).
"""
from __future__ import annotations

import ast

from ..walk import nodes_under

MAX_NAMES = 64  # names followed for one reading; past them the reading is None (never equal to another)


def names_in(node: ast.AST) -> set[str]:
    """The names an expression holds (loaded, stored or bound by a comprehension)."""
    return {n.id for n in nodes_under(node) if isinstance(n, ast.Name)}


def reading(node: ast.AST, env: dict) -> tuple | None:
    """((name, id of its binding or None), ...) in name order for `node` read in `env`; None past
    MAX_NAMES names. The bindings it names are alive while `env` is."""
    todo, seen = list(names_in(node)), {}
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        if len(seen) >= MAX_NAMES:
            return None
        th = env.get(name)
        seen[name] = None if th is None else id(th)
        if th is not None and th.kind == "expr" and th.node is not None:
            todo.extend(names_in(th.node))
    return tuple(sorted(seen.items()))
