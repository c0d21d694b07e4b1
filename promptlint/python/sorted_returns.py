"""Lists a function returns that every caller sorts: `available = list(_discover_tools(mods))`
then `available.sort()`, or `sorted(load_tools())`. The order the function builds its list in
(a directory listing, a set) then never reaches a request: the callers fix it. Facts for the
tools candidates of python/candidates.py (`returned`)."""
from __future__ import annotations

import ast

from .flow.callers import MAX_CALLERS, calls_named, foreign_modules
from .walk import subtree

_KEYS = ("", ".", "self.")


def sorted_by_callers(evaluator, module, func) -> bool:
    """True when `func` (a function or method of `module`) has at least one caller in its package
    tree and every call of it (by name: `func(...)`, `x.func(...)`, `self.func(...)`) has its
    result sorted in the function around it (`sorted_result`). False when a call does not, when
    no call is seen, or when more than MAX_CALLERS modules may call it (not known)."""
    sites = [(module, call, caller) for call, caller, _cls in calls_named(module, func.name, _KEYS)]
    if getattr(module, "path", None) is not None:
        others = foreign_modules(evaluator, module, func.name, MAX_CALLERS)
        if others is None:
            return False
        sites += [(other, call, caller) for other in others for call, caller, _cls in calls_named(other, func.name, _KEYS)]
    return bool(sites) and all(sorted_result(other.tree if caller is None else caller, call) for other, call, caller in sites)


def sorted_result(scope, call: ast.Call) -> bool:
    """True when the result of `call` is sorted in `scope` (a function, or a module for a call at
    module level): handed to `sorted(...)` (also through `list(...)`), or kept in a name that
    the scope sorts (`x = list(call)` ... `x.sort()`, `x = sorted(x)`, `sorted(x)` returned)."""
    kept: set[str] = set()
    for node in subtree(scope):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "sorted" \
                and node.args and _is_result(node.args[0], call):
            return True
        if isinstance(node, ast.Assign) and _is_result(node.value, call):
            kept.update(t.id for t in node.targets if isinstance(t, ast.Name))
    if not kept:
        return False
    for node in subtree(scope):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Attribute) and node.func.attr == "sort" \
                and isinstance(node.func.value, ast.Name) and node.func.value.id in kept:
            return True
        if isinstance(node.func, ast.Name) and node.func.id == "sorted" and node.args \
                and isinstance(node.args[0], ast.Name) and node.args[0].id in kept:
            return True
    return False


def _is_result(node, call: ast.Call) -> bool:
    """`node` is `call` itself, or `list(call)` / `await call`."""
    if node is call:
        return True
    if isinstance(node, ast.Await):
        return _is_result(node.value, call)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "list" \
        and len(node.args) == 1 and _is_result(node.args[0], call)
