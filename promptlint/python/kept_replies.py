"""The model's reply written, after the request, into the message list the sending function was
handed: that list is a conversation its callers keep (a fact for PRM302, `PromptLayout.reply_kept`).

    def call_claude(messages, objective):
        messages.append({"role": "user", "content": [screenshot, prompt]})
        response = client.messages.create(model=M, system=messages[0]["content"], messages=messages[1:])
        messages.append({"role": "assistant", "content": response.content[0].text})
        return parse(response)

The function adds the turn and the model's answer to its caller's list, so the caller's next call
sends them again, with every earlier turn: the list grows from call to call, whoever holds it.
What the caller first put in it is all the evaluator sees, but every request after the first
re-sends the conversation.

Found when a keyword of the send call that carries the conversation sends a parameter of the
function (`messages=messages`, `messages=messages[1:]`; not `system=messages[0]["content"]` alone) and a statement of the function after
the call (not in a nested function) appends to that parameter an assistant message: a dict display
with `"role": "assistant"`, or a name the function assigns one (`messages.append(msg)`,
`.extend([msg])`, `+= [msg]`).
"""
from __future__ import annotations

import ast

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
#: Keywords of a send call that carry the conversation.
_SENT_KEYS = ("messages", "contents", "input")


def might_keep(source: str) -> bool:
    """The cheap test: an assistant role written and a list appended to."""
    return "assistant" in source and (".append(" in source or ".extend(" in source or "+=" in source)


def reply_kept(func, call: ast.Call) -> ast.AST | None:
    """The statement of `func` (the sending function) that appends an assistant message, after
    `call`, to a parameter the call sends (module docstring); None when there is none."""
    if not isinstance(func, _FUNCS):
        return None
    params = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)} - {"self", "cls"}
    sent = {r for kw in call.keywords if kw.arg in _SENT_KEYS and (r := _root(kw.value)) in params}
    if not sent:
        return None
    assistant = {t.id for n in _own(func) if isinstance(n, ast.Assign) and _assistant(n.value)
                 for t in n.targets if isinstance(t, ast.Name)}
    end = getattr(call, "end_lineno", call.lineno)
    for node in _own(func):
        if getattr(node, "lineno", 0) <= end:
            continue
        added = _appended(node, sent)
        if added is not None and (_assistant(added) or isinstance(added, ast.Name) and added.id in assistant):
            return node
    return None


def _root(node) -> str | None:
    """The name a subscript chain starts at (`messages[0]["content"]` -> `messages`)."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _own(func):
    """The nodes of the function's body, not those of functions or classes nested in it."""
    stack = list(reversed(func.body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _NESTED):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _assistant(node) -> bool:
    """A dict display with `"role": "assistant"`."""
    return isinstance(node, ast.Dict) and any(
        isinstance(k, ast.Constant) and k.value == "role" and isinstance(v, ast.Constant) and v.value == "assistant"
        for k, v in zip(node.keys, node.values))


def _appended(node, lists: set[str]):
    """The message `node` adds to one of `lists`: `xs.append(m)`, `xs.extend([m])`, `xs += [m]`
    (the last element of a list display); else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
            and node.func.value.id in lists and len(node.args) == 1:
        if node.func.attr == "append":
            return node.args[0]
        if node.func.attr == "extend" and isinstance(node.args[0], ast.List) and node.args[0].elts:
            return node.args[0].elts[-1]
    if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name) \
            and node.target.id in lists and isinstance(node.value, ast.List) and node.value.elts:
        return node.value.elts[-1]
    return None
