"""Whether a call sends a request, and whether two calls of a function can both run in one pass.

Facts for the rules that compare two requests of one conversation (PRM204): a call is a
request when its callee is an SDK call shape's method (`client.chat.completions.create`) or is
named for sending (`self._chat_completion`, `llm.invoke`, `send_chat`), or is a function of the
module whose own body makes such a call (`self._ask(...)` where `def _ask(...)` calls
`client.chat.completions.create`). A class called by its name (`OpenAIMessages(messages=...,
tools=None)`, a capitalised last name) makes a record, not a request. Two calls in different
branches of one `if`/`else` (or `a if test else b`) never both run in one pass of the function,
unless that `if` is inside a loop that carries the conversation from one turn to the next.
"""
from __future__ import annotations

import ast
import re

from . import sdks
from .walk import own_nodes, statements

#: Words of a callee's last name that say it sends a request with what it is given.
_SEND_WORDS = {"completion", "completions", "acompletion", "chat", "achat", "create", "acreate", "invoke",
               "ainvoke", "complete", "acomplete", "generate", "agenerate", "send", "stream", "astream",
               "request", "ask", "query", "call"}
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def _last_name(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _named_send(call: ast.Call) -> bool:
    """True for an SDK call shape's method or a callee whose last name has a word of sending
    (snake_case and camelCase words); never a capitalised name (a class: a record is made)."""
    name = _last_name(call)
    if not name or name.lstrip("_")[:1].isupper():
        return False
    if sdks.shapes_for(name):
        return True
    return bool(set(re.findall(r"[a-z]+", re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name).lower())) & _SEND_WORDS)


def sending_functions(module) -> set[str]:
    """The names of the module's functions and methods whose own body makes a request named as
    one (`_named_send`), so that a call of them sends."""
    return {n.name for n in statements(module.tree) if isinstance(n, _FUNCS)
            and any(isinstance(c, ast.Call) and _named_send(c) for c in own_nodes(n, body_only=True))}


def is_send(call: ast.Call, senders: set[str]) -> bool:
    """True when `call` sends a request: named as one, or a call of a function in `senders`
    (`sending_functions`) by its last name; a capitalised callee (a class) never."""
    name = _last_name(call)
    if name.lstrip("_")[:1].isupper():
        return False
    return _named_send(call) or name in senders


def branch_paths(func) -> dict[int, tuple[tuple[int, int, bool], ...]]:
    """id(node) -> the branches of the function's `if`s and conditional expressions the node is
    in, outermost first, each as (id of the `if`, 0 for its body / 1 for its else, the innermost
    loop of the function around the `if` or None). Nodes of nested functions and classes are
    left out."""
    out: dict[int, tuple] = {}
    todo: list = [(s, (), None) for s in func.body]
    while todo:
        node, path, loop = todo.pop()
        out[id(node)] = path
        if isinstance(node, (*_FUNCS, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.If, ast.IfExp)):
            body = node.body if isinstance(node.body, list) else [node.body]
            orelse = node.orelse if isinstance(node.orelse, list) else [node.orelse]
            todo.append((node.test, path, loop))
            todo.extend((c, path + ((id(node), 0, loop),), loop) for c in body)
            todo.extend((c, path + ((id(node), 1, loop),), loop) for c in orelse)
            continue
        inner = node if isinstance(node, _LOOPS) else loop
        todo.extend((c, path, inner) for c in ast.iter_child_nodes(node))
    return out


def _assigns(loop, name: str) -> bool:
    """True when a loop's body binds `name` anew (`messages = []`): each turn starts another list."""
    return any(isinstance(n, (ast.Assign, ast.AnnAssign)) and any(
        isinstance(t, ast.Name) and t.id == name for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))
        for n in own_nodes(loop, body_only=True))


def exclusive(paths: dict, a: ast.AST, b: ast.AST, conversation: str) -> bool:
    """True when `a` and `b` (nodes of the function `paths` was read from, `branch_paths`) sit in
    different branches of one `if`, and no loop around that `if` carries the list named
    `conversation` from one turn to the next (a loop that binds it anew in its body does not)."""
    in_b = {(i, side): loop for i, side, loop in paths.get(id(b), ())}
    for i, side, loop in paths.get(id(a), ()):
        if (i, 1 - side) in in_b and (loop is None or _assigns(loop, conversation)):
            return True
    return False
