"""A loop that converts each message of a list into one message of another, by branches
(`for m in messages: content = render(message=m).strip(); if m.role == "function":
out.append({"role": m.role, "name": m.tool_name, "content": content}) else: out.append({"role":
m.role, "content": content})`): every item appended exactly once, in each branch as a message made
of the item alone. Read by the statement reader (scopes.py) and the maps (maps.py) as a copy of
the conversation, one message for one, as `for m in xs: out.append({"role": m.role, ...})` is.
Pure functions of the syntax tree."""
from __future__ import annotations

import ast

from ..walk import subtree
from .loop_shapes import name_reads


def branched_appends(stmt) -> tuple[str, list[ast.Call]] | None:
    """`(out, appends)` for a `for` loop over plain-named items whose body is assignments of plain
    names (never `out` or the item), then one `out.append(x)` or one `if` / `elif` / `else` chain in
    which each branch is one `out.append(x)` (an `else` at the end: every item appended once); no break, continue,
    return or yield, no `else` of the loop, `out` named nowhere else. None for any other loop."""
    if not isinstance(stmt, ast.For) or not isinstance(stmt.target, ast.Name) or stmt.orelse or not stmt.body:
        return None
    *heads, chain = stmt.body
    if not all(isinstance(h, ast.Assign) and len(h.targets) == 1 and isinstance(h.targets[0], ast.Name) for h in heads):
        return None
    appends: list[ast.Call] = []
    node = chain if isinstance(chain, ast.If) else None
    if node is None:  # one append after the assignments: one branch
        if (call := _one_append([chain])) is None:
            return None
        appends.append(call)
    while node is not None:
        call = _one_append(node.body)
        if call is None:
            return None
        appends.append(call)
        if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
            node = node.orelse[0]
            continue
        if (last := _one_append(node.orelse)) is None:
            return None
        appends.append(last)
        node = None
    outs = {c.func.value.id for c in appends}
    if len(outs) != 1:
        return None
    out = outs.pop()
    if out == stmt.target.id or any(h.targets[0].id in (out, stmt.target.id) for h in heads):
        return None
    return (out, appends) if name_reads(stmt.body, out) == len(appends) else None


def _one_append(body) -> ast.Call | None:
    """The call of a block that is one `name.append(x)` statement, else None."""
    if len(body) != 1 or not isinstance(body[0], ast.Expr):
        return None
    call = body[0].value
    if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append"
            and isinstance(call.func.value, ast.Name) and len(call.args) == 1 and not call.keywords):
        return call
    return None


def made_of_item(stmt, item: str) -> set[str]:
    """The names the loop body binds, before its branches, to a value made of the item alone
    (`content = render(message=m, kind=m.__class__.__name__).strip()`: every name it reads is the
    item or a callee, and it reads the item)."""
    made: set[str] = set()
    for st in stmt.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
                and _of_item(st.value, item, made):
            made.add(st.targets[0].id)
    return made


def _of_item(node, item: str, made: set[str]) -> bool:
    """True when `node` reads the item (or a name made of it) and no other name but callees."""
    callees = {id(n.func) for n in subtree(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    reads = False
    for n in subtree(node):
        if isinstance(n, ast.Name):
            if n.id == item or n.id in made:
                reads = True
            elif id(n) not in callees:
                return False
    return reads


def message_of(elt, item: str, made: set[str]) -> bool:
    """True for a dict display with a `role` key whose values are constants, fields of the item
    (`m.role`, `m["content"]`, `m.tool_name`) or names made of the item alone (`made`): the item's
    message again, converted one for one."""
    if not isinstance(elt, ast.Dict) or None in elt.keys or not all(isinstance(k, ast.Constant) for k in elt.keys):
        return False
    if "role" not in [k.value for k in elt.keys]:
        return False
    for value in elt.values:
        if isinstance(value, ast.Constant) or isinstance(value, ast.Name) and value.id in made:
            continue
        if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == item:
            continue
        if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) and value.value.id == item \
                and isinstance(value.slice, ast.Constant):
            continue
        return False
    return True


def converts_each(stmt) -> bool:
    """True for a loop of `branched_appends` whose every append is a message of the item alone."""
    found = branched_appends(stmt)
    if found is None:
        return False
    item = stmt.target.id
    made = made_of_item(stmt, item)
    return all(message_of(c.args[0], item, made) for c in found[1])
