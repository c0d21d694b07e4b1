"""A function that returns by the type of its argument, read for the argument it is given.

    def plain(obj):
        if isinstance(obj, datetime):
            return obj.isoformat()
        if isinstance(obj, dict):
            return {k: plain(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [plain(v) for v in obj]
        return obj

Called with a dict the code writes (a request's options: `params = plain(params)` before
`create(**params)`), it returns what its `dict` branch returns, not any of its branches: the other
branches cannot run for a dict. Only a body made of such guards (`if isinstance(p, T): return X`, a
docstring, a final `return`) on one parameter is read so; the first guard whose types hold the
argument's kind wins, else the final `return`.
"""
from __future__ import annotations

import ast

from .values import Alt, Mapping, Seq

#: The types a guard names (the last name of its dotted name) that a dict display / a list display is.
_ANY = {"object", "Iterable", "Collection", "Container", "Sized", "Reversible"}
_KINDS = {
    "dict": {"dict", "Dict", "Mapping", "MutableMapping"} | _ANY,
    "list": {"list", "List", "tuple", "Tuple", "Sequence", "MutableSequence"} | _ANY,
}


def kind_of(value) -> str | None:
    """"dict" for a dict of known keys, "list" for a list display (each variant of a value built in
    branches alike), else None (not narrowed)."""
    if isinstance(value, Alt) and value.options:
        kinds = {kind_of(o) for o in value.options}
        return kinds.pop() if len(kinds) == 1 else None
    if isinstance(value, Mapping) and not value.repeated:
        return "dict"
    if isinstance(value, Seq) and not value.repeated:
        return "list"
    return None


def dispatch(func) -> tuple[str, list[tuple[set, ast.expr]], ast.expr | None] | None:
    """(parameter, [(type names, returned expression)] in order, final returned expression or None)
    of a function whose body is only `if isinstance(p, T): return X` guards on one parameter `p`
    (and a docstring, a final `return`), else None."""
    body = list(func.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    final = None
    if body and isinstance(body[-1], ast.Return) and body[-1].value is not None:
        final = body.pop().value
    guards, param = [], None
    for stmt in body:
        test = stmt.test if isinstance(stmt, ast.If) else None
        if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
                and len(test.args) == 2 and isinstance(test.args[0], ast.Name) and not stmt.orelse
                and len(stmt.body) == 1 and isinstance(stmt.body[0], ast.Return) and stmt.body[0].value is not None):
            return None
        name = test.args[0].id
        if param not in (None, name):
            return None
        param = name
        types = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
        guards.append(({_last(t) for t in types}, stmt.body[0].value))
    if param is None or len(guards) < 2 and final is None:
        return None
    return param, guards, final


def chosen(func, argument) -> ast.expr | None:
    """The expression `func` returns for `argument` (its value for the guarded parameter), or None
    when the function is not such a dispatch or the argument's kind is not known."""
    kind = kind_of(argument)
    found = dispatch(func) if kind is not None else None
    if found is None:
        return None
    _param, guards, final = found
    return next((ret for types, ret in guards if types & _KINDS[kind]), final)


def _last(node) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""
