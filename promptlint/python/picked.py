"""SDK methods picked by name at run time: `method = getattr(self.client.chat.completions,
endpoint)` then `method(**request)` (or `getattr(client.messages, "create")(...)` at once). The
call is read as the resource's own method called with the same arguments (`picked_calls`), once
for each method name the SDK shapes know for it when the name is not a constant: the site finder
matches those against the SDK call shapes as it does a call written out.

Also SDK methods bound to a name (`aliased_calls`): `completion = litellm.completion` in one branch
and `completion = client.chat.completions.create` in the other (module level or in the calling
function), then `completion(model=..., messages=...)`: the call is read once per method so bound.
A plain name imported from a module under an SDK method's name (`from litellm import completion`,
then `completion_fn = completion`) is bound the same way: the call is read as `completion(...)`.
"""
from __future__ import annotations

import ast
import re
from functools import lru_cache

from .walk import statements

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: The last attribute of an object whose method picked by a name not written in the code is read
#: as each SDK method: a client or an SDK resource (`self.client.chat.completions`, `self._bedrock`,
#: `self.llm_client`), not any object of the package (`self._github`: a REST API client).
_RESOURCE = re.compile(r"(?i)client|completions|chat|messages|responses|models|runtime|bedrock|llm|anthropic"
                       r"|openai|genai|gemini|mistral|cohere|groq|litellm|beta|aio")


def _getattr(node) -> tuple[ast.expr, ast.expr] | None:
    """(object, name) of `getattr(object, name)` with two arguments where the object is an
    attribute (a resource of a client, `client.chat.completions`; not `self` or a module), else
    None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" \
            and len(node.args) == 2 and not node.keywords and isinstance(node.args[0], ast.Attribute):
        return node.args[0], node.args[1]
    return None


def _bound_in(func, name: str) -> list:
    """The values assigned to the local `name` in `func`'s own statements (not nested functions),
    when one of them is a `getattr` call (else [], the only case the caller reads); the names so
    bound are read once per function and kept on its node (`_picked_names`)."""
    names = getattr(func, "_picked_names", None)
    if names is None:
        names = func._picked_names = _getattr_names(func)
    if name not in names:
        return []
    return [value for target, value in _assignments(func) if target == name]


def _getattr_names(func) -> frozenset:
    """The local names `func`'s own statements assign a `getattr(...)` call to."""
    return frozenset(target for target, value in _assignments(func)
                     if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "getattr")


def _assignments(owner):
    """(name, value) of each `name = value` (one of the targets a plain name) or `name: T = value`
    in the own statements of `owner`, a function or a module (also inside `if` / `try` / loop
    blocks; not in nested functions or classes)."""
    todo = list(owner.body)
    while todo:
        stmt = todo.pop()
        if isinstance(stmt, (*_FUNCS, ast.ClassDef)):
            continue
        if isinstance(stmt, ast.Assign):
            for t in stmt.targets:
                if isinstance(t, ast.Name):
                    yield t.id, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            yield stmt.target.id, stmt.value
        for field in ("body", "orelse", "finalbody", "handlers"):
            todo.extend(getattr(stmt, field, []) or [])


def picked_calls(node: ast.Call, func, methods) -> list[ast.Call]:
    """The calls `node` stands for when its callee is a method picked by `getattr` (in `node`
    itself, or bound once to a local name of the enclosing function `func`): `object.m(args)`
    for the constant name `m`, else for each name of `methods` (the method names the SDK shapes
    know) when the object is named as a client or an SDK resource (`_RESOURCE`), located where
    `node` is; [] for any other call."""
    picked = _getattr(node.func)
    if picked is None and isinstance(node.func, ast.Name) and func is not None:
        bound = _bound_in(func, node.func.id)
        picked = _getattr(bound[0]) if len(bound) == 1 else None
    if picked is None:
        return []
    target, name = picked
    if isinstance(name, ast.Constant) and isinstance(name.value, str):
        names = [name.value]
    elif _RESOURCE.search(target.attr if isinstance(target, ast.Attribute) else ""):
        names = [m for m in methods if m[:1].islower()]  # methods, not classes a shape also names
    else:
        return []  # `getattr(self._github, method)(**kwargs)`: any method of any object
    out = []
    for method in names:
        attr = ast.copy_location(ast.Attribute(value=target, attr=method, ctx=ast.Load()), target)
        attr.end_lineno, attr.end_col_offset = target.end_lineno, target.end_col_offset
        out.append(ast.copy_location(ast.Call(func=attr, args=node.args, keywords=node.keywords), node))
    return out


