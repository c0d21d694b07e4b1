"""Code that takes cache breakpoints out of a conversation or stops adding them (facts for
`kept_marks`): a scope that removes breakpoints (`del b["cache_control"]`, `b.pop("cache_control",
None)`, a filter on the key, a call named to strip them) and a test that stops marking once the
breakpoints counted reach a limit."""
from __future__ import annotations

import ast

from .markers import MARKER_KEYS, words_of

_LOOPS = (ast.For, ast.AsyncFor)

#: Words of a function that removes breakpoints (`strip_cache_control`, `_clear_breakpoints`).
_REMOVE_WORDS = frozenset({"strip", "remove", "clear", "drop", "reset", "unmark", "delete", "clean"})

_MARK_WORDS = frozenset({"cache", "control", "breakpoint", "breakpoints", "marker", "markers", "cachepoint"})


def removes_marks(module, funcs) -> bool:
    """True when one of `funcs` removes cache breakpoints from a block or a message: `del
    b["cache_control"]`, `b.pop("cache_control", None)` (of an item: not a bag of request options
    such as `kwargs.pop("cache_control")`, whose top-level key is no block's), a filter `k !=
    "cache_control"` / `k not in (...)`, a call named to strip or clear them
    (`strip_cache_control(messages)`)."""
    for func in funcs:
        items = {t.id for n in ast.walk(func) if isinstance(n, (*_LOOPS, ast.comprehension))
                 for t in ast.walk(n.target) if isinstance(t, ast.Name)}
        for n in ast.walk(func):
            if isinstance(n, ast.Delete) and any(isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant)
                                                 and t.slice.value in MARKER_KEYS and _an_item(t.value, items)
                                                 for t in n.targets):
                return True
            if isinstance(n, ast.Call):
                f = n.func
                if isinstance(f, ast.Attribute) and f.attr == "pop" and n.args and isinstance(n.args[0], ast.Constant) \
                        and n.args[0].value in MARKER_KEYS and _an_item(f.value, items):
                    return True
                name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
                words = words_of(name)
                if words & _REMOVE_WORDS and words & _MARK_WORDS:
                    return True
            if isinstance(n, ast.Compare) and any(isinstance(op, (ast.NotEq, ast.NotIn, ast.IsNot)) for op in n.ops) \
                    and any(_names_key(side) for side in (n.left, *n.comparators)):
                return True
    return False


def _an_item(node, items: set) -> bool:
    """An item of a list or a message (`blocks[-1]`, `m["content"][0]`, a loop's item), not a
    name of its own (`kwargs`, `params`)."""
    return not isinstance(node, ast.Name) or node.id in items


def _names_key(node) -> bool:
    if isinstance(node, ast.Constant):
        return node.value in MARKER_KEYS
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(isinstance(e, ast.Constant) and e.value in MARKER_KEYS for e in node.elts)
    return False


def mark_cap(func, stmt) -> ast.expr | None:
    """The test of an `if` around `stmt` that compares a count of breakpoints with a limit
    (`if count_breakpoints(messages) < 4:`, `if self.n_breakpoints < MAX_BREAKPOINTS:`), or None."""
    for node in ast.walk(func):
        if not isinstance(node, ast.If) or not any(s is stmt for b in node.body for s in ast.walk(b)):
            continue
        for cmp in ast.walk(node.test):
            if isinstance(cmp, ast.Compare) and any(isinstance(op, (ast.Lt, ast.LtE)) for op in cmp.ops) \
                    and _counts_marks(cmp.left) and any(_limit(c) for c in cmp.comparators):
                return node.test
    return None


def _counts_marks(node) -> bool:
    """An expression that names breakpoints or markers (`count_breakpoints(m)`, `self.n_markers`,
    `sum("cache_control" in b ...)`)."""
    for n in ast.walk(node):
        text = n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else \
            n.value if isinstance(n, ast.Constant) and isinstance(n.value, str) else ""
        if text in MARKER_KEYS or words_of(text) & {"breakpoint", "breakpoints", "marker", "markers"}:
            return True
    return False


def _limit(node) -> bool:
    """A small constant (at most 4) or a name of a limit (`MAX_BREAKPOINTS`, `self.limit`)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return 0 < node.value <= 4
    text = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return bool(words_of(text) & {"max", "limit", "maximum"})
