"""The child nodes of an `ast` node, in field order: the one walk step of the site finder and
of the per-module indexes (contexts and operators left out: they never hold a node we look at;
leaves too: names, constants, `pass`, ... hold no node, and are half the nodes of real code)."""
from __future__ import annotations

import ast

_SKIP_FIELDS = {"ctx", "op", "ops", "type_ignores", "type_comment"}
_CHILD_FIELDS: dict = {}
#: Node types that never have a child node (what the walks look for is never one of them).
LEAVES = frozenset({ast.Name, ast.Constant, ast.alias, ast.Pass, ast.Break, ast.Continue, ast.Global,
                    ast.Nonlocal})


def children(node) -> list:
    """The child nodes of an `ast` node in field order, leaves (`LEAVES`) left out (contexts and
    operators too)."""
    fields = _CHILD_FIELDS.get(type(node))
    if fields is None:
        fields = _CHILD_FIELDS[type(node)] = tuple(f for f in type(node)._fields if f not in _SKIP_FIELDS)
    out = []
    AST, leaves = ast.AST, LEAVES
    for name in fields:
        value = getattr(node, name, None)
        if type(value) is list:
            out.extend([v for v in value if type(v) not in leaves and isinstance(v, AST)])
        elif type(value) not in leaves and isinstance(value, AST):
            out.append(value)
    return out


def subtree(node) -> list:
    """`node` and every node under it, in `ast.walk` order (breadth first), as a list computed
    once per node and kept on it: the fact finders walk the same module and the same functions
    again and again (a module's tree was walked by a dozen of them, each function by several;
    2.7 million walks on the corpus), and the trees are never changed after parsing."""
    found = node.__dict__.get("_promptlint_subtree")
    if found is None:
        found = list(ast.walk(node))
        node._promptlint_subtree = found
    return found
