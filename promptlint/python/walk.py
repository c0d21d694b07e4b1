"""The child nodes of an `ast` node, in field order: the one walk step of the site finder and
of the per-module indexes (contexts and operators left out: they never hold a node we look at)."""
from __future__ import annotations

import ast

_SKIP_FIELDS = {"ctx", "op", "ops", "type_ignores", "type_comment"}
_CHILD_FIELDS: dict = {}


def children(node) -> list:
    """The child nodes of an `ast` node in field order (contexts and operators left out)."""
    fields = _CHILD_FIELDS.get(type(node))
    if fields is None:
        fields = _CHILD_FIELDS[type(node)] = tuple(f for f in type(node)._fields if f not in _SKIP_FIELDS)
    out = []
    for name in fields:
        value = getattr(node, name, None)
        if isinstance(value, list):
            out.extend(v for v in value if isinstance(v, ast.AST))
        elif isinstance(value, ast.AST):
            out.append(value)
    return out
