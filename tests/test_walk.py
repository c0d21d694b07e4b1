"""The shared walks of `promptlint.python.walk`: what they list, and keys that make no garbage."""
from __future__ import annotations

import ast
import gc

from promptlint.python.walk import node_key, own_nodes, subtree, walked_statements

_CODE = "def f(a):\n    x = a + 1\n    return [x.y for x in a if x > 2]\n"


def test_subtree_lists_every_node_but_contexts_and_operators():
    tree = ast.parse(_CODE)
    expected = [n for n in ast.walk(tree) if not isinstance(n, (ast.expr_context, ast.operator, ast.cmpop))]
    assert subtree(tree) == expected
    assert not any(isinstance(n, (ast.Load, ast.Store, ast.Add, ast.Gt)) for n in subtree(tree))
    func = tree.body[0]
    assert sorted(map(id, own_nodes(func, body_only=True))) == sorted(
        map(id, [n for s in func.body for n in subtree(s)]))


def test_node_key_is_equal_exactly_when_the_nodes_are():
    a, b, c = (ast.parse(t, mode="eval").body for t in ("f(x, k=[1, 'a'])", "f( x ,k=[1,'a'] )", "f(x, k=[1, 'b'])"))
    assert node_key(a) == node_key(b) != node_key(c)
    assert node_key(ast.parse("x.y", mode="eval").body) != node_key(ast.parse("x.z", mode="eval").body)
    assert (node_key(ast.Name(id="n", ctx=ast.Load())) == node_key(ast.parse("n", mode="eval").body))


def test_node_key_makes_no_reference_cycle():
    node = ast.parse(_CODE)
    was = gc.isenabled()
    gc.disable()
    try:
        # After a full collection every object left is in the oldest generation, and with the
        # collector off what the calls allocate stays in the youngest: collecting that one
        # alone finds the cycles they made (the ast.dump control shows it does) without walking
        # the whole heap of the test session again.
        gc.collect()
        for _ in range(50):
            node_key(node)
        assert gc.collect(0) == 0
        for _ in range(50):
            ast.dump(node)  # what it replaces: a cycle per call
        assert gc.collect(0) > 0
    finally:
        if was:
            gc.enable()


def test_nodes_under_is_ast_walk_without_contexts_and_operators_and_is_not_kept():
    from promptlint.python import walk
    node = ast.parse("f(a and not b, x < y, *[m.role for m in ms])", mode="eval").body
    expected = [n for n in ast.walk(node)
                if not isinstance(n, (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop))]
    before = len(walk._LISTED)
    found = walk.nodes_under(node)
    assert found == expected and found[0] is node
    assert [type(n).__name__ for n in found[:4]] == ["Call", "Name", "BoolOp", "Compare"]
    assert walk.nodes_under(node) is not found and len(walk._LISTED) == before  # a new list, not kept


def test_child_nodes_are_those_of_ast_iter_child_nodes():
    from promptlint.python.walk import child_nodes
    tree = ast.parse(_CODE + "class C(B, metaclass=M):\n    y: int = 1\n")
    for node in ast.walk(tree):
        assert child_nodes(node) == list(ast.iter_child_nodes(node))
    assert [type(n).__name__ for n in child_nodes(ast.parse("a + b", mode="eval").body)] == ["Name", "Add", "Name"]


_NESTED = '''
import a
class C:
    x = 1
    def m(self):
        try:
            import b
            self.c = b
        except ImportError as exc:
            self.c = None
            for i in range(3):
                if i:
                    y = lambda: 0
                else:
                    self.d = a
        finally:
            z = 2
        match self.c:
            case None:
                w = 3
            case _:
                with open("f") as f:
                    self.c = a
    async def n(self):
        while True:
            self.c = b
        return [v for v in ()]
def top():
    self.c = a
'''


