"""Whether a set's iteration order is the same in every process, read from its syntax alone.

A set iterates in the order of its elements' hashes (and of their insertions). `str` and `bytes`
hash with a per-process seed (PYTHONHASHSEED), so a set of strings comes in a different order in
each worker; an `int` or `bool` hashes to its value, a `float` to a value derived from it, and a
tuple of such values to a combination of theirs: a set of only those iterates in the same order in
every process. `None` is left out: before Python 3.12 its hash is its address, which address-space
randomisation changes per process. Anything whose type is not known from the syntax (a name, an
attribute, a call other than the few below) may be a string: not seed-free.

`seed_free_set(node)` answers for a set display, a set comprehension and `set(...)` /
`frozenset(...)` calls; it never evaluates anything.
"""
from __future__ import annotations

import ast

# Builtins whose result is always an int or a bool (or that raise); a module that rebinds these
# names is not looked for.
_INT_CALLS = frozenset({"len", "ord", "int", "bool"})


def seed_free_set(node: ast.AST) -> bool:
    """True when the set that `node` builds holds only values whose hash ignores the hash seed:
    a set display (`{1, 2, (3, 4)}`), a set comprehension over `range(...)` or over such a
    display (`{i * 2 for i in range(5)}`), or `set(...)` / `frozenset(...)` of `range(...)`, of
    such a display or of such a comprehension (`set()` too). False for anything else."""
    if isinstance(node, ast.Set):
        return all(_seed_free(e, frozenset()) for e in node.elts)
    if isinstance(node, ast.SetComp):
        return _comprehension(node)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("set", "frozenset"):
        if node.keywords or len(node.args) > 1:
            return False
        return not node.args or _seed_free_iterable(node.args[0])
    return False


def _seed_free_iterable(node: ast.AST) -> bool:
    """True when iterating `node` yields only seed-free values."""
    if _is_range(node):
        return True
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return all(not isinstance(e, ast.Starred) and _seed_free(e, frozenset()) for e in node.elts)
    if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
        return _comprehension(node)
    return False


def _is_range(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"


def _comprehension(node: ast.ListComp | ast.GeneratorExp | ast.SetComp) -> bool:
    """True when every generator iterates seed-free values into plain names and the element is
    seed-free given those names."""
    names: set[str] = set()
    for comp in node.generators:
        if not isinstance(comp.target, ast.Name) or not _seed_free_iterable(comp.iter):
            return False
        names.add(comp.target.id)
    return _seed_free(node.elt, frozenset(names))


def _seed_free(node: ast.AST, names: frozenset[str]) -> bool:
    """True when the expression's value is known to be an int, bool, float or complex, or a tuple
    of such values (`names`: loop variables known to hold such values)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (bool, int, float, complex))
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.UnaryOp):
        return _seed_free(node.operand, names)
    if isinstance(node, ast.BinOp):
        return _seed_free(node.left, names) and _seed_free(node.right, names)
    if isinstance(node, ast.BoolOp):
        return all(_seed_free(v, names) for v in node.values)
    if isinstance(node, ast.Compare):
        return all(_seed_free(v, names) for v in (node.left, *node.comparators))
    if isinstance(node, ast.IfExp):
        return _seed_free(node.body, names) and _seed_free(node.orelse, names)
    if isinstance(node, ast.Tuple):
        return all(_seed_free(e, names) for e in node.elts)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id in _INT_CALLS  # whatever the argument: an int or a bool, or an exception
    return False
