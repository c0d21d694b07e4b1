"""The child nodes of an `ast` node, in field order: the one walk step of the site finder and
of the per-module indexes (contexts and operators left out: they never hold a node we look at;
leaves too: names, constants, `pass`, ... hold no node, and are half the nodes of real code)."""
from __future__ import annotations

import ast

from ..syntax_walk import LEAF_FIELDS as _LEAF_FIELDS
from ..syntax_walk import WALK_FIELDS as _WALK_FIELDS
from ..syntax_walk import nodes_under, walked_statements  # noqa: F401  (read by the fact finders from here)
from ..syntax_walk import walk_fields as _walk_fields
from ..syntax_walk import walked as _walked

_SKIP_FIELDS = {"ctx", "op", "ops", "type_ignores", "type_comment"}
_CHILD_FIELDS: dict = {}
#: Node types that never have a child node (what the walks look for is never one of them).
LEAVES = frozenset({ast.Name, ast.Constant, ast.alias, ast.Pass, ast.Break, ast.Continue, ast.Global,
                    ast.Nonlocal})


def last_name(node) -> str:
    """The last name of a name or dotted name (`x` -> "x", `pkg.mod.Model` -> "Model"), else ""."""
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def children(node) -> list:
    """The child nodes of an `ast` node in field order, leaves (`LEAVES`) left out (contexts and
    operators too)."""
    fields = _CHILD_FIELDS.get(type(node))
    if fields is None:
        leaf = _LEAF_FIELDS.get(type(node), ())  # (fields that never hold a node: not read)
        fields = _CHILD_FIELDS[type(node)] = tuple(f for f in type(node)._fields if f not in _SKIP_FIELDS and f not in leaf)
    out = []
    AST, leaves = ast.AST, LEAVES
    for name in fields:
        value = getattr(node, name, None)
        if type(value) is list:
            out.extend([v for v in value if type(v) not in leaves and isinstance(v, AST)])
        elif type(value) not in leaves and isinstance(value, AST):
            out.append(value)
    return out


#: Subtrees listed lately: id(node) -> (node, its nodes); the node is kept so that its id is not
#: reused while the entry lives. Bounded by the nodes listed (`_MAX_LISTED`, about 1 MB of
#: references): the walks of one function by the fact finders come close together.
_LISTED: dict = {}
_MAX_LISTED = 100_000
_listed_total = 0


#: The nodes of the module trees walked lately (`subtree` of an `ast.Module`): id -> (tree, its
#: nodes). A module's walk is read by many fact finders, and one module is analysed at a time.
_MODULES: dict = {}
_MAX_MODULES = 2


def name_bindings(node):
    """(name, value) for each single-name binding under `node`: `name = value` and the walrus
    `(name := value)`, in the order of `subtree`."""
    for n in subtree(node):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            yield n.targets[0].id, n.value
        elif isinstance(n, ast.NamedExpr):
            yield n.target.id, n.value


def subtree(node) -> list:
    """`node` and every node under it, in `ast.walk` order (breadth first; contexts and operators
    left out, `_walked`), as a list; the lists of
    the nodes walked lately are kept (`_LISTED`; a module's in `_MODULES`): the fact finders walk
    the same module and the same functions again and again (60,000 walks on the corpus, 27,000 of
    them of a node walked before), and the trees are never changed after parsing. Never change
    the list."""
    key = id(node)
    if type(node) is ast.Module:
        found = _MODULES.get(key)
        if found is not None and found[0] is node:
            return found[1]
        nodes = _walked([node])
        _MODULES[key] = (node, nodes)
        while len(_MODULES) > _MAX_MODULES:
            del _MODULES[next(iter(_MODULES))]
        return nodes
    found = _LISTED.get(key)
    if found is not None and found[0] is node:
        return found[1]
    return _keep(key, node, _walked([node]))


def block_nodes(stmts: list) -> list:
    """The statements of a block (a loop's `body`) and every node under them, in `ast.walk` order
    (that of `subtree` of a module with that body, without the module), as a list kept as
    `subtree`'s are (by the block's list: the interpreter reads a loop's body on every pass).
    Never change the list."""
    key = ("block", id(stmts))
    found = _LISTED.get(key)
    if found is not None and found[0] is stmts:
        return found[1]
    return _keep(key, stmts, _walked([s for s in stmts if isinstance(s, ast.AST)]))


def _keep(key, node, nodes: list) -> list:
    """Keep `nodes` in `_LISTED` under `key` (with `node`, so that its id is not reused while the
    entry lives), the oldest entries dropped past `_MAX_LISTED` nodes; returns `nodes`."""
    global _listed_total
    _LISTED[key] = (node, nodes)
    _listed_total += len(nodes)
    while _listed_total > _MAX_LISTED and len(_LISTED) > 1:
        oldest = next(iter(_LISTED))
        _listed_total -= len(_LISTED.pop(oldest)[1])
    return nodes


