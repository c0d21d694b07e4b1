"""System messages of anywhere in a conversation moved before it: facts for PRM105.

An adapter that converts a conversation for the Responses API walks every message and takes the
text of each system message out of the list into `instructions`:

    for message in messages:
        if message["role"] == "system":
            instructions_parts.append(text)
            continue
        items.append(...)

The field comes before every input item. A system message added later in the conversation (a
notice, a per-turn context message) is then moved in front of the whole history: the head of
the request changes on the turn it is added, and every turn's history is read uncached from then
on. Folding only the leading system messages (the walk stops at the first other message) keeps
the conversation's order and is not this shape.

Found when one loop over messages tests the item's role for "system" and, in that branch, adds
the text to a name of the Responses API's instructions (a name with `instruction` in it and not
`system`: appended, joined, assigned) and skips the item (`continue`, or the other messages go to
another list in the `else`), and no branch of the loop stops it (`break`). The Responses API
takes system and developer messages among its input items, so the move is the adapter's choice;
Anthropic's `system` and Gemini's `system_instruction` have no place in the messages, and an
adapter for them must move system messages out: those are left out.
"""
from __future__ import annotations

import ast
from .module import statements
from .text_gates import holds_any
from .walk import subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _is_system_test(test, item: str) -> bool:
    """`m.role == "system"`, `m["role"] == "system"`, `role == "system"` (role read from the item)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.In))):
        return False
    sides = [test.left, *test.comparators]
    names_system = any(isinstance(s, ast.Constant) and s.value == "system" for s in sides) or any(
        isinstance(s, (ast.Tuple, ast.List, ast.Set)) and any(
            isinstance(e, ast.Constant) and e.value == "system" for e in s.elts) for s in sides)
    return names_system and any(_role_of(s, item) for s in sides)


def _role_of(node, item: str) -> bool:
    if isinstance(node, ast.Attribute) and node.attr == "role":
        return isinstance(node.value, ast.Name) and node.value.id == item
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == "role":
        return isinstance(node.value, ast.Name) and node.value.id == item
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args \
            and isinstance(node.args[0], ast.Constant) and node.args[0].value == "role":
        return isinstance(node.func.value, ast.Name) and node.func.value.id == item
    return isinstance(node, ast.Name) and node.id == "role"


def _field_written(body) -> ast.AST | None:
    """The call or assignment of a branch that adds text to the system field, or None."""
    for stmt in body:
        for n in subtree(stmt):
            target = None
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend"):
                target = n.func.value
            elif isinstance(n, (ast.Assign, ast.AugAssign)):
                target = n.targets[0] if isinstance(n, ast.Assign) else n.target
            name = target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) \
                else ""
            if name and "instruction" in name.lower() and "system" not in name.lower():
                return n
    return None


def _skips(branch, other) -> bool:
    """True when the system branch skips the item (`continue`) or the other messages are kept in
    the `else` branch."""
    return any(isinstance(s, ast.Continue) for s in branch) or bool(other)


def find_system_hoists(module) -> list[tuple[ast.AST, str]]:
    """(the call or assignment that adds a system message's text to the field, the function's name) for
    each loop of the shape in the module docstring, in source order."""
    out = []
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        if not holds_any(module, func, ("for",)):
            continue  # (a loop: the cheap test before the function's walk)
        for loop in subtree(func):
            if not isinstance(loop, (ast.For, ast.AsyncFor)) or not isinstance(loop.target, ast.Name):
                continue
            if any(isinstance(n, ast.Break) for n in subtree(loop)):
                continue  # only the leading system messages, or a search
            item = loop.target.id
            for stmt in loop.body:
                if isinstance(stmt, ast.If) and _is_system_test(stmt.test, item) and _skips(stmt.body, stmt.orelse):
                    written = _field_written(stmt.body)
                    if written is not None:
                        out.append((written, func.name))
                        break
    return sorted(out, key=lambda f: (f[0].lineno, f[0].col_offset))
