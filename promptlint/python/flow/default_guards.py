"""A function that returns early when a parameter is left at its default None, read for a call
that leaves it so.

    def get_messages(self, limit=None):
        if limit is None:
            return self._messages
        return self._messages[-limit:]

Called without `limit` (`state.get_messages()`), it returns `self._messages`: the rest of the body
cannot run (with `limit` None, `self._messages[-limit:]` would raise). Only a first statement (after
a docstring) `if p is None: return X` with no `else` is read so, for a parameter whose default is
the constant None and that the call leaves unbound.
"""
from __future__ import annotations

import ast


def early_return(func, defaults: list[tuple[str, ast.expr]]) -> tuple[str, ast.expr] | None:
    """(parameter, returned expression) of a function whose first statement is `if p is None:
    return X` (no else) on a parameter `p` whose default is None, else None. `defaults`: the
    function's (parameter, default expression) pairs, as calls bind them (calls._signature)."""
    body = list(func.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    stmt = body[0] if body else None
    test = stmt.test if isinstance(stmt, ast.If) else None
    if not (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Is) and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value is None and not stmt.orelse and len(stmt.body) == 1
            and isinstance(stmt.body[0], ast.Return) and stmt.body[0].value is not None):
        return None
    name = test.left.id
    default = dict(defaults).get(name)
    if not (isinstance(default, ast.Constant) and default.value is None):
        return None
    return name, stmt.body[0].value
