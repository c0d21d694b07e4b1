"""A coroutine function called once per element of a collection: what its parameter holds.

`await asyncio.gather(*[_process(group) for group in groups])`, `for record in records: await
assess(record)`: each call is a request of its own (a coroutine per element, run concurrently or
one after the other), and the argument read from the element differs from one call to the next.
Inside the callee that parameter changes on every request, whatever the element is: the static
text a prompt puts after it is never shared by the next call (Policy 7: data each call brings).

Only calls of an `async def` count: a plain function mapped over elements is as often a helper
that renders one line of a larger text (`"\\n".join(describe(t) for t in tools)`), where the
elements all end up in one request, in the same order on every request.
"""
from __future__ import annotations

import ast

from ...model import Kind, Volatility
from .values import Text, dynamic
from ..walk import child_nodes, subtree
from .. import loop_values

_COMPS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_LOOPS = (ast.For, ast.AsyncFor)


def per_element(module, caller, call: ast.Call, arg: ast.expr, callee, value) -> Text | None:
    """The value of parameter `arg` of `call` (a call of the coroutine function `callee` made in
    `caller`, None: at module level) when the call is made once per element of a comprehension or
    a loop around it and `arg` reads that element: a value of its own on every request. None for
    any other call, and when the element is one of a few written in the code (a list display of
    literals, or `value`, the argument as evaluated, is static text)."""
    if not isinstance(callee, ast.AsyncFunctionDef):
        return None
    loop = _element_loop(module, caller, call)
    if loop is None:
        return None
    names, iterable = loop
    if not any(isinstance(n, ast.Name) and n.id in names for n in subtree(arg)):
        return None
    if isinstance(iterable, (ast.List, ast.Tuple, ast.Set)) and all(isinstance(e, ast.Constant) for e in iterable.elts):
        return None  # `for kind in ["a", "b"]`: one of a few fixed texts, each cached on its own
    if isinstance(value, Text) and all(s.is_static for s in value.segs):
        return None  # a literal element of a literal list: one of a few fixed texts
    if isinstance(value, Text) and any(s.volatility is Volatility.PER_REQUEST for s in value.segs):
        return None  # already known to change: keep what it is (the user's text, a time)
    return dynamic(module.span(arg), module.code(arg), Kind.UNKNOWN, Volatility.PER_REQUEST,
                   f"a different element of `{module.code(iterable)}` on each call (one request per element)")


def each_call(module, caller, call: ast.Call, arg: ast.expr, callee_module, callee, value):
    """`value`, the argument `arg` of `call` (a call of the function `callee` of `callee_module`
    made in `caller`), with the callee noted as the loop of each pass (`Segment.each`,
    loop_values.mark) when the call is made once per element of a `for` loop or a comprehension
    over data and `arg` reads that element: a request the callee sends (its site inside it) gets a
    new value on each call; text it only builds keeps its reading (a helper that renders one line).
    None for any other call (a loop over the instance's own list, `self.agents`, or a literal one)."""
    loop = _element_loop(module, caller, call, whole=True)
    if loop is None:
        return None
    names, iterable, stmt = loop
    if not any(isinstance(n, ast.Name) and n.id in names for n in subtree(arg)):
        return None
    if isinstance(iterable, (ast.List, ast.Tuple, ast.Set)) or loop_values.instance_owned(stmt):
        return None
    marked = loop_values.mark(value, stmt, callee_module.span(callee),
                              f", passed once per element of `{module.code(iterable)}` (line {module.span(call).start.row})")
    return marked if marked is not value else None


def same_call(module, caller, call: ast.Call, arg: ast.expr, callee_module, callee, value):
    """`value`, the argument `arg` of `call` (a call of `callee` of `callee_module` made in
    `caller`), with the callee noted as the loop over whose passes it stays the same
    (`Segment.same`, loop_values.same) when the call is made once per element of a `for` loop or a
    comprehension over data, another argument reads that element and `arg` does not (`for p in
    points: judge(p, summary)`: `summary`), and no statement of the loop rebinds what `arg` reads.
    None for any other argument or call."""
    loop = _element_loop(module, caller, call, whole=True)
    if loop is None:
        return None
    names, iterable, stmt = loop
    reads = lambda node: any(isinstance(n, ast.Name) and n.id in names for n in subtree(node))
    if reads(arg) or not any(reads(a) for a in [*call.args, *(k.value for k in call.keywords)]):
        return None
    if isinstance(iterable, (ast.List, ast.Tuple, ast.Set)) or loop_values.instance_owned(stmt):
        return None
    if isinstance(stmt, _LOOPS) and loop_values.rebinds(stmt, arg):
        return None
    marked = loop_values.same(value, callee_module.span(callee))
    return marked if marked is not value else None


def element_loop(module, caller, call: ast.Call):
    """(the names bound per element, the iterated expression, the `for` statement or first
    `comprehension`) of the innermost loop that makes `call` once per element (`_element_loop`)."""
    return _element_loop(module, caller, call, whole=True)


def _element_loop(module, caller, call: ast.Call, whole: bool = False) -> tuple[set[str], ast.expr] | None:
    """(the names bound per element, the iterated expression) of the innermost comprehension
    whose element holds `call`, or `for` loop whose body holds it, inside `caller`; None when
    there is none. `whole`: with the `for` statement or the first `comprehension` as a third item."""
    parents = _parents(module, caller)
    node = call
    while node in parents:
        parent = parents[node]
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return None
        if whole and isinstance(parent, ast.While):
            return None  # (called several times per element)
        if isinstance(parent, _COMPS) and not isinstance(node, ast.comprehension):
            gens = parent.generators
            found = {n for g in gens for n in _targets(g.target)}, gens[0].iter
            return (*found, gens[0]) if whole else found
        if isinstance(parent, _LOOPS) and node in parent.body:
            return (set(_targets(parent.target)), parent.iter, parent) if whole else (set(_targets(parent.target)), parent.iter)
        node = parent
    return None


def _targets(target) -> list[str]:
    return [n.id for n in subtree(target) if isinstance(n, ast.Name)]


def _parents(module, root) -> dict:
    """child -> parent for the nodes of `root` (the module when None), made once per root."""
    key = ("parents", id(root))
    found = module._pieces.get(key)
    if found is not None:
        return found[1]
    top = module.tree if root is None else root
    parents = {}
    todo = [top]
    while todo:
        node = todo.pop()
        for child in child_nodes(node):
            if node is not top and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and root is None:
                break  # module level: the bodies of functions are their own roots
            parents[child] = node
            todo.append(child)
    module._pieces[key] = (None, parents)
    return parents
