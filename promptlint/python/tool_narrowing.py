"""A caller's tool set replaced after a request that sent it: facts for PRM204 (the rule judges them).

A function handed an object that holds the tools (`runtime`, a parameter other than `self`) sends a
request whose tools are read from that object (`tools=[to_openai(t) for t in runtime.functions.values()]`,
directly or through a local name), then replaces or edits that same set on it: a method of the
object named for the set (`runtime.update_functions(chosen)`, `runtime.set_tools(...)`), an
assignment (`runtime.functions = chosen`), or a call that grows or removes entries
(`runtime.functions.pop(name)`); not one that puts back a copy taken before
(`saved = runtime.functions`, ..., `runtime.functions = saved`). The object is the caller's: the requests the caller sends after
this one (the next step of a pipeline, the next turn) carry another tool set than the one this
request sent, so the tool definitions, which come first in the cached prefix, differ between
requests of one conversation (a tool filter that narrows the tools by a first request's answer).

The set is known by its use (the request sent it as its tools), not by its name. Whether the
caller sends more requests of the same conversation with the object is not followed here: info.
"""
from __future__ import annotations

import ast

from .module import Module, attribute_chain, callee_name, statements
from .toolsets import ToolChange, own_nodes, request_calls

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_TOOL_KEYWORDS = ("tools", "functions")
_EDITS = ("append", "extend", "insert", "update", "pop", "remove", "clear", "setdefault")
#: Verbs of a method that replaces a set it is named for (`update_functions`, `set_tools`).
_REPLACE_VERBS = ("update", "set", "replace", "filter", "restrict", "select", "narrow")


def find_narrowed_tools(module: Module, memo: dict | None = None) -> list[ToolChange]:
    """Each function's first change, after a request, of the tool set that request read from an
    object the function is handed (see the module docstring), as a `ToolChange` of shape
    "narrowed" (`before`: the request)."""
    if "tools=" not in module.source and "functions=" not in module.source:
        return []
    out = []
    for func in statements(module.tree):
        if not isinstance(func, _FUNCS):
            continue
        params = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)} - {"self", "cls"}
        a, b = module.offsets(func)
        if not params or module.source.find("tools=", a, b) == -1 and module.source.find("functions=", a, b) == -1:
            continue  # (its text passes no tools: not walked)
        nodes = own_nodes(func, memo)
        for send in request_calls(nodes):
            held = _sent_sets(send, nodes, params)
            change = next((n for n in nodes if _key(n) > _key(send) and _changes(n, held)
                           and not _restores(n, nodes, held)), None) if held else None
            if change is not None:
                target = next(h for h in held if _changes(change, {h}))
                out.append(ToolChange(change, ".".join(target), func.name, "narrowed", send))
                break
    return out


def _key(node) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def _sent_sets(send: ast.Call, nodes: list, params: set[str]) -> set[tuple[str, ...]]:
    """The attributes of a handed object (`("runtime", "functions")`) that the request's tools
    keyword reads, directly or through local names assigned before the request (two steps)."""
    values = [k.value for k in send.keywords if k.arg in _TOOL_KEYWORDS]
    assigned = {}
    for n in nodes:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                and _key(n) < _key(send):
            assigned[n.targets[0].id] = n.value
    out: set[tuple[str, ...]] = set()
    for _ in range(3):
        more = []
        for value in values:
            for n in ast.walk(value):
                if isinstance(n, ast.Attribute):
                    chain = tuple(attribute_chain(n))
                    if len(chain) == 2 and chain[0] in params:
                        out.add(chain)
                elif isinstance(n, ast.Name) and n.id in assigned:
                    more.append(assigned.pop(n.id))
        values = more
    return out


def _changes(node, held: set[tuple[str, ...]]) -> bool:
    """True when `node` replaces or edits one of the `held` sets: `obj.update_<attr>(...)` (a verb
    of `_REPLACE_VERBS` and the attribute's name), `obj.attr = ...`, `obj.attr.pop(...)`."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        chain = tuple(attribute_chain(node.func.value))
        name = callee_name(node)
        for owner, attr in held:
            if chain == (owner,) and attr in name and name.split("_")[0] in _REPLACE_VERBS and node.args:
                return True
            if chain == (owner, attr) and name in _EDITS:
                return True
    if isinstance(node, (ast.Assign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(isinstance(t, ast.Attribute) and tuple(attribute_chain(t)) in held for t in targets)
    return False


def _restores(node, nodes: list, held: set[tuple[str, ...]]) -> bool:
    """True when the change puts back a name assigned one of the `held` sets before it (`saved =
    runtime.functions`, then `runtime.functions = saved` or `runtime.update_functions(saved)`)."""
    value = node.args[0] if isinstance(node, ast.Call) and node.args else getattr(node, "value", None)
    if not isinstance(value, ast.Name):
        return False
    return any(isinstance(n, ast.Assign) and _key(n) < _key(node) and any(
        isinstance(t, ast.Name) and t.id == value.id for t in n.targets)
        and isinstance(n.value, ast.Attribute) and tuple(attribute_chain(n.value)) in held for n in nodes)
