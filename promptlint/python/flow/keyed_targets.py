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
    if prev is None or not (prev.kind == "setpath" or prev.kind == "expr" and isinstance(prev.node, (ast.List, ast.Dict))
                            or _grown_head(prev, keys)):
        return None
    return name, shared("setpath", node=stmt.value, env=dict(env), prev=prev, name=kind, value=keys)


def _grown_head(prev, keys: tuple) -> bool:
    """True when `prev` is a list written out and then grown at its end (`append` / `extend`
    thunks down to the display or an earlier such write) and the first key is a position from
    its start (`chat[0]["content"] = ...` after `chat.append(reply)`): the items written out keep
    their places, so the item at that position is known."""
    if not (isinstance(keys[0], int) and keys[0] >= 0):
        return False
    seen = 0
    while prev is not None and prev.kind in ("append", "extend") and seen < _MAX_GROWTHS:
        prev, seen = prev.prev, seen + 1
    return seen > 0 and prev is not None and (
        prev.kind == "setpath" or prev.kind == "expr" and isinstance(prev.node, ast.List))


#: Appends read down from a list's binding to the display it grows (`_grown_head`).
_MAX_GROWTHS = 16


def global_dict(module, name: str) -> bool:
    """True when `name` is a module-level name of `module` assigned a dict (`additional_kwargs =
    {...}`, `dict(...)`) at module level, in every assignment there."""
    values = module.assigns.get(name) or []
    return bool(values) and all(isinstance(v, ast.Dict) or isinstance(v, ast.Call) and isinstance(v.func, ast.Name)
                                and v.func.id == "dict" for v in values)


def global_dict_key(frame, target: ast.AST, env: dict) -> str | None:
    """The name of the module-level dict (`global_dict`) that `target`, in a function, sets an item
    of by a string key (`additional_kwargs["tools"] = functions`) while the function binds no name
    of its own so; else None. The function changes the module's dict: what it reads of it after
    the statement holds the key (read before, the dict as the module builds it)."""
    if frame.func is None or frame.module_level or not isinstance(target, ast.Subscript):
        return None
    base = target.value
    if not (isinstance(base, ast.Name) and base.id not in env and isinstance(target.slice, ast.Constant)
            and isinstance(target.slice.value, str)):
        return None
    return base.id if global_dict(frame.module, base.id) else None


#: Writes of a module-level dict read from other functions (`global_writes`), per dict.
MAX_GLOBAL_WRITES = 4


def global_writes(module, name: str, skip=None) -> list[tuple[ast.AST, ast.ClassDef | None, ast.Subscript, ast.expr]]:
    """(function, its class or None, target, value) of each `name["key"] = value` (a string key)
    written in a function of `module` (not `skip`) that binds no `name` of its own: a function that
    fills the module-level dict `name` (`global_dict`), in source order; [] when the module writes
    it in more than `MAX_GLOBAL_WRITES` places (not followed) or `name` is no such dict."""
    if f"{name}[" not in module.source or not global_dict(module, name):
        return []
    out = []
    todo = [(module.tree, None, None)]
    while todo:
        node, func, cls = todo.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if child is not skip and not _binds(child, name):
                    todo.append((child, child, cls))
            elif isinstance(child, ast.ClassDef):
                todo.append((child, None, child))
            elif isinstance(child, ast.stmt):
                if func is not None and isinstance(child, ast.Assign):
                    out += [(func, cls, t, child.value) for t in child.targets if isinstance(t, ast.Subscript)
                            and isinstance(t.value, ast.Name) and t.value.id == name
                            and isinstance(t.slice, ast.Constant) and isinstance(t.slice.value, str)]
                todo.append((child, func, cls))
    out.sort(key=lambda w: (w[2].lineno, w[2].col_offset))
    return out if len(out) <= MAX_GLOBAL_WRITES else []


def _binds(func, name: str) -> bool:
    """True when `func` binds `name` itself (a parameter, an assignment): its own, not the module's."""
    a = func.args
    if any(p.arg == name for p in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if p is not None):
        return True
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(func))
