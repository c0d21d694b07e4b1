"""A local name that holds a copy of another list: the expression it copies.

A function that edits the conversation it is handed often edits a copy under a name of its own,
then hands the copy on (`updated_messages = list(messages)`, `msgs = history.copy()`,
`new_messages = copy.deepcopy(messages)`, `result = messages[:]`, or only `out = messages`):
the copy holds the same messages in the same order, so a message put at its head sits before the
whole conversation, as it would in `messages` itself. `copied_from` states which expression the
name copies; the readers judge that expression (`handoff.conversation_of`: by its name).

Shape: `copied_from(name, func) -> ast.expr | None`. Only for a name bound once in `func` (an
assignment, annotated or not, and no other binding: no loop target, no augmented assignment, no
second assignment) to one of the shapes above; None otherwise.
"""
from __future__ import annotations

import ast

from .walk import subtree

#: Functions whose result is a copy of their one argument, in the same order (`list(messages)`,
#: `copy.copy(messages)`, `deepcopy(messages)`).
_COPY_FUNCTIONS = frozenset({"list", "copy", "deepcopy"})
#: Methods whose result is a copy of the list they are called on (`messages.copy()`).
_COPY_METHODS = frozenset({"copy"})


def copied_from(name: ast.Name, func) -> ast.expr | None:
    """The expression `name` copies (module docstring), else None."""
    if func is None or not isinstance(name, ast.Name):
        return None
    bound = []
    for n in subtree(func):
        if isinstance(n, ast.Name) and n.id == name.id and isinstance(n.ctx, (ast.Store, ast.Del)):
            bound.append(n)
        elif isinstance(n, ast.arg) and n.arg == name.id:
            return None  # (a parameter of `func` or of a function inside it: not a local copy)
    if len(bound) != 1:
        return None
    value = next((n.value for n in subtree(func) if isinstance(n, (ast.Assign, ast.AnnAssign))
                  and n.value is not None and any(t is bound[0] for t in _targets(n))), None)
    return _copied(value) if value is not None else None


def _targets(node) -> list:
    if isinstance(node, ast.AnnAssign):
        return [node.target]
    return list(node.targets) if len(node.targets) == 1 else []


def _copied(value) -> ast.expr | None:
    """The list `value` copies: itself for a name or an attribute (`self.history`), the argument
    of a copying call, the list a full slice or a lone spread takes; else None."""
    if isinstance(value, (ast.Name, ast.Attribute)):
        return value
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice) and value.slice.lower is None \
            and value.slice.upper is None and value.slice.step is None:
        return value.value  # `messages[:]`
    if isinstance(value, ast.List) and len(value.elts) == 1 and isinstance(value.elts[0], ast.Starred):
        return value.elts[0].value  # `[*messages]`
    if not isinstance(value, ast.Call) or value.keywords:
        return None
    func = value.func
    if isinstance(func, ast.Attribute) and func.attr in _COPY_METHODS and not value.args:
        return func.value  # `messages.copy()`
    copying = isinstance(func, ast.Name) and func.id in _COPY_FUNCTIONS - {"copy"} or (
        isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "copy"
        and func.attr in _COPY_FUNCTIONS)  # (`list(x)`, `deepcopy(x)`, `copy.copy(x)`; a bare `copy(x)` may be anything)
    if copying and len(value.args) == 1 and not isinstance(value.args[0], ast.Starred):
        return value.args[0]
    return None
