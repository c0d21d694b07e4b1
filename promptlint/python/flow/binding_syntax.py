"""The syntax of bindings, read from the ast alone (for the scope reader, scopes.py, and the
modules that bind names as it does): the names an assignment or loop target binds and their
places, the assignment expressions of a test, the name a test asks is missing, whether a function
is a generator, a function's parameters in order."""
from __future__ import annotations

import ast

from ..walk import child_nodes, children

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def target_position(target: ast.AST, i: int) -> int | None:
    """The place of the `i`-th name of a loop target made of plain names only (`k, v`), or None."""
    if isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
        return i
    return None


def target_names(target: ast.AST) -> list[str]:
    """The names bound by an assignment or loop target (`a`, `a, (b, c)`)."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        out: list[str] = []
        for el in target.elts:
            out.extend(target_names(el.value if isinstance(el, ast.Starred) else el))
        return out
    return []


def nested_names(target: ast.AST, path: tuple) -> list[tuple[tuple, str]]:
    """The names of a nested tuple target with their places (`(w, h)` at `(1,)`: `((1, 0), "w")`,
    `((1, 1), "h")`), a place counted from the end after a starred name; a starred name itself
    (its items are a list) and other targets (`obj.x`) are left out."""
    star = next((i for i, el in enumerate(target.elts) if isinstance(el, ast.Starred)), None)
    out: list[tuple[tuple, str]] = []
    for i, el in enumerate(target.elts):
        at = path + (i if star is None or i < star else i - len(target.elts),)
        if isinstance(el, ast.Name):
            out.append((at, el.id))
        elif isinstance(el, (ast.Tuple, ast.List)):
            out.extend(nested_names(el, at))
    return out


def walrus_targets(test: ast.expr) -> list:
    """The assignment expressions of a test (`x := value`) that bind a name in the function (not
    those inside a lambda or a comprehension), in order."""
    out, todo = [], [test]
    while todo:
        n = todo.pop(0)
        if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name):
            out.append(n)
        if not isinstance(n, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            todo.extend(child_nodes(n))
    return out


def fallback_name(test: ast.expr) -> str | None:
    """The name `x` a test asks is missing (`x is None`, `x == None`, `not x`, `x is None or not x`),
    else None."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Name):
        return test.operand.id
    if (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and len(test.ops) == 1
            and isinstance(test.ops[0], (ast.Is, ast.Eq)) and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value is None):
        return test.left.id
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        names = {fallback_name(v) for v in test.values}
        return names.pop() if len(names) == 1 else None
    return None


def is_generator(func, module=None) -> bool:
    """True when `func`'s own body holds a `yield` statement (not one of a nested function,
    class or lambda); computed once per function node. With the `module` that holds it, a
    function whose source text has no `yield` is none without walking its body (most are not
    generators: the walks cost 3.6 of 164 profiled seconds on the corpus)."""
    known = getattr(func, "_promptlint_generator", None)
    if known is None and getattr(module, "source", None) is not None:
        a, b = module.offsets(func)
        if module.source.find("yield", a, b) == -1:
            known = func._promptlint_generator = False
    if known is None:
        known, todo = False, list(func.body)
        while todo and not known:
            node = todo.pop()
            if isinstance(node, (ast.Yield, ast.YieldFrom)):
                known = True
            elif not isinstance(node, (*_FUNCS, ast.ClassDef, ast.Lambda)):
                todo.extend(children(node))
        func._promptlint_generator = known
    return known


def params_of(func: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[ast.arg]:
    """Every parameter of a function, in order (positional-only, regular, *args, keyword-only,
    **kwargs)."""
    a = func.args
    out = [*a.posonlyargs, *a.args]
    if a.vararg is not None:
        out.append(a.vararg)
    out.extend(a.kwonlyargs)
    if a.kwarg is not None:
        out.append(a.kwarg)
    return out


def named_params(func: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[ast.arg]:
    """The parameters a caller can pass by name or place, in order: positional-only, regular,
    keyword-only (`*args` and `**kwargs` left out)."""
    a = func.args
    return [*a.posonlyargs, *a.args, *a.kwonlyargs]


def param_names(func, *, stars: bool = False, receiver: bool = True) -> list[str]:
    """The names of `named_params(func)`, in order; `stars=True` adds `*args` and `**kwargs` after them,
    `receiver=False` leaves out a leading `self` / `cls`. `[]` when `func` is None."""
    if func is None:
        return []
    names = [p.arg for p in named_params(func)]
    if stars:
        names += [p.arg for p in (func.args.vararg, func.args.kwarg) if p is not None]
    if not receiver and names and names[0] in ("self", "cls"):
        names = names[1:]
    return names