def test_walked_statements_are_the_statements_of_ast_walk_in_its_order():
    # (a finder that keeps the first of several assignments reads them in `ast.walk` order: a
    # statement under an `except` handler or a `match` case comes at its own depth)
    tree = ast.parse(_NESTED)
    expected = [n for n in ast.walk(tree) if isinstance(n, ast.stmt)]
    got = walked_statements(tree)
    assert [n for n in got if isinstance(n, ast.stmt)] == expected
    assert got[0] is tree
    assert {type(n) for n in got if not isinstance(n, ast.stmt)} == {ast.Module, ast.ExceptHandler, ast.match_case}
    # by depth: the class body and `top`'s (4, 29), the `try`, `finally` and `while` bodies (8, 17, 26),
    # the handler's and the cases' bodies (10; 20, 23), the loop's `if` branches (13, 15)
    assert [n.lineno for n in got if isinstance(n, ast.Assign)] == [4, 29, 8, 17, 26, 10, 20, 23, 13, 15]


_FIELDS_AND_WRITES = '''
class Settings:
    prompt_name: str = "static_agent"
    other = "first"
def outer(x):
    class Settings:
        prompt_name: str = "nested_agent"
    a = x
    for b in x:
        a = b
    (c, d) = x
    e: str = "kept"
    f = g = x
    return a
'''


def test_template_fills_walk_as_ast_walk_does():
    # (templates/fills.py reads the class defaults and a function's name writes in `ast.walk`
    # order through syntax_walk, which it shares with python/walk.py: the same results)
    from promptlint.templates.fills import _defaults, name_writes
    tree = ast.parse(_FIELDS_AND_WRITES)
    assert _defaults(tree) == {"prompt_name": "nested_agent", "other": "first"}  # (the nested class is walked last)
    func = tree.body[1]
    writes, assigned = name_writes(func)
    expected = {}
    for n in ast.walk(func):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            expected.setdefault(n.id, []).append(n)
    assert writes == expected
    assert [n.lineno for n in writes["a"]] == [8, 10]  # `a = x` (the body), then `a = b` (in the loop)
    assert sorted(writes) == ["a", "b", "c", "d", "e", "f", "g", "prompt_name"]  # (and the nested class field)
    assert {assigned[id(n)].lineno for n in writes["a"]} == {8, 10}
    assert id(writes["f"][0]) not in assigned  # (`f = g = x`: two targets, no single-target assignment)


#: Every node type whose leaf fields the walks do not read (`syntax_walk.LEAF_FIELDS`): names,
#: constants, attributes, keywords, arguments, aliases, f-string fields, comprehensions, imports.
_LEAFY = '''
from .pkg import mod as m, other
import os.path as p
async def f(a, /, b: int = 1, *args, c, **kw):
    x = g(a, key=b, **kw).attr[0]
    y = f"{x!r:>{b}} and {a!s}"
    z = [i async for i in a if i]
    return {k: v for k, v in kw.items()}, (lambda q: q)(x), y, z
'''


def test_walks_skip_leaf_fields_and_still_give_every_node():
    from promptlint.python.walk import child_nodes, children, LEAVES
    from promptlint.syntax_walk import LEAF_FIELDS, nodes_under
    tree = ast.parse(_LEAFY)
    ops = (ast.expr_context, ast.operator, ast.unaryop, ast.boolop, ast.cmpop)
    assert nodes_under(tree) == [n for n in ast.walk(tree) if not isinstance(n, ops)]
    for node in ast.walk(tree):
        assert child_nodes(node) == list(ast.iter_child_nodes(node))
        assert children(node) == [c for c in ast.iter_child_nodes(node) if not isinstance(c, ops) and type(c) not in LEAVES]
    seen = {type(n) for n in ast.walk(tree)}
    assert set(LEAF_FIELDS) <= seen  # (each skipped field was there to be read, and held no node)
    for kind, fields in LEAF_FIELDS.items():
        assert fields <= set(kind._fields)
        for node in (n for n in ast.walk(tree) if type(n) is kind):
            assert not any(isinstance(getattr(node, f, None), (ast.AST, list)) for f in fields)
