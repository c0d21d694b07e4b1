"""A request dict threaded through a chain of step functions, each editing it in turn
(`kwargs = add_history(self, add_recall(self, kwargs))`, or `kwargs = add_recall(self, kwargs)`
then `kwargs = add_history(self, kwargs)`): what the steps its callers run after a given one
write into it.

A step is a function of the project that takes the dict as a parameter and returns that same
parameter (`return kwargs`). Its callers hand what it returns to the next step: the call is an
argument of the next step's call, or it is bound to a name that the next call of the function
takes. `later_prepends(finder, func, param, key)` gives the lists those later steps put in
front of the list under `key` (`kwargs["messages"] = history + kwargs["messages"]`, in the step
or a helper it hands the dict to): a message a step puts at the head of that list is then not at
the head of the request. Only lists that name the conversation (their expression or the
assignment that makes them: `history_items`, `_sanitize_history(messages)`) count: a pipeline
that prepends a stored conversation to the caller's messages takes the caller's list for the
newest turn. Facts only; the layouts that use them are built by the callers (message_candidates,
sites).
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from .flow.binding_syntax import param_names
from ..model import Kind, Segment, Volatility
from .walk import subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: The words of an expression that name a conversation (a word of an identifier split at `_`).
_CONVERSATION = re.compile(r"(?i)messag|histor|conversation|dialog|transcript|turns")
#: Words that say a list holds instructions, not the conversation (`system_messages`).
_NOT_CONVERSATION = re.compile(r"(?i)system|instruction|prompt|example|shot")
MAX_SITES = 4  # call sites of a step read for the step after it
MAX_DEPTH = 2  # helpers the next step hands the dict on to, followed


@dataclass(frozen=True)
class Prepend:
    """A list a later step puts in front of the dict's list under a key: `module`, the
    assignment `node` and the prepended expression `added` (`X` of `d[key] = X + d[key]`)."""

    module: object
    node: ast.Assign
    added: ast.expr
    key: str


def key_read(node, func) -> tuple[str, str] | None:
    """(parameter, key) when `node` reads the entry `key` of a parameter of `func`
    (`kwargs["messages"]`, `kwargs.get("messages", [])`), or is a local name bound once to such
    a read (`messages = kwargs.get("messages", [])`); else None."""
    if isinstance(node, ast.Name) and func is not None:
        bound = [n.value for n in subtree(func) if isinstance(n, ast.Assign) and len(n.targets) == 1
                 and isinstance(n.targets[0], ast.Name) and n.targets[0].id == node.id]
        return _entry(bound[0], func) if len(bound) == 1 else None
    return _entry(node, func)


def _entry(node, func) -> tuple[str, str] | None:
    if isinstance(node, ast.Subscript):
        owner, key = node.value, node.slice
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args:
        owner, key = node.func.value, node.args[0]
    else:
        return None
    if not (isinstance(owner, ast.Name) and isinstance(key, ast.Constant) and isinstance(key.value, str)):
        return None
    return (owner.id, key.value) if func is not None and owner.id in param_names(func) else None


def returns_param(func, param: str) -> bool:
    """True when every `return` of `func` with a value returns the parameter `param` (at least one)."""
    values = [n.value for n in subtree(func) if isinstance(n, ast.Return) and n.value is not None]
    return bool(values) and all(isinstance(v, ast.Name) and v.id == param for v in values)


def later_prepends(finder, func, param: str, keys: tuple[str, ...]) -> list[Prepend]:
    """The lists the steps run after the step `func` (of the finder's module) put in front of
    the list under one of `keys` of the dict it returns (its parameter `param`), when they name
    the conversation (module doc); [] when `func` is no step or no later step prepends one.
    Computed once per (function, parameter, keys) in the analysis of a module."""
    if not isinstance(func, _FUNCS) or not returns_param(func, param):
        return []
    memo = finder.m._pieces.setdefault("later prepends", {})
    found = memo.get((id(func), param, keys))
    if found is None:
        found = memo[(id(func), param, keys)] = _later(finder, func, keys)
    return found


def _later(finder, func, keys: tuple[str, ...]) -> list[Prepend]:
    found: list[Prepend] = []
    for module, call, caller in _sites(finder, func):
        for nxt, arg in _next_calls(call, caller):
            target = finder.ev.eval(nxt.func, finder.ev.module_frame(module))
            node = getattr(target, "node", None)
            if isinstance(node, _FUNCS) and node is not func:
                name = _param_for(node, nxt, arg, method=getattr(target, "cls", None) is not None)
                if name is not None:
                    found.extend(_prepends(finder, target.module, node, name, keys, 0))
    return found


def _sites(finder, func) -> list:
    """(module, call, enclosing function) of the calls of the module-level function `func`: in its
    module and in the others of its package tree that call it (flow/callers.py)."""
    from .flow.callers import calls_named, foreign_modules
    from .flow.values import Func
    module = finder.m
    if func not in module.functions.values():
        return []
    sites = [(module, c, f) for c, f, _ in calls_named(module, func.name, ("",)) if f is not None]
    others = foreign_modules(finder.ev, module, func.name, MAX_SITES) or []
    for other in others:
        for call, caller, _ in calls_named(other, func.name):
            value = finder.ev.eval(call.func, finder.ev.module_frame(other))
            if caller is not None and isinstance(value, Func) and value.node is func:
                sites.append((other, call, caller))
    return sites[:MAX_SITES]


def _next_calls(call: ast.Call, caller) -> list[tuple[ast.Call, ast.expr]]:
    """The calls that take what `call` returns next: the call it is an argument of, or, when it
    is bound to a name (`kwargs = step(kwargs)`), the first later call that takes that name."""
    out = []
    bound = None
    for node in subtree(caller):
        if isinstance(node, ast.Call) and any(a is call for a in (*node.args, *(k.value for k in node.keywords))):
            out.append((node, call))
        if isinstance(node, ast.Assign) and node.value is call and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            bound = node.targets[0].id
    if bound is not None:
        after = [n for n in subtree(caller) if isinstance(n, ast.Call) and (n.lineno, n.col_offset) > (call.lineno, call.col_offset)
                 and n is not call]
        for node in sorted(after, key=lambda n: (n.lineno, n.col_offset)):
            arg = next((a for a in (*node.args, *(k.value for k in node.keywords))
                        if isinstance(a, ast.Name) and a.id == bound), None)
            if arg is not None:
                out.append((node, arg))
                break
    return out


def _param_for(func, call: ast.Call, arg: ast.expr, method: bool) -> str | None:
    """The parameter of `func` that `arg` of `call` binds (by place or keyword)."""
    for k in call.keywords:
        if k.value is arg:
            return k.arg
    names = [p.arg for p in (*func.args.posonlyargs, *func.args.args)]
    if method and names:
        names = names[1:]
    for i, a in enumerate(call.args):
        if a is arg:
            return names[i] if i < len(names) and not isinstance(a, ast.Starred) else None
    return None


def _prepends(finder, module, func, param: str, keys: tuple[str, ...], depth: int) -> list[Prepend]:
    """`param[key] = X + <the list under key>` (a key of `keys`) in `func`, or in a function of the
    project it hands `param` to (up to `MAX_DEPTH` deep), with `X` naming the conversation."""
    out = []
    for node in subtree(func):
        entry = _entry(node.targets[0], func) if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
        if entry is not None and entry[0] == param and entry[1] in keys \
                and isinstance(node.value, ast.BinOp) and isinstance(node.value.op, ast.Add) \
                and _reads_entry(node.value.right, func, param, entry[1]) and _names_conversation(node.value.left, func):
            out.append(Prepend(module, node, node.value.left, entry[1]))
        elif isinstance(node, ast.Call) and depth < MAX_DEPTH and isinstance(node.func, ast.Name):
            arg = next((a for a in node.args if isinstance(a, ast.Name) and a.id == param), None)
            if arg is None:
                continue
            target = finder.ev.eval(node.func, finder.ev.module_frame(module))
            inner = getattr(target, "node", None)
            if isinstance(inner, _FUNCS) and inner is not func:
                name = _param_for(inner, node, arg, method=False)
                if name is not None:
                    out.extend(_prepends(finder, target.module, inner, name, keys, depth + 1))
    return out


def _reads_entry(node, func, param: str, key: str) -> bool:
    """`node` reads `param[key]` (directly, or a local name assigned such a read in one of its
    branches: `existing = kwargs.get("input")`)."""
    if _entry(node, func) == (param, key):
        return True
    if isinstance(node, ast.Name):
        return any(isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                   and n.targets[0].id == node.id and _entry(n.value, func) == (param, key) for n in subtree(func))
    return False


def _names_conversation(node, func) -> bool:
    """The expression, or for a local name one of the values it is assigned, names the conversation
    and none of them names instructions (`system_messages + kwargs["messages"]` is no history)."""
    texts = [ast.unparse(node)]
    if isinstance(node, ast.Name):
        texts += [ast.unparse(n.value) for n in subtree(func) if isinstance(n, ast.Assign) and len(n.targets) == 1
                  and isinstance(n.targets[0], ast.Name) and n.targets[0].id == node.id]
    return any(_CONVERSATION.search(t) for t in texts) and not any(_NOT_CONVERSATION.search(t) for t in texts)


def put_ahead(finder, target, frame):
    """The history segment of the conversation a later step puts in front of the list `target`
    (a parameter dict's entry, or a local bound to one, in the step of `frame`), else None."""
    func = getattr(frame, "func", None)
    read = key_read(target, func)
    if read is None:
        return None
    found = later_prepends(finder, func, read[0], (read[1],))
    return history_of(found[0], read) if found else None


def history_of(first: Prepend, read: tuple[str, str], note: str = "a later step puts the conversation before it here"):
    """The history segment of the conversation a later step prepends (`first`) to `read`, the
    (parameter, key) of the dict's list; `note` says where it lands (`Segment.origin_note`)."""
    return Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, expr=first.module.code(first.added),
                   span=first.module.span(first.added), origin=first.module.span(first.node),
                   origin_note=note,
                   evidence=f"the conversation a later step puts before `{read[0]}[{read[1]!r}]`")
