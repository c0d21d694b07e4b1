"""A walk by index over the newest items of a list only (`for i in range(max(0, len(xs) - k),
len(xs)): out.append(f(xs[i]))`, also with `n = len(xs)` bound before it), read by the statement
reader (scopes.py): what it keeps is a window of xs's newest k items, as `for m in xs[-k:]`
(PRM105). Reads syntax only."""
from __future__ import annotations

import ast

from ..walk import node_key, subtree


def newest_range(stmt, env: dict) -> ast.expr | None:
    """`xs` of `for i in range(start, end)` whose body reads `xs[i]`, where `end` is `len(xs)` (or a
    name bound to it) and `start` that length less a count that is not a constant 0 or 1
    (`len(xs) - k`, `max(0, n - k)`, `max(n - k, 0)`); else None. A walk from a fixed start
    (`range(1, len(xs))`) or over every item is no window."""
    it = stmt.iter
    if not (isinstance(stmt, ast.For) and isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
            and it.func.id == "range" and len(it.args) == 2 and isinstance(stmt.target, ast.Name)):
        return None
    source = _length_of(it.args[1], env)
    if source is None or not _less_than(it.args[0], source, env):
        return None
    index, key = stmt.target.id, node_key(source)
    reads = any(isinstance(n, ast.Subscript) and node_key(n.value) == key
                and isinstance(n.slice, ast.Name) and n.slice.id == index for s in stmt.body for n in subtree(s))
    return source if reads else None


def _length_of(node, env: dict) -> ast.expr | None:
    """`xs` for `len(xs)` (a name or a dotted attribute of one, `state.history_steps`), or for a
    name bound once to it (`step = len(xs)`)."""
    if isinstance(node, ast.Name):
        th = env.get(node.id)
        node = th.node if th is not None and th.kind == "expr" and th.prev is None else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
            and len(node.args) == 1 and _dotted(node.args[0]):
        return node.args[0]
    return None


def _dotted(node) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _less_than(start, source: ast.expr, env: dict) -> bool:
    """True for `len(xs) - k` (or `n - k` with n that length; also in `max(0, ...)`), k not a
    constant below 2 (the last answer looked up, not a window)."""
    if isinstance(start, ast.Call) and isinstance(start.func, ast.Name) and start.func.id == "max" \
            and len(start.args) == 2:
        rest = [a for a in start.args if not (isinstance(a, ast.Constant) and a.value == 0)]
        if len(rest) != 1:
            return False
        start = rest[0]
    if not (isinstance(start, ast.BinOp) and isinstance(start.op, ast.Sub)):
        return False
    k = start.right
    if isinstance(k, ast.Constant) and not (type(k.value) is int and k.value > 2):
        return False
    length = _length_of(start.left, env)
    return length is not None and node_key(length) == node_key(source)