def aliased_calls(node: ast.Call, func, tree: ast.Module, methods) -> list[ast.Call]:
    """The calls `node` stands for when its callee is a plain name that the enclosing function
    `func` (else, when the function binds it nowhere, the module `tree`'s own statements) binds to
    an attribute ending in an SDK method name of `methods` (`client.chat.completions.create`,
    `litellm.completion`): `that.attribute(args)` for each such binding, located where `node` is;
    [] for any other call. Other bindings of the name (a placeholder lambda) are left out."""
    if not isinstance(node.func, ast.Name):
        return []
    name = node.func.id
    if func is not None and name in {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs,
                                                      func.args.vararg, func.args.kwarg) if a is not None}:
        return []  # a parameter: the caller's value, not the module's binding
    imported = _imported_methods(tree, methods)
    bound = _method_bindings(func, methods, imported).get(name) if func is not None else None
    if bound is None:
        bound = _method_bindings(tree, methods, imported).get(name, ())
    out = []
    for value in bound:
        if isinstance(value, ast.Name):
            callee = ast.copy_location(ast.Name(id=value.id, ctx=ast.Load()), node.func)
        else:
            callee = ast.copy_location(ast.Attribute(value=value.value, attr=value.attr, ctx=ast.Load()), node.func)
        callee.end_lineno, callee.end_col_offset = node.func.end_lineno, node.func.end_col_offset
        out.append(ast.copy_location(ast.Call(func=callee, args=node.args, keywords=node.keywords), node))
    return out


def method_aliases(func, tree: ast.Module, methods) -> frozenset[str]:
    """The plain names that `func` (else the module `tree`, for a name `func` binds nowhere)
    binds to an SDK method of `methods` (`create_func = self._client.messages.create`): a call
    that hands such a name to a function that calls it (flow/relays.py `forwarded_call`) sends
    a request through it."""
    imported = _imported_methods(tree, methods)
    local = _method_bindings(func, methods, imported) if func is not None else {}
    names = {name for name, bound in local.items() if bound}
    names.update(name for name, bound in _method_bindings(tree, methods, imported).items()
                 if bound and name not in local)
    return frozenset(names)


def _imported_methods(tree: ast.Module, methods) -> frozenset[str]:
    """The local names that `from module import name [as local]` binds to a function named as an
    SDK method of `methods` (`from litellm import completion`), anywhere in the module. Read once
    per tree."""
    found = getattr(tree, "_sdk_imports", None)
    if found is None:
        known = set(methods)
        found = frozenset(a.asname or a.name for n in statements(tree) if isinstance(n, ast.ImportFrom) and n.module
                          for a in n.names if a.name in known)
        tree._sdk_imports = found
    return found


def _method_bindings(owner, methods, imported=frozenset()) -> dict[str, list[ast.Attribute | ast.Name]]:
    """Name -> the attributes ending in an SDK method name of `methods` (or the names of
    `imported`, SDK functions imported under such a name) that the own statements of `owner` (a
    function or a module) bind it to; a name bound only to other values maps to [] (it is bound
    here: the module's binding does not apply). Read once per owner node."""
    found = getattr(owner, "_sdk_aliases", None)
    if found is None:
        known = set(methods)
        found = {}
        for target, value in _assignments(owner):
            kept = found.setdefault(target, [])
            if isinstance(value, ast.Attribute) and value.attr in known and isinstance(value.value, (ast.Attribute, ast.Name)):
                kept.append(value)
            elif isinstance(value, ast.Name) and value.id in imported and value.id != target:
                kept.append(value)
        owner._sdk_aliases = found
    return found


@lru_cache(maxsize=4)
def _alias_text(methods: tuple[str, ...]) -> re.Pattern:
    """`name = a.b.method` (or `name = method`, an imported function) at the end of a line,
    `method` one of `methods`: the text an alias binding needs (the gate before any tree is read)."""
    return re.compile(r"=[ \t]{0,8}(?:[A-Za-z_][\w.]{0,200}\.)?(?:%s)[ \t]*(?:#[^\n]*)?$" % "|".join(map(re.escape, methods)),
                      re.M)


def may_alias(source: str, methods) -> bool:
    """True when the module's text binds a name to an SDK method (`aliased_calls` may find one)."""
    return _alias_text(tuple(methods)).search(source) is not None
