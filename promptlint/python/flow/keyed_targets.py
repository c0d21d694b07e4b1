"""The dict a statement sets an item of, or grows a list of, by a key not known statically, and
the item an in-place merge sets (`d["k"] |= other`): shapes of the code only (the bindings are read in scopes.py, the values in keyed.py)."""
from __future__ import annotations

import ast

from ..markers import MARKER_KEYS


def keyed(target: ast.AST, env: dict) -> str | None:
    """The name of the dict that `target` sets an item of by a key not known statically
    (`deps[edge.name] = ...`, not `payload["system"] = ...`), or of one of its values
    (`schema[field]["values"] = ...`), or None."""
    if not isinstance(target, ast.Subscript) or isinstance(target.slice, ast.Slice):
        return None
    inner = target.value
    if isinstance(inner, ast.Subscript) and not isinstance(inner.slice, (ast.Constant, ast.Slice)):
        inner = inner.value  # an item of the value at a key not known statically
    elif isinstance(target.slice, ast.Constant):
        return None
    return inner.id if isinstance(inner, ast.Name) and inner.id in env else None


def keyed_list(call: ast.Call, env: dict) -> str | None:
    """The name of the dict whose list `call` grows at a key not known statically
    (`groups[k].append(x)`, `groups.setdefault(k, []).extend(xs)`), or None."""
    f = call.func
    if not (isinstance(f, ast.Attribute) and f.attr in ("append", "extend") and len(call.args) == 1):
        return None
    held = f.value
    if isinstance(held, ast.Subscript) and not isinstance(held.slice, (ast.Constant, ast.Slice)):
        base = held.value
    elif isinstance(held, ast.Call) and isinstance(held.func, ast.Attribute) and held.func.attr == "setdefault":
        base = held.func.value
    else:
        return None
    return base.id if isinstance(base, ast.Name) and base.id in env else None


def merged_item(stmt: ast.AugAssign) -> ast.BinOp:
    """`d["k"] |= other` written as the value it assigns, `d["k"] | other` (located at the
    statement): the dict's item merged with `other`."""
    load = ast.copy_location(ast.Subscript(value=stmt.target.value, slice=stmt.target.slice, ctx=ast.Load()),
                             stmt.target)
    return ast.copy_location(ast.BinOp(left=load, op=ast.BitOr(), right=stmt.value), stmt)




def item_path(target: ast.AST) -> tuple[str, tuple] | None:
    """(name, keys) of `name[k1][k2]...` with constant keys (ints, `-1`, strings), the keys from
    the name outward, when they are more than one or hold a position (`system[-1]["text"]`,
    `blocks[0]`; not `payload["system"]`, a key set by `setitem`); None otherwise."""
    keys: list = []
    node = target
    while isinstance(node, ast.Subscript):
        key = node.slice
        if isinstance(key, ast.UnaryOp) and isinstance(key.op, ast.USub) and isinstance(key.operand, ast.Constant) \
                and type(key.operand.value) is int:
            keys.insert(0, -key.operand.value)
        elif isinstance(key, ast.Constant) and type(key.value) in (int, str):
            keys.insert(0, key.value)
        else:
            return None
        node = node.value
    if not isinstance(node, ast.Name) or not keys or (len(keys) == 1 and isinstance(keys[0], str)):
        return None
    return node.id, tuple(keys)


def path_binding(stmt: ast.stmt, env: dict, shared):
    """(name, the binding after the statement) when `stmt` writes an item of a list or dict that
    the function made as a display (its binding is that display, or one written so before),
    through a path of constant keys: `system[-1]["text"] += note`, `system[-1]["text"] = text`,
    `blocks[0] = {...}`: a `setpath` thunk (`value` the keys, `name` "aug" for `+=`, else "set";
    `shared` makes it). Not a breakpoint key (a marker: counted as one), nor a list or dict of
    any other binding (a conversation grown by appends, a parameter). None otherwise."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target, kind = stmt.targets[0], "set"
    elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add):
        target, kind = stmt.target, "aug"
    else:
        return None
    found = item_path(target)
    if found is None or found[1][-1] in MARKER_KEYS:
        return None
    name, keys = found
    prev = env.get(name)
    if prev is None or not (prev.kind == "setpath" or prev.kind == "expr" and isinstance(prev.node, (ast.List, ast.Dict))):
        return None
    return name, shared("setpath", node=stmt.value, env=dict(env), prev=prev, name=kind, value=keys)
