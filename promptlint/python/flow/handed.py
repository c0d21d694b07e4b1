"""A dict or list handed to a function of the tree that changes it in place: a request completed
by a helper (`self._add_tools(request)`, `add_cache(request)`, `await self._finish(request=request)`)
before it is sent (`client.messages.create(**request)`); a list a helper appends to
(`collect(task, ready)` whose body runs `ready.append(task)`), which holds what it appends after
the call (never the empty list it was made as).

After such a call the dict holds what the helper's body sets on the parameter it binds (`param["tools"]
= ...`, `param["cache_control"] = {...}`, `param.update(...)`, `param |= ...`, `param.append(...)`
/ `extend` / `insert`, or another helper
it hands the parameter to), read with the call's arguments bound, as if those statements were
written in the caller; a breakpoint it sets on a block the dict holds (`param["system"][-1][
"cache_control"] = ...`) is a marker of the request. A helper found by name: a function of the
module (`add_cache(request)`) or a method of the class around the call (`self._add_tools(
request)`); a method the class inherits, when the name is bound to a dict the code makes, is the
one `self.name` reaches, found when the dict is read. A helper that rebinds the parameter
(`request = dict(request)`) changes a copy: the dict is as it was.
"""
from __future__ import annotations

import ast

from ..markers import sets_cache_marker
from ..module import is_static_method
from ..walk import subtree
from .budget import MAX_DEPTH, SPENT
from .values import Func, Value, dynamic

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: bindings that change the dict (or list) of the binding they follow
_CHAINS = ("setitem", "update", "aug", "handed", "append", "extend", "insert", "map")  # (map: an appending loop)
_IN_PLACE = ("update", "append", "extend", "insert")  # methods that change their dict or list in place
_HOPS = 2  # helpers handing the dict on to another helper, followed when telling whether one changes it


def rebind_handed(frame, call: ast.AST, env: dict, shared, is_dict) -> None:
    """Rebind in `env` each dict that `call` hands to a helper that changes it in place (a
    `handed` binding made with `shared`, the statement reader's thunk maker); `is_dict(binding)`:
    the binding is a dict the code makes (for a method the class inherits, told at reading)."""
    for name, helper, slot in handed(frame.module, frame.cls, call, env, is_dict):
        env[name] = shared("handed", node=call, env=dict(env), prev=env[name], name=name, value=(helper, slot))


def handed(module, cls: ast.ClassDef | None, call: ast.AST, env: dict, is_dict) -> list[tuple]:
    """(name, helper, parameter) for each name bound in `env` that `call` (an `ast.Call`, or one
    awaited) passes by position or keyword to a helper that changes that parameter in place (see
    the module docstring). A method `cls` does not define (`self.add_tools(request)` of a base
    class) is found when the binding is read: (name, None, the argument's place: its position or
    keyword), for a name bound to a dict the code makes (`is_dict`)."""
    if isinstance(call, ast.Await):
        call = call.value
    if not isinstance(call, ast.Call) or not (call.args or call.keywords):
        return []
    found = _helper(module, cls, call.func)
    slots = [(i, arg) for i, arg in enumerate(call.args[:_starred(call.args)])]
    slots += [(kw.arg, kw.value) for kw in call.keywords if kw.arg is not None]
    named = [(slot, arg.id) for slot, arg in slots if isinstance(arg, ast.Name) and arg.id in env]
    if found is None:
        inherited = cls is not None and cls.bases and isinstance(call.func, ast.Attribute) \
            and isinstance(call.func.value, ast.Name) and call.func.value.id == "self"
        return [(name, None, slot) for slot, name in named if is_dict(env[name])] if inherited else []
    helper, params = found
    out = []
    for slot, name in named:
        param = params[slot] if isinstance(slot, int) and slot < len(params) else slot if isinstance(slot, str) else None
        if param is not None and changes(module, cls, helper, param):
            out.append((name, helper, param))
    return out


def _starred(args: list) -> int:
    """How many arguments come before the first `*args` (whose places are not known after it)."""
    return next((i for i, a in enumerate(args) if isinstance(a, ast.Starred)), len(args))


def _helper(module, cls, func: ast.AST):
    """(the function `func` names, its positional parameters without the receiver), or None: a
    function of the module (`name`) or a method of `cls` (`self.name`, `cls.name`)."""
    if isinstance(func, ast.Name):
        helper = module.functions.get(func.id)
        method = False
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("self", "cls") \
            and cls is not None:
        helper = next((s for s in cls.body if isinstance(s, _FUNCS) and s.name == func.attr), None)
        method = True
    else:
        return None
    if helper is None:
        return None
    params = [p.arg for p in (*helper.args.posonlyargs, *helper.args.args)]
    if method and params and not is_static_method(helper):
        params = params[1:]
    return helper, params


