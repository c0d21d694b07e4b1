"""Gemini context caches created for the request being sent: facts for PRM305.

Gemini's explicit caching stores a prefix as a resource of its own (`client.caches.create(model=...,
config=CreateCachedContentConfig(contents=..., system_instruction=..., tools=..., ttl=...))`) that a
request names (`cached_content=cache.name`). A cache cannot be extended: its contents are fixed
when it is made, and it lives for its TTL unless `caches.update` moves its expiry
(ai.google.dev/gemini-api/docs/caching). An adapter that makes the cache on the request path

    prefix = contents[:length]                     # the conversation up to the last breakpoint
    cache = client.caches.create(model=model, config=CreateCachedContentConfig(contents=prefix, ...))
    request = {..., "cached_content": cache.name, "contents": contents[length:]}

writes the conversation so far into a new cache whenever the cut moves (each new turn): the whole
history is billed as a cache write, and stored, on every turn, and the previous turn's cache is
never read again. And with no `caches.update`, a cache of a prefix that does not move expires a TTL
after it is made however often it is read, and is made again.

Found in a function that writes `cached_content` (a dict key, a keyword, `config.cached_content
= ...`) and creates a cache there: a call of `caches.create`, or of a function of the module that
calls it (`_create_cache(client, key, prefix, ...)`, also inside a `lambda`). Stated of it: the
expression given as the cache's `contents` when it is a head slice of a list (`contents[:n]`,
directly or through one name the function assigns: `prefix = contents[:length]`), and whether the
module calls `caches.update`.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from .gated_markers import module_functions
from .walk import subtree


@dataclass(frozen=True)
class ContextCache:
    """A cache made on the request path: `call` makes it (in `function`); `cut` is the head slice
    of the request's contents it holds (`contents[:length]`), or None; `updated` is True when the
    module moves a cache's expiry (`caches.update`); `every_call` when nothing looks for one first."""

    call: ast.Call
    function: str
    cut: str | None
    updated: bool
    every_call: bool = False


def might_create(source: str) -> bool:
    """The cheap test: a cache made and a request that names one."""
    return "caches.create" in source and "cached_content" in source


def _is_create(node) -> bool:
    """`x.caches.create(...)` (also `client.aio.caches.create`)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "create" \
        and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "caches"


def _contents_of(create: ast.Call) -> ast.AST | None:
    """The value given as the cache's `contents` (a keyword of the call or of its `config=`)."""
    for kw in create.keywords:
        if kw.arg == "contents":
            return kw.value
        if kw.arg == "config" and isinstance(kw.value, ast.Call):
            found = next((k.value for k in kw.value.keywords if k.arg == "contents"), None)
            if found is not None:
                return found
    return None


def _argument(call: ast.Call, maker, value) -> ast.AST | None:
    """The argument of `call` bound to the parameter of `maker` that `value` reads (`prefix` in
    `cast(..., prefix) if prefix else None`), or None."""
    names = [a.arg for a in maker.args.posonlyargs + maker.args.args]
    if isinstance(call.func, ast.Attribute):
        names = names[1:]  # `self._create(...)`: the instance is the first parameter
    read = next((n.id for n in subtree(value) if isinstance(n, ast.Name) and n.id in names), None)
    if read is None:
        return None
    given = next((kw.value for kw in call.keywords if kw.arg == read), None)
    at = names.index(read)
    return given if given is not None else call.args[at] if at < len(call.args) else None


def _maker_called(node, makers: dict, own: str):
    """The (function, its caches.create) of the module that `node` calls (`_create(...)`,
    `self._create(...)`), or None."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) and isinstance(
        func.value, ast.Name) and func.value.id in ("self", "cls") else None
    return makers.get(name) if name is not None and name != own else None


def _writes_cached_content(func) -> bool:
    for n in subtree(func):
        if isinstance(n, ast.Dict) and any(isinstance(k, ast.Constant) and k.value == "cached_content"
                                           for k in n.keys):
            return True
        if isinstance(n, ast.keyword) and n.arg == "cached_content":
            return True
        if isinstance(n, ast.Attribute) and n.attr == "cached_content" and isinstance(n.ctx, ast.Store):
            return True
    return False


def _head_slice(value, func) -> str | None:
    """`contents[:n]` as text, for the value or the one name the function assigns it from."""
    if isinstance(value, ast.Name):
        assigned = [n.value for n in subtree(func) if isinstance(n, ast.Assign) and len(n.targets) == 1
                    and isinstance(n.targets[0], ast.Name) and n.targets[0].id == value.id]
        value = assigned[0] if len(assigned) == 1 else value
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice) and value.slice.lower is None \
            and value.slice.upper is not None and value.slice.step is None:
        return ast.unparse(value)
    return None


_PLAIN = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Return)


def _every_call(func, call: ast.Call) -> bool:
    """True when `call` runs on every call of `func`: in a plain statement of its body (or of a
    `with` there), not inside a `lambda`, an `if`-expression or a boolean operator."""
    body = list(func.body)
    while body:
        stmt = body.pop(0)
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            body = list(stmt.body) + body
            continue
        if isinstance(stmt, _PLAIN) and any(n is call for n in subtree(stmt)):
            return not any(isinstance(n, (ast.Lambda, ast.IfExp, ast.BoolOp)) and any(x is call for x in subtree(n))
                           for n in subtree(stmt))
    return False


def context_caches(module) -> list[ContextCache]:
    """The caches made on the request path (the module docstring), in source order."""
    functions = [f for _cls, f in module_functions(module)]
    makers: dict[str, tuple[ast.FunctionDef, ast.Call]] = {}  # function name -> (it, its caches.create)
    for func in functions:
        create = next((n for n in subtree(func) if _is_create(n)), None)
        if create is not None:
            makers[func.name] = (func, create)
    updated = "caches.update" in module.source
    out = []
    for func in functions:
        if not _writes_cached_content(func):
            continue
        for n in subtree(func):
            if _is_create(n):
                contents = _contents_of(n)
            elif _maker_called(n, makers, func.name) is not None:
                maker, create = _maker_called(n, makers, func.name)
                given = _contents_of(create)
                contents = _argument(n, maker, given) if given is not None else None
            else:
                continue
            cut = _head_slice(contents, func) if contents is not None else None
            out.append(ContextCache(n, func.name, cut, updated, _every_call(func, n)))
            break
    return sorted(out, key=lambda c: (c.call.lineno, c.call.col_offset))
