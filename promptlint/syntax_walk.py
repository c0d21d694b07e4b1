"""Whole walks of an `ast` tree in `ast.walk` order, without its generators: the one walk step of
the Python analysis (`python/walk.py` keeps the lists it makes) and of the template fills
(`templates/fills.py`), which share it here (`templates` does not import `python`).

`ast.walk` costs about 2.8 us per node (a generator, `iter_child_nodes` and `iter_fields` per
node); `walked` about half of that, and it leaves out the nodes no walk looks for (a name's
context, an operation's operator: a fifth of the nodes). `walked_statements` reads only the
statements, about a tenth of the nodes.
"""
from __future__ import annotations

import ast

#: The fields of a node type the walks go down: all but a name's context and an operation's
#: operator (`Load()`, `Add()`: a fifth of the nodes `ast.walk` gives, never looked for; a finder
#: that needs one reads it from its node's field).
WALK_FIELDS: dict = {}
NOT_WALKED = frozenset({"ctx", "op", "ops"})
#: Fields of the commonest node types that hold a name, a constant or a flag, never a node (a
#: name's `id`, a constant's `value`): not read at all (the walk would read them to find no node
#: there; names and constants are about half the nodes of real code). Only types whose field holds
#: no node in any Python version are here (3.12's `TypeAlias.name` is a node: `name` is left out
#: by type, not everywhere).
LEAF_FIELDS = {ast.Name: {"id"}, ast.Constant: {"value", "kind"}, ast.Attribute: {"attr"}, ast.keyword: {"arg"},
                ast.arg: {"arg", "type_comment"}, ast.alias: {"name", "asname"}, ast.FormattedValue: {"conversion"},
                ast.comprehension: {"is_async"}, ast.ImportFrom: {"module", "level"}}


def walk_fields(kind) -> tuple:
    """The fields of node type `kind` that `walked` goes down (kept in `WALK_FIELDS`): all that may
    hold a node."""
    leaf = LEAF_FIELDS.get(kind, ())
    fields = WALK_FIELDS[kind] = tuple(f for f in kind._fields if f not in NOT_WALKED and f not in leaf)
    return fields


def walked(out: list) -> list:
    """`out` (a list of nodes, changed) with every node under them appended, breadth first,
    children in field order: `list(ast.walk(node))` for `[node]` without contexts and operators
    (`NOT_WALKED`), without its generators (the list is its own queue)."""
    AST, fields_of = ast.AST, WALK_FIELDS
    append, extend = out.append, out.extend
    for n in out:
        kind = type(n)
        fields = fields_of.get(kind)
        if fields is None:
            fields = walk_fields(kind)
        for name in fields:
            value = getattr(n, name, None)
            if isinstance(value, AST):
                append(value)
            elif isinstance(value, list) and value:
                extend([v for v in value if isinstance(v, AST)])
    return out


def nodes_under(node) -> list:
    """`node` and every node under it, in `ast.walk` order, without contexts and operators
    (`walked`): a new list, not kept (for a small expression walked once; `python.walk.subtree`
    keeps its lists for the walks of functions that come again)."""
    return walked([node])


#: The fields of a node that hold blocks of statements (an `except` handler's or a `match`
#: case's `body` too).
_BLOCK_NAMES = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})
#: The fields of a node type that hold statements, `except` handlers or `match` cases, in field order.
_BLOCK_LISTS: dict = {}


def walked_statements(tree: ast.AST) -> list:
    """`tree`, its statements and the `except` handlers and `match` cases between a statement and
    the statements of their bodies, in `ast.walk` order (breadth first, children in field order),
    as a new list, without walking expressions (no statement is inside one): the statements of
    `ast.walk(tree)` in the same order, read from a tenth of its nodes. For a finder whose result
    depends on which statement comes first in that order (the handlers and cases are there so that
    every statement has its `ast.walk` depth)."""
    out = [tree]
    lists = _BLOCK_LISTS
    for node in out:
        kind = type(node)
        fields = lists.get(kind)
        if fields is None:
            fields = lists[kind] = tuple(f for f in kind._fields if f in _BLOCK_NAMES)
        for name in fields:
            block = getattr(node, name, None)
            if type(block) is list:  # (a lambda's or an if-expression's `body` is an expression)
                out.extend(block)
    return out
