"""A message taken out of a list and handed on in the same statement (`pruned.append(messages.pop(0))`,
`log(history.pop(0))`): read by the statement reader (scopes.py) in a `while` loop that runs until a
size fits, where it drops the oldest messages one by one as `messages.pop(0)` alone does (each one
kept to be summarised, logged or counted). Syntax only."""
from __future__ import annotations

import ast


def popped_into(stmt) -> ast.Call | None:
    """The call `name.pop()` / `name.pop(i)` (a plain name, at most one positional argument) that
    an expression statement's call is handed as an argument (`pruned.append(chat_messages.pop(0))`,
    `removed.insert(0, history.pop(0))`, `logger.debug("%s", msgs.pop(0))`), else None. A pop of a
    key (`kwargs.pop("model")`) is none."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return None
    call = stmt.value
    for arg in (*call.args, *(k.value for k in call.keywords)):
        if (isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and arg.func.attr == "pop"
                and isinstance(arg.func.value, ast.Name) and len(arg.args) <= 1 and not arg.keywords
                and not (arg.args and isinstance(arg.args[0], ast.Constant) and isinstance(arg.args[0].value, str))):
            return arg
    return None
