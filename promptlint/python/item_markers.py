"""Breakpoints a loop sets per item of a message list, read from the statement that sets one
(facts for the evaluator's scopes, `flow/scopes.py`): set on the last item only (`if i ==
len(turns) - 1: ...["cache_control"] = ...`), or copied from a key of the item itself (the
caller's own breakpoint carried over to the converted block)."""
from __future__ import annotations

import ast

from .markers import MARKER_KEYS
from .walk import subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def marks_last_only(func: ast.AST | None, target: ast.AST) -> bool:
    """True when a marker assignment `target` in a loop of `func` runs only for the loop's last
    item: under an `if` whose test (or a name the function assigns such a test to: `is_last =
    i == len(turns) - 1`) compares with the last index or the last item (`i == len(xs) - 1`,
    `m is xs[-1]`). The breakpoint is set on one message, not on every message the loop visits."""
    if func is None:
        return False
    tests = {}
    for n in subtree(func):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            tests.setdefault(n.targets[0].id, []).append(n.value)
    for node in subtree(func):
        if isinstance(node, ast.If) and any(t is target for s in node.body for t in subtree(s)) \
                and _tests_last(node.test, tests):
            return True
    return False


def _tests_last(test, assigned: dict, depth: int = 0) -> bool:
    """True for a test that holds `x == len(xs) - 1` / `x is xs[-1]` (also in an `and`), or a name
    assigned only such a test."""
    for n in subtree(test):
        if isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.Eq, ast.Is)) \
                and any(_last(side) for side in (n.left, n.comparators[0])):
            return True
        if isinstance(n, ast.Name) and depth < 2 and n.id in assigned and len(assigned[n.id]) == 1 \
                and _tests_last(assigned[n.id][0], assigned, depth + 1):
            return True
        if isinstance(n, ast.BoolOp) and isinstance(n.op, ast.Or):
            return False  # `a or last`: not only the last
    return False


def _last(node) -> bool:
    """`len(xs) - 1` (the last index) or `xs[-1]` (the last item)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and isinstance(node.right, ast.Constant) \
            and node.right.value == 1 and isinstance(node.left, ast.Call) and isinstance(node.left.func, ast.Name) \
            and node.left.func.id == "len":
        return True
    return isinstance(node, ast.Subscript) and isinstance(node.slice, ast.UnaryOp) \
        and isinstance(node.slice.op, ast.USub) and isinstance(node.slice.operand, ast.Constant) \
        and node.slice.operand.value == 1


def copies_item_marker(func: ast.AST | None, stmt: ast.Assign, module=None) -> bool:
    """True when the breakpoint `stmt` sets in a `for` loop of `func` is one the loop's item
    already carries, copied onto the block built from it: its value, or the test of an `if`
    around it, reads a `cache_control` key of the loop variable (`block["cache_control"] =
    turn.options["cache_control"]`, `if turn.meta.get("cache_control"): ...`), also through a
    name the function assigns such a read to (`=` or `:=`), or a call of a function of `module`
    (by name) handed the item that reads such a key of its parameter (`if (cc := _cache_control(
    part)) is not None: block["cache_control"] = cc`, with `part.metadata.get("cache_control")` in
    `_cache_control`). It is set on the blocks where the caller asked for one (a statement counted
    there), not on every message the loop visits."""
    if func is None:
        return False
    loops = [n for n in subtree(func) if isinstance(n, (ast.For, ast.AsyncFor))
             and any(s is stmt for b in n.body for s in subtree(b))]
    items = {t.id for loop in loops for t in subtree(loop.target) if isinstance(t, ast.Name)}
    if not items:
        return False
    assigned = _names_assigned(func)
    tests = [n.test for loop in loops for n in subtree(loop) if isinstance(n, ast.If)
             and any(s is stmt for b in n.body for s in subtree(b))]
    helpers = getattr(module, "functions", None) or {}
    return any(_reads_item_marker(node, items, assigned, 0, helpers) for node in [stmt.value, *tests])


def _names_assigned(func) -> dict[str, list]:
    """The values `func` binds to each plain name, by `=` or `:=`."""
    assigned: dict[str, list] = {}
    for n in subtree(func):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            assigned.setdefault(n.targets[0].id, []).append(n.value)
        elif isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name):
            assigned.setdefault(n.target.id, []).append(n.value)
    return assigned


def _helper_reads(call: ast.Call, items: set, helpers: dict, depth: int) -> bool:
    """True when `call` calls a module function by name, handing it an item (or a part of one) as
    an argument, and that function reads a breakpoint key of the parameter it gets."""
    callee = helpers.get(call.func.id) if isinstance(call.func, ast.Name) else None
    if not isinstance(callee, _FUNCS) or depth >= 2:
        return False
    params = [a.arg for a in (*callee.args.posonlyargs, *callee.args.args)]
    handed = {params[i] for i, a in enumerate(call.args[:len(params)]) if _rooted_in(a, items)}
    handed |= {k.arg for k in call.keywords if k.arg and _rooted_in(k.value, items)}
    return bool(handed) and _reads_item_marker(callee, handed, _names_assigned(callee), depth + 1, helpers)


def _rooted_in(node, names: set) -> bool:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return isinstance(node, ast.Name) and node.id in names


def _reads_item_marker(node, items: set, assigned: dict, depth: int = 0, helpers: dict | None = None) -> bool:
    for n in subtree(node):
        if helpers and isinstance(n, ast.Call) and _helper_reads(n, items, helpers, depth):
            return True
        key, obj = None, None
        if isinstance(n, ast.Subscript):
            key, obj = n.slice, n.value
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "get" and n.args:
            key, obj = n.args[0], n.func.value
        if isinstance(key, ast.Constant) and key.value in MARKER_KEYS:
            while isinstance(obj, (ast.Attribute, ast.Subscript)):
                obj = obj.value
            if isinstance(obj, ast.Name) and obj.id in items:
                return True
        if isinstance(n, ast.Name) and depth < 2 and n.id in assigned \
                and any(_reads_item_marker(v, items, assigned, depth + 1, helpers) for v in assigned[n.id]):
            return True
    return False