#: Every field of a node type (`ast.iter_child_nodes` reads them all, contexts and operators too).
_ALL_FIELDS: dict = {}
def child_nodes(node) -> list:
    """`list(ast.iter_child_nodes(node))` (contexts and operators too), without its generators."""
    kind = type(node)
    fields = _ALL_FIELDS.get(kind)
    if fields is None:
        leaf = _LEAF_FIELDS.get(kind, ())  # (fields that never hold a node: not read)
        fields = _ALL_FIELDS[kind] = tuple(f for f in kind._fields if f not in leaf)
    out = []
    AST = ast.AST
    for name in fields:
        value = getattr(node, name, None)
        if isinstance(value, AST):
            out.append(value)
        elif isinstance(value, list) and value:
            out.extend([v for v in value if isinstance(v, AST)])
    return out


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def own_nodes(node, body_only: bool = False) -> list:
    """The nodes inside `node` (a function, a loop), not those of functions or classes nested in
    it (nor those nested scopes' own nodes); `body_only`: from its `body` statements only (not a
    function's arguments, decorators and annotations). In no defined order (the same order on
    every call: the lists of the nodes read lately are kept, as `subtree`'s; never change one)."""
    key = (id(node), body_only)
    found = _LISTED.get(key)
    if found is not None and found[0] is node:
        return found[1]
    scopes, AST, fields_of = _SCOPES, ast.AST, _WALK_FIELDS
    out, todo = [], list(node.body) if body_only else child_nodes(node)
    append, pop, push, extend = out.append, todo.pop, todo.append, todo.extend
    while todo:
        n = pop()
        if isinstance(n, scopes):
            continue
        append(n)
        kind = type(n)
        fields = fields_of.get(kind)
        if fields is None:
            fields = _walk_fields(kind)
        for name in fields:  # (`child_nodes` inlined: its children pushed in field order)
            value = getattr(n, name, None)
            if isinstance(value, AST):
                push(value)
            elif isinstance(value, list) and value:
                extend([v for v in value if isinstance(v, AST)])
    return _keep(key, node, out)


#: The fields of a node that hold blocks of statements (an `except` handler's or a `match`
#: case's `body` too), per node type, in field order.
_BLOCK_FIELDS: dict = {}
_BLOCK_NAMES = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})


def block_statements(node) -> list:
    """The statements of the blocks of `node` (`body`, `orelse`, `finalbody`, the bodies of its
    `except` handlers and `match` cases), in field order: a walk that reads only statements
    (what defines a function or a class, assigns, deletes) goes down these."""
    kind = type(node)
    fields = _BLOCK_FIELDS.get(kind)
    if fields is None:
        fields = _BLOCK_FIELDS[kind] = tuple(f for f in kind._fields if f in _BLOCK_NAMES)
    out = []
    for name in fields:
        for child in getattr(node, name, None) or ():
            if isinstance(child, (ast.ExceptHandler, ast.match_case)):
                out.extend(child.body)
            else:
                out.append(child)
    return out


_STATEMENT_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


#: The statements of the module trees read lately: id -> (tree, its statements).
_STATEMENTS: dict = {}


def statements(tree: ast.AST):
    """Every statement of `tree` (in nested blocks, functions and classes too), depth first in
    source order, without walking expressions: what defines a function or imports a name is a
    statement. An iterable; a module's list is kept (a dozen fact finders read it)."""
    if type(tree) is not ast.Module:
        return _statements(tree)
    found = _STATEMENTS.get(id(tree))
    if found is None or found[0] is not tree:
        found = _STATEMENTS[id(tree)] = (tree, list(_statements(tree)))
        while len(_STATEMENTS) > 2:
            del _STATEMENTS[next(iter(_STATEMENTS))]
    return found[1]


def _statements(tree: ast.AST):
    todo = [tree]
    while todo:  # depth first, in source order
        node = todo.pop()
        if isinstance(node, ast.stmt):
            yield node
        for name in reversed(_STATEMENT_BLOCKS):
            block = getattr(node, name, None)
            if block:
                todo.extend(reversed(block))


def node_key(node) -> str:
    """A text that is equal for two `ast` nodes exactly when their types and fields are (positions
    left out): `ast.dump` without its nested closure, whose reference cycle made every call
    garbage for the collector (9,000 per thousand files analysed, a collection pass each)."""
    if isinstance(node, ast.AST):
        return type(node).__name__ + "(" + ", ".join(
            [name + "=" + node_key(getattr(node, name, None)) for name in type(node)._fields]) + ")"
    if isinstance(node, list):
        return "[" + ", ".join([node_key(item) for item in node]) + "]"
    return repr(node)


def outer_functions(tree: ast.AST) -> list[tuple[ast.AST, list]]:
    """(function, the classes and the function itself around it, outermost first) for every
    function and method of `tree` not nested in another function, in no set order."""
    out: list[tuple[ast.AST, list]] = []
    todo: list = [(tree, [])]
    while todo:
        node, stack = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append((node, [*stack, node]))
            continue
        if isinstance(node, ast.ClassDef):
            stack = [*stack, node]
        todo.extend((child, stack) for child in ast.iter_child_nodes(node))
    return out
