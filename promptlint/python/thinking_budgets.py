"""A thinking budget computed from the request's `max_tokens`: facts for PRM205.

Anthropic's extended thinking takes a budget (`thinking={"type": "enabled", "budget_tokens": N}`)
that counts toward `max_tokens`. An adapter that fits the budget to the caller's `max_tokens`

    budget = min(EFFORT_BUDGETS[effort], params.max_tokens - 1024)
    kwargs["thinking"] = {"type": "enabled", "budget_tokens": budget}

sends a different budget whenever a caller sizes `max_tokens` per call (the room left in the
context window, a step's own limit), and a change of the thinking parameters invalidates the
cache of the messages (platform.claude.com/docs/en/build-with-claude/prompt-caching: "changes to
thinking parameters (enabled/disabled or budget allocation)" invalidate message cache breakpoints):
the conversation is read uncached on the request where it changes, although the effort asked for
did not.

Found where a function writes `budget_tokens` (a dict display's key, a keyword, `d["budget_tokens"]
= v`) with a value that reads `max_tokens` of the call (a name, a field of an object or a dict other
than `self`'s: `params.max_tokens`, `result["max_tokens"]`, `kwargs.get("max_tokens")`; passed to a
helper counts), directly or through one name the function assigns (`budget = min(...)`). A
`max_tokens` of the instance (`self.max_tokens`: its configuration, also through a local name
assigned only from it) or a constant (`MAX_TOKENS`) is not one.
"""
from __future__ import annotations

import ast

from .gated_markers import module_functions
from .walk import subtree

KEY = "budget_tokens"


def might_derive(source: str) -> bool:
    """The cheap test: both words in the module."""
    return KEY in source and "max_tokens" in source


def _root(node) -> ast.AST:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def _per_call_read(node) -> bool:
    """True when `node` is a read of a `max_tokens` that is not the instance's or a constant."""
    if isinstance(node, ast.Name):
        return node.id == "max_tokens"
    if isinstance(node, ast.Attribute) and node.attr == "max_tokens":
        owner = node.value
    elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == "max_tokens":
        owner = node.value
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
            and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value == "max_tokens":
        owner = node.func.value
    else:
        return False
    root = _root(owner)
    return not (isinstance(root, ast.Name) and root.id in ("self", "cls"))


def _reads(value, assigned: dict) -> bool:
    """True when `value` reads the call's `max_tokens`; a local `max_tokens` only when some value
    the function assigns it is not the instance's or a constant (`max_tokens = self.max_tokens`)."""
    for n in subtree(value):
        if not _per_call_read(n):
            continue
        if isinstance(n, ast.Name) and n.id in assigned and not any(
                _reads(stmt.value, {}) or not _settled(stmt.value) for stmt in assigned[n.id]):
            continue
        return True
    return False


def _settled(value) -> bool:
    """A value fixed for the instance: a constant, or read from `self` / `cls`, alone or with a
    default (`self.max_tokens or 4096`)."""
    if isinstance(value, ast.Constant):
        return True
    if isinstance(value, ast.BoolOp):
        return all(_settled(v) for v in value.values)
    root = _root(value)
    return isinstance(root, ast.Name) and (root.id in ("self", "cls") or root.id.isupper())


def _budget_values(func) -> list[ast.AST]:
    """The values a function writes under `budget_tokens`."""
    out = []
    for n in subtree(func):
        if isinstance(n, ast.Dict):
            out += [v for k, v in zip(n.keys, n.values) if isinstance(k, ast.Constant) and k.value == KEY]
        elif isinstance(n, ast.Call):
            out += [kw.value for kw in n.keywords if kw.arg == KEY]
        elif isinstance(n, ast.Assign) and any(
                isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) and t.slice.value == KEY
                for t in n.targets):
            out.append(n.value)
    return out


def thinking_budgets(module) -> list[ast.AST]:
    """Where a thinking budget is computed from the call's `max_tokens` (the expression written
    under the key, or the assignment of the name written there), in source order."""
    found: dict[tuple[int, int], ast.AST] = {}
    for _cls, func in module_functions(module):
        assigned: dict[str, list[ast.Assign]] = {}
        for n in subtree(func):
            if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None:
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                    if isinstance(t, ast.Name):
                        assigned.setdefault(t.id, []).append(n)
        for value in _budget_values(func):
            if _reads(value, assigned):
                found[(value.lineno, value.col_offset)] = value
            elif isinstance(value, ast.Name):
                for stmt in assigned.get(value.id, ()):
                    if _reads(stmt.value, assigned):
                        found[(stmt.lineno, stmt.col_offset)] = stmt
    return [found[k] for k in sorted(found)]
