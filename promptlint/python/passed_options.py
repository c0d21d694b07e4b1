"""The sending function's own `**kwargs` handed through a helper of its module that returns a copy
with a few fixed keys set: still its callers' keyword arguments (a fact for `request_dicts`'s
`Call.forwarded`).

    def chat_completions_create(self, model, messages, **kwargs):
        kwargs = self._prepare_kwargs(kwargs)
        return self.client.messages.create(model=model, messages=..., **kwargs)

    def _prepare_kwargs(self, kwargs):
        kwargs = kwargs.copy()
        kwargs.setdefault("max_tokens", DEFAULT_MAX_TOKENS)
        if "tools" in kwargs:
            kwargs["tools"] = self.converter.convert_tool_spec(kwargs["tools"])
        return kwargs

The mapping sent holds what the callers pass and the keys the helper writes, each named by a
string that is no breakpoint key (`max_tokens`, `tools`): a `cache_control` in it only where a
caller writes one.

Found when `node` is the `**kwargs` parameter of the sending function, bound once more in it to
a call of a function of the module (a method called on `self`, or a function by name) handed that
parameter alone, whose body (one parameter besides `self`) returns that parameter or a copy of it
(`P.copy()`, `dict(P)`, `copy(P)`, `deepcopy(P)`, bound once), writes it only by string keys that
are not breakpoint keys (`R["k"] = ...`, `R.setdefault("k", ...)`, `R.pop("k", ...)`) and hands
it to no call (its entries may be: `convert(R["tools"])`).
"""
from __future__ import annotations

import ast

from .markers import MARKER_KEYS
from .walk import subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_COPIES = ("copy", "dict", "deepcopy")
_WRITES = ("setdefault", "pop")


def through_helper(module, func, node) -> bool:
    """True for the shape of the module docstring: `node` (passed as `**node`) is `func`'s
    `**kwargs` rebound once to a pass-through helper of `module` handed it."""
    if module is None or not isinstance(func, _FUNCS) or func.args.kwarg is None or not isinstance(node, ast.Name):
        return False
    param = func.args.kwarg.arg
    if node.id != param:
        return False
    binds = [n for n in subtree(func) if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr))
             and any(isinstance(t, ast.Name) and t.id == param for t in _targets(n))]
    if len(binds) != 1 or not isinstance(binds[0], ast.Assign):
        return False
    call = binds[0].value
    if not isinstance(call, ast.Call) or call.keywords or len(call.args) != 1 \
            or not (isinstance(call.args[0], ast.Name) and call.args[0].id == param):
        return False
    name = call.func.attr if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) \
        and call.func.value.id == "self" else call.func.id if isinstance(call.func, ast.Name) else None
    helpers = [f for f in _functions(module) if f.name == name]
    return len(helpers) == 1 and _passes_through(helpers[0])


def _functions(module):
    for node in module.tree.body:
        if isinstance(node, _FUNCS):
            yield node
        elif isinstance(node, ast.ClassDef):
            yield from (item for item in node.body if isinstance(item, _FUNCS))


def _targets(node) -> list:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return [n for t in targets for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]


def _passes_through(helper) -> bool:
    """True when `helper` returns its one parameter (besides `self`), or a copy of it bound once,
    written only by string keys that are not breakpoint keys and handed to no call."""
    params = [a.arg for a in (*helper.args.posonlyargs, *helper.args.args)]
    params = params[1:] if params[:1] in (["self"], ["cls"]) else params
    if len(params) != 1 or helper.args.kwonlyargs or helper.args.vararg or helper.args.kwarg:
        return False
    param = params[0]
    returns = [n for n in subtree(helper) if isinstance(n, ast.Return)]
    if len(returns) != 1 or not isinstance(returns[0].value, ast.Name):
        return False
    result = returns[0].value.id
    binds = [n for n in subtree(helper) if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr))
             and any(isinstance(t, ast.Name) and t.id == result for t in _targets(n))]
    if binds and (len(binds) != 1 or not isinstance(binds[0], ast.Assign) or not _copy_of(binds[0].value, param)):
        return False  # (the parameter itself, or one copy of it: `kwargs = kwargs.copy()`)
    if not binds and result != param:
        return False
    if result != param and any(isinstance(n, ast.Name) and n.id == param and isinstance(n.ctx, ast.Store)
                               for n in subtree(helper)):
        return False
    return all(_harmless(use, parents) for use, parents in _uses(helper, result))


def _copy_of(value, param: str) -> bool:
    """`P.copy()`, `dict(P)`, `copy(P)`, `copy.copy(P)`, `deepcopy(P)`."""
    if not isinstance(value, ast.Call) or value.keywords:
        return False
    if isinstance(value.func, ast.Attribute) and value.func.attr == "copy" and not value.args:
        return isinstance(value.func.value, ast.Name) and value.func.value.id == param
    name = value.func.attr if isinstance(value.func, ast.Attribute) else getattr(value.func, "id", None)
    return name in _COPIES and len(value.args) == 1 and isinstance(value.args[0], ast.Name) \
        and value.args[0].id == param


def _uses(helper, name: str):
    """(a load of `name`, its parent) in `helper`."""
    parents = {child: node for node in subtree(helper) for child in ast.iter_child_nodes(node)}
    for node in subtree(helper):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            yield node, parents


def _harmless(use, parents) -> bool:
    """A use that reads an entry, writes one by a string key that is no breakpoint key, tests a
    key, or returns the mapping."""
    parent = parents.get(use)
    if isinstance(parent, (ast.Return, ast.Compare)):
        return True
    if isinstance(parent, ast.Subscript) and parent.value is use:
        key = parent.slice
        return isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value not in MARKER_KEYS
    if isinstance(parent, ast.Attribute) and parent.value is use:
        call = parents.get(parent)
        if parent.attr in ("get", "copy", "keys", "items"):
            return True  # (a read, or the copy the helper returns)
        if parent.attr in _WRITES and isinstance(call, ast.Call) and call.args:
            key = call.args[0]
            return isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value not in MARKER_KEYS
    return False
