"""A parameter that a method stores as a turn of the conversation it keeps, paired with the answer
of the request it was sent in:

    def __call__(self, text, session=None):
        output = self.process.run(self.prompt(text, session))
        self.memory[session].append((text, output))

`text` is the newest user message: the next request reads it back as history, and this request
sends it as the new turn (per request: docs/policies.md, Policy 7). The store is kept on the
instance (`self.<attr>`, `self.<attr>[key]`), the pair is a tuple or list display, and the answer
is a name the function assigns from a call whose arguments hold the parameter (at any depth).
"""
from __future__ import annotations

import ast

from ..walk import nodes_under, subtree

_STORE_METHODS = ("append", "appendleft", "extend", "insert")


def stored_with_answer(func: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """True when `func` stores its parameter `name` paired with the answer of a request made with
    it in a list kept on the instance (see the module docstring). Cached on the function node."""
    cache = getattr(func, "_promptlint_stored_turns", None)
    if cache is None:
        cache = _stored(func)
        func._promptlint_stored_turns = cache
    return name in cache


def _stored(func) -> frozenset[str]:
    answers: dict[str, set[str]] = {}  # a name assigned a call's result -> the names its arguments hold
    stores: list[ast.AST] = []
    for node in subtree(func):  # (ast.walk order; a list kept for the other walks of func)
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(_awaited(node.value), ast.Call):
            call = _awaited(node.value)
            held = {n.id for a in [*call.args, *(k.value for k in call.keywords)] for n in nodes_under(a)
                    if isinstance(n, ast.Name)}
            answers.setdefault(node.targets[0].id, set()).update(held)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in _STORE_METHODS and node.args and _kept(node.func.value):
            stores.append(node.args[-1])
    out = set()
    for item in stores:
        if isinstance(item, ast.List) and len(item.elts) == 1:
            item = item.elts[0]  # `extend([(text, output)])`
        if not isinstance(item, (ast.Tuple, ast.List)) or len(item.elts) != 2:
            continue
        first, second = item.elts
        if isinstance(first, ast.Name) and isinstance(second, ast.Name) and first.id in answers.get(second.id, ()):
            out.add(first.id)
    return frozenset(out)


def _awaited(node):
    return node.value if isinstance(node, ast.Await) else node


def _kept(target) -> bool:
    """`self.attr` or `self.attr[key]`: a list kept on the instance, beyond this call."""
    if isinstance(target, ast.Subscript):
        target = target.value
    return isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"