def changes(module, cls, helper, param: str, hops: int = 0) -> bool:
    """True when the body of `helper` changes its parameter `param` in place: sets a key written
    as a string (`param["tools"] = ...`), updates it, merges into it (`param |= ...`), appends to
    it (`param.append(x)`, `extend`, `insert`), or hands it to a helper that does (up to `_HOPS`
    deep). Read once per helper and parameter."""
    key = ("changes", id(helper), param)
    known = module._pieces.get(key)
    if known is not None and known[0] is helper:
        return known[1]
    module._pieces[key] = (helper, False)  # (while reading: a helper that hands it to itself adds nothing)
    found = False
    for node in subtree(helper):
        if isinstance(node, ast.Assign):
            found = any(isinstance(t, ast.Subscript) and _is(t.value, param) and isinstance(t.slice, ast.Constant)
                        and isinstance(t.slice.value, str) or sets_cache_marker(t) and _is(_root(t), param)
                        for t in node.targets)  # (a breakpoint on a block it holds: `param["system"][-1][...]`)
        elif isinstance(node, ast.AugAssign):
            found = isinstance(node.op, ast.BitOr) and _is(node.target, param)
        elif isinstance(node, ast.Call):
            f = node.func
            found = isinstance(f, ast.Attribute) and f.attr in _IN_PLACE and _is(f.value, param) or (
                hops < _HOPS and any(_is(a, param) for a in (*node.args, *(k.value for k in node.keywords)))
                and _hands_on(module, cls, node, param, hops))
        if found:
            break
    module._pieces[key] = (helper, found)
    return found


def _hands_on(module, cls, call: ast.Call, param: str, hops: int) -> bool:
    """True when `call` passes `param` to a helper that changes it."""
    found = _helper(module, cls, call.func)
    if found is None:
        return False
    helper, params = found
    names = [params[i] for i, a in enumerate(call.args) if i < len(params) and _is(a, param)]
    names += [k.arg for k in call.keywords if k.arg is not None and _is(k.value, param)]
    return any(changes(module, cls, helper, name, hops + 1) for name in names)


def _root(target: ast.AST) -> ast.AST:
    """The name a subscript chain starts at (`request` of `request["system"][-1]["cache_control"]`)."""
    while isinstance(target, ast.Subscript):
        target = target.value
    return target


def _is(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def changed_by(ev, th, prev: Value, frame) -> Value:
    """The dict `prev` (bound to `th.name`) after the call `th.node` hands it to a helper
    (`th.value`: the helper and the parameter it binds, from `handed`): the parameter's value at
    the end of the helper's body, read in a frame with the call's arguments bound; `prev` when
    the function the call reaches is not that helper, or when the helper rebinds the parameter."""
    call = th.node.value if isinstance(th.node, ast.Await) else th.node
    helper, param = th.value
    fn = ev.eval(call.func, frame, th.env)
    if helper is None and isinstance(fn, Func):  # a method the class inherits: the one `self.name` reaches
        helper, param = fn.node, _param_of(fn, param)
        if param is None or not changes(fn.module, fn.cls, helper, param):
            return prev
    if not isinstance(fn, Func) or fn.node is not helper:
        return prev
    span = frame.module.span(call)
    if frame.depth + 1 > MAX_DEPTH:
        return dynamic(span, th.name, evidence="call chain too deep to follow")
    if not ev.budget.following:
        return dynamic(span, th.name, evidence=SPENT)
    key = ("handed", id(helper), id(th))
    if key in ev._active:
        return prev
    args = [a for a in call.args if not isinstance(a, ast.Starred)]
    kwargs = {k.arg: k.value for k in call.keywords if k.arg is not None}
    bound = ev.bind(fn, args, kwargs, frame, th.env, call)
    ev._active.add(key)
    ev.budget.inner += 1
    try:
        inner = ev.function_frame(fn.module, helper, fn.cls, bound, fn.self_value, frame.depth + 1)
        ev.ensure(inner)
        ev.reached.append(fn.module.span(helper))
        ev.reached_funcs.append((fn.module, helper))
        ev.marked.extend(s for s, _ in inner.markers)  # (breakpoints it sets on blocks of the dict)
        end = inner.snapshots[inner.rows[-1]].get(param)  # (the last snapshot: the bindings at the end)
        if end is None or end.kind == "param" or not _rooted(end, param):
            return prev
        return ev.force(inner, end)
    finally:
        ev._active.discard(key)
        ev.budget.inner -= 1


def _param_of(fn: Func, slot) -> str | None:
    """The parameter of the method `fn` an argument at `slot` (a position, or a keyword) binds."""
    if isinstance(slot, str):
        return slot
    params = [p.arg for p in (*fn.node.args.posonlyargs, *fn.node.args.args)]
    if fn.cls is not None and params and not is_static_method(fn.node):
        params = params[1:]
    return params[slot] if slot < len(params) else None


def _rooted(th, param: str, depth: int = 0) -> bool:
    """True when the binding `th` is the parameter `param` changed in place (a chain of
    `_CHAINS` bindings, or branches of them, that starts at the parameter)."""
    if th is None or depth > 64:
        return False
    if th.kind == "param":
        return th.name == param
    if th.kind == "alt":
        return all(_rooted(o, param, depth + 1) for o in th.options)
    return th.kind in _CHAINS and _rooted(th.prev, param, depth + 1)
