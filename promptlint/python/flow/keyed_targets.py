"""The dict a statement sets an item of, or grows a list of, by a key not known statically, and
the item an in-place merge sets (`d["k"] |= other`): shapes of the code only (the bindings are read in scopes.py, the values in keyed.py)."""
from __future__ import annotations

import ast


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
