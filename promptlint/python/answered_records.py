"""A message list written as a record of a finished exchange, not as a request: the list a
function completes with the assistant's answer taken from its data and then only keeps (returns
it, stores it in a dict, writes it out), as a converter of supervised fine-tuning data does:

    messages = [{"role": "system", "content": self.instruction},
                {"role": "user", "content": str(content)},
                {"role": "assistant", "content": content.get("output", "")}]
    data[self.output_key] = {"messages": messages}      # a dataset row, never sent

A request ends with what the model is asked to answer (the newest user message, a tool result),
or with a prefill the code writes (`{"role": "assistant", "content": "{"}`), and a list sent
through a wrapper is handed to a call. So the list is a record when, after its last user message,
the code writes an assistant message whose content holds no text of its own (absent, None, "",
or a value read from the data) and is no model's reply read from a response, and the list's name
is handed to no call of the function (but `json.dumps`, which writes it as data).

Shapes: `answered_record(func, node) -> bool` (`node`: the statement that binds the list, or
its display); `in_answered_record(func, message) -> bool` (`message`: a dict display, one of
the messages of such a list: its system message is no candidate of its own either).
"""
from __future__ import annotations

import ast
import re

from .walk import subtree

#: A response's message or content read off a model's reply (as `turn_replies` reads it).
_REPLY = re.compile(r"\.choices\b|\[\s*['\"]choices['\"]\s*\]|\.candidates\b|\.content\s*\[|\.message\.content\b")
#: Calls that take a record as data (a row written out), not as a request.
_DATA_CALLS = {"dumps", "dump", "len", "list", "deepcopy", "copy"}
_GROW = {"append", "extend", "insert"}


def answered_record(func, node) -> bool:
    """True when the message list bound or displayed at `node` in `func` is a record of a finished
    exchange (module docstring); False when anything says it may be sent or is not known."""
    if func is None:
        return False
    name, display = _bound(node)
    if display is None:
        return False
    written = [(el.lineno, el.col_offset, el) for el in display.elts if isinstance(el, ast.Dict)]
    if name is not None:
        for n in subtree(func):
            if isinstance(n, ast.Call) and _grows(n, name):
                for arg in n.args[-1:]:
                    items = arg.elts if isinstance(arg, (ast.List, ast.Tuple)) else [arg]
                    written.extend((d.lineno, d.col_offset, d) for d in items if isinstance(d, ast.Dict))
            elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id == name \
                    and isinstance(n.value, (ast.List, ast.Tuple)):
                written.extend((d.lineno, d.col_offset, d) for d in n.value.elts if isinstance(d, ast.Dict))
        if _handed(func, name):
            return False
    written.sort(key=lambda w: (w[0], w[1]))
    roles = [(_role(d), d) for _, _, d in written]
    last_user = max((i for i, (role, _) in enumerate(roles) if role == "user"), default=None)
    if last_user is None:
        return False
    return any(role == "assistant" and _answer(d) for role, d in roles[last_user + 1:])


def in_answered_record(func, message: ast.AST) -> bool:
    """True when the dict display `message` is an element of a list display of `func` (bound to a
    name, or not) that `answered_record` finds to be a record."""
    if func is None:
        return False
    for n in subtree(func):
        if isinstance(n, (ast.Assign, ast.AnnAssign)) and isinstance(n.value, (ast.List, ast.Tuple)) \
                and any(el is message for el in n.value.elts):
            return answered_record(func, n)
    return False


def _bound(node) -> tuple[str | None, ast.List | ast.Tuple | None]:
    """(the local name, the list display) of `name = [...]`, or (None, the display) of a display."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return None, node
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, (ast.List, ast.Tuple)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if len(targets) == 1 and isinstance(targets[0], ast.Name):
            return targets[0].id, node.value
    return None, None


def _grows(call: ast.Call, name: str) -> bool:
    f = call.func
    return isinstance(f, ast.Attribute) and f.attr in _GROW and isinstance(f.value, ast.Name) and f.value.id == name


def _handed(func, name: str) -> bool:
    """True when `name` is an argument of a call of `func` other than its own growth and the
    calls that take it as data (`_DATA_CALLS`)."""
    for n in subtree(func):
        if not isinstance(n, ast.Call) or _grows(n, name):
            continue
        callee = n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id if isinstance(n.func, ast.Name) else ""
        if callee in _DATA_CALLS:
            continue
        for arg in [*n.args, *(k.value for k in n.keywords)]:
            if isinstance(arg, ast.Starred):
                arg = arg.value
            if isinstance(arg, ast.Name) and arg.id == name:
                return True
    return False


def _role(d: ast.Dict) -> str | None:
    for k, v in zip(d.keys, d.values):
        if isinstance(k, ast.Constant) and k.value == "role":
            if isinstance(v, ast.Constant) and isinstance(v.value, str):
                return v.value.lower()
            if isinstance(v, ast.Attribute):
                return v.attr.lower()
            return None
    return None


def _answer(d: ast.Dict) -> bool:
    """True for an assistant message whose content holds no text the code writes (absent, None,
    "", a value read from data) and reads no model's reply."""
    content = next((v for k, v in zip(d.keys, d.values) if isinstance(k, ast.Constant) and k.value == "content"), None)
    if content is None:
        return True
    if isinstance(content, ast.Constant):
        return content.value is None or (isinstance(content.value, str) and not content.value.strip())
    if any(isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.strip() and not _key(n, content)
           for n in subtree(content)):
        return False  # text written in the code (a prefill: `f"```{lang}\n"`)
    return not _REPLY.search(ast.unparse(content))


def _key(node: ast.Constant, content) -> bool:
    """True when the string `node` is a key read off data (`msg.get("content", "")`, `x["output"]`)."""
    for n in subtree(content):
        if isinstance(n, ast.Subscript) and n.slice is node:
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "get" and node in n.args:
            return True
    return False
