"""Shapes of loops the statement reader (scopes.py) recognises: `for i, x in enumerate(xs)` and a
loop that appends one element per item (`for m in xs: out.append(f(m))`). Pure functions of the
syntax tree.
"""
from __future__ import annotations

import ast

from ..walk import block_nodes


def enumerated(stmt) -> ast.expr | None:
    """The iterable of `for i, x in enumerate(xs)` (two plain names; a `for` statement or a
    comprehension's generator), else None."""
    it, target = stmt.iter, stmt.target
    if (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate" and it.args
            and isinstance(target, ast.Tuple) and len(target.elts) == 2
            and all(isinstance(e, ast.Name) for e in target.elts)):
        return it.args[0]
    return None


def map_loop(stmt) -> str | None:
    """The name `out` of a loop `for x in xs: ... out.append(expr) ...` that appends once per
    item (one unconditional append in its body, or one extend by a tuple or list display,
    `out.extend(({"role": "user", ...}, {"role": "assistant", ...}))`: the same items for each;
    no other change of `out`, no break, continue or return, no else), else None."""
    if not isinstance(stmt.target, ast.Name) or stmt.orelse:
        return None
    appends = [st.value.func.value.id for st in stmt.body
               if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and len(st.value.args) == 1
               and not st.value.keywords and isinstance(st.value.func, ast.Attribute)
               and (st.value.func.attr == "append" or extends_by_display(st.value))
               and isinstance(st.value.func.value, ast.Name)]
    if len(appends) != 1 or appends[0] == stmt.target.id:
        return None
    out = appends[0]
    return out if name_reads(stmt.body, out, loads_only=True) == 1 else None


def extends_by_display(call) -> bool:
    """True for `out.extend((a, b))` or `out.extend([a, b])`: a fixed number of items added, each
    written in the call."""
    return isinstance(call.func, ast.Attribute) and call.func.attr == "extend" and len(call.args) == 1 \
        and isinstance(call.args[0], (ast.Tuple, ast.List)) and bool(call.args[0].elts) \
        and not any(isinstance(e, ast.Starred) for e in call.args[0].elts)


def name_reads(body: list, name: str, loads_only: bool = False) -> int | None:
    """How many times the statements `body` name `name` (each a read with `loads_only`); None when
    they hold a break, continue, return or yield (a loop body that may not run to its end), or,
    with `loads_only`, a write of `name`."""
    seen = 0
    for node in block_nodes(body):
        if isinstance(node, (ast.Break, ast.Continue, ast.Return, ast.Yield, ast.YieldFrom)):
            return None
        if isinstance(node, ast.Name) and node.id == name:
            if loads_only and not isinstance(node.ctx, ast.Load):
                return None
            seen += 1
    return seen


def filtered_append(stmt) -> ast.Call | None:
    """The append call of a loop `for x in xs: if test: out.append(expr)` (one `if` is the whole
    body, its body the one append, its test and `else` free of `out` and of break, continue or
    return: a filter of the items), else None. The caller reads the call's receiver for `out`."""
    if not isinstance(stmt.target, ast.Name) or stmt.orelse or len(stmt.body) != 1 or not isinstance(stmt.body[0], ast.If):
        return None
    branch = stmt.body[0]
    if len(branch.body) != 1:
        return None
    st = branch.body[0]
    if not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and len(st.value.args) == 1
            and not st.value.keywords and isinstance(st.value.func, ast.Attribute)
            and st.value.func.attr == "append" and isinstance(st.value.func.value, ast.Name)):
        return None
    out = st.value.func.value.id
    if out == stmt.target.id:
        return None
    for node in (*ast.walk(branch.test), *block_nodes(branch.orelse)):
        if isinstance(node, (ast.Break, ast.Continue, ast.Return, ast.Yield, ast.YieldFrom)):
            return None
        if isinstance(node, ast.Name) and node.id == out:
            return None
    return st.value


def newest_base(it) -> ast.expr | None:
    """`xs` of a loop's iterable that keeps the newest items of `xs` in their order: `xs[-k:]`,
    `xs[len(xs) - k:]` (`windows.slides`), `xs[::-1][:k][::-1]` or `list(reversed(xs[::-1][:k]))`;
    else None."""
    from .windows import slides, takes_newest
    inner = _unreversed(it)
    if inner is not None and isinstance(inner, ast.Subscript) and takes_newest(inner):
        base = inner.value
        if isinstance(base, ast.Call) and isinstance(base.func, ast.Name) and base.func.id == "list" and base.args:
            base = base.args[0]
        return base.args[0] if isinstance(base, ast.Call) else base.value
    if isinstance(it, ast.Subscript) and isinstance(it.slice, ast.Slice) and it.slice.upper is None \
            and it.slice.step is None and it.slice.lower is not None and slides(it.slice.lower):
        return it.value
    return None


def _unreversed(node) -> ast.expr | None:
    """`e` of `e[::-1]`, `reversed(e)` or `list(reversed(e))`, else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "list" and len(node.args) == 1:
        node = node.args[0]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "reversed" and len(node.args) == 1:
        return node.args[0]
    s = node.slice if isinstance(node, ast.Subscript) else None
    if isinstance(s, ast.Slice) and s.lower is None and s.upper is None and isinstance(s.step, ast.UnaryOp) \
            and isinstance(s.step.op, ast.USub) and isinstance(s.step.operand, ast.Constant) and s.step.operand.value == 1:
        return node.value
    return None


def rendered_texts(stmt) -> dict[str, str]:
    """The names a `for` loop adds text made from its item to (`text += f"<R>{entry['content']}</R>"`,
    `out += m.role + ": " + m.content`): the items written one after another into one text; each
    with the first constant text written with them (`"<R>"`, "" when none)."""
    if not isinstance(stmt.target, ast.Name):
        return {}
    item = stmt.target.id
    out: dict[str, str] = {}
    for node in block_nodes(stmt.body):
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name) \
                and isinstance(node.value, (ast.JoinedStr, ast.BinOp)) \
                and any(isinstance(n, ast.Name) and n.id == item for n in ast.walk(node.value)):
            pieces = [n.value for n in ast.walk(node.value) if isinstance(n, ast.Constant) and isinstance(n.value, str)
                      and n.value.strip()]
            out.setdefault(node.target.id, pieces[0] if pieces else "")
    return out
