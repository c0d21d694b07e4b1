"""A fresh id made for a message each time it is converted for a request: facts for PRM103.

A function that converts one message of the conversation into a provider's format (its parameter
is the message: annotated as a message class, `msg: ChatMessage`, or named `msg` / `message`) and
puts a value new on every call (`uuid.uuid4()`, a random value; `classify.UNIQUE_ID_CALLS`) in what
it returns (`return {"id": str(uuid4()), ...}`, an item appended to the list it returns, also as
the default of a lookup: `part.extra.get("id", str(uuid.uuid4()))`) gives an old message another
id every time the history is converted again, on every request: the prefix breaks at the first
such message. An id stored on the message (`msg.id = msg.id or uuid4()`) is made once and is
stable; a function that makes a message (its parameter is a response, not a message) makes it
once too.
"""
from __future__ import annotations

import ast
import re

from .module import statements
from .. import classify
from .walk import own_nodes, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: Parameter names of one message.
_MESSAGE_NAMES = {"msg", "message", "chat_message", "m"}
#: An annotation naming a message class (`ChatMessage`, `Message`, `BaseMessage`), not a provider's
#: parameter type (`ChatCompletionMessageParam`).
_MESSAGE_TYPE = re.compile(r"(?:^|\.)\w*Message$")
#: The text of a function of one message (`def to_api(msg: ChatMessage)`, `def convert(self,
#: message)`): a module without one is not walked (bounded repetition: linear).
CONVERTS_MESSAGE = re.compile(r"def[ \t]{1,8}\w{1,60}\((?:(?:self|cls),[ \t]{0,4})?"
                              r"(?:msg|message|chat_message|m\b|\w{1,40}:[ \t]{0,4}[\"']?[\w.]{0,60}Message\b)")


def find_fresh_ids(module) -> list[tuple[ast.Call, str, str]]:
    """Each id call made in a message converter's result (see the module docstring), as (the
    call, the function's name, the message parameter's name); one per function."""
    if not any(head in module.source for head in ("uuid", "random", "secrets", "ulid", "nanoid", "ObjectId")) \
            or CONVERTS_MESSAGE.search(module.source) is None:
        return []
    out = []
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        param = _message_param(func)
        if param is None:
            continue
        own = _own(func)
        returned = {n.id for r in own if isinstance(r, ast.Return) and r.value is not None
                    for n in subtree(r.value) if isinstance(n, ast.Name)}
        parents = {id(c): p for p in own for c in ast.iter_child_nodes(p)}
        for call in sorted((n for n in own if isinstance(n, ast.Call)), key=lambda c: (c.lineno, c.col_offset)):
            if module.qualified_name(call.func) not in classify.UNIQUE_ID_CALLS:
                continue
            if _into_result(call, parents, own, returned, param):
                out.append((call, func.name, param))
                break
    return out


def _message_param(func) -> str | None:
    """The name of the function's one message parameter (the first after `self` / `cls`), or None."""
    args = [*func.args.posonlyargs, *func.args.args]
    if args and args[0].arg in ("self", "cls"):
        args = args[1:]
    if len(args) != 1:
        return None
    a = args[0]
    ann = ast.unparse(a.annotation) if a.annotation is not None else ""
    if ann:
        return a.arg if _MESSAGE_TYPE.search(ann.strip("'\"")) else None
    return a.arg if a.arg in _MESSAGE_NAMES else None


def _own(func) -> list[ast.AST]:
    """The nodes of a function's body statements, not those of functions nested in it."""
    return own_nodes(func, body_only=True)


def _into_result(call, parents: dict, own: list, returned: set[str], param: str) -> bool:
    """True when the value of `call` goes into what the function returns: its statement returns
    it, appends it to (or extends) a list the function returns, or assigns it to a name the
    function returns, itself or through local names it is assigned to first (`call_id = ...`,
    then `block = {"id": call_id}`); never when it is stored on the message (`msg.id = ...`)."""
    todo, seen = [call], set()
    while todo:
        node = todo.pop()
        while id(node) in parents and not isinstance(node, ast.stmt):
            node = parents[id(node)]
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, ast.Return):
            return True
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Attribute):
            f = node.value.func
            if f.attr in ("append", "extend", "insert") and isinstance(f.value, ast.Name) and f.value.id in returned:
                return True
        if isinstance(node, ast.Assign) and len(seen) <= 4:
            if any(isinstance(n, ast.Name) and n.id == param for t in node.targets for n in subtree(t)):
                continue  # stored on the message: made once
            if any(isinstance(t, ast.Name) and t.id in returned for t in node.targets):
                return True
            names = {t.id for t in node.targets if isinstance(t, ast.Name)}
            todo.extend(n for n in own if isinstance(n, ast.Name) and n.id in names and isinstance(n.ctx, ast.Load)
                        and (n.lineno, n.col_offset) > (node.lineno, node.col_offset))
    return False
