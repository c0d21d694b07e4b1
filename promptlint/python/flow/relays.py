"""Calls that relay a call (`classify.RELAY_CALLS`, `RELAY_METHODS`): `functools.partial(fn, *args,
**kwargs)`, `asyncio.to_thread(fn, ...)`, `loop.run_in_executor(None, fn, ...)`,
`executor.submit(fn, ...)` call `fn` with the other arguments they are given. `relayed(module,
node)` is that call written out (`fn(*args, **kwargs)`, at the relay's place): the site finder
matches it against the SDK call shapes (a send call made through a partial or a thread), and the
callers of a function read it as one of its call sites (its parameters take what the relay passes).
A function of the project that does the same (`forwarded_call`: a retry helper `def
backoff_create(create_fn, exceptions, *args, **kwargs): return create_fn(*args, **kwargs)`,
handed an SDK method) relays its calls too.
"""
from __future__ import annotations

import ast

from ... import classify


def relay_index(module, node: ast.Call) -> int | None:
    """The position of the relayed function among the positional arguments of `node`, or None
    when `node` is no relay."""
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in classify.RELAY_METHODS:
        qual = module.qualified_name(func) or ""
        return classify.RELAY_CALLS.get(qual, classify.RELAY_METHODS[func.attr])
    if isinstance(func, (ast.Name, ast.Attribute)):
        return classify.RELAY_CALLS.get(module.qualified_name(func) or "")
    return None


def relayed(module, node: ast.Call) -> ast.Call | None:
    """The call a relay makes (`fn(*args, **kwargs)`, located where the relay is written), or None
    when `node` is no relay or what it relays is not a function named in the code (`fn`,
    `client.chat.completions.create`, `self._send`)."""
    at = relay_index(module, node)
    if at is None or len(node.args) <= at or any(isinstance(a, ast.Starred) for a in node.args[:at + 1]):
        return None
    fn = node.args[at]
    if not isinstance(fn, (ast.Name, ast.Attribute)):
        return None
    call = ast.Call(func=fn, args=node.args[at + 1:], keywords=node.keywords)
    return ast.copy_location(call, node)


def relay_name(node: ast.Call) -> str | None:
    """The last name of a call's callee (`partial`, `run_in_executor`), for a cheap test before
    `relayed`."""
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


#: Last names of every relay (qualified names' last part and method names).
RELAY_NAMES = frozenset({q.rsplit(".", 1)[-1] for q in classify.RELAY_CALLS} | set(classify.RELAY_METHODS))


def relayed_call(module, node: ast.Call, name: str | None, project, methods: frozenset[str],
                 aliases=None) -> ast.Call | None:
    """The call `node` makes through a relay (`relayed`, for a call whose last name `name` is one
    of `RELAY_NAMES`) or through a function of the project that forwards its arguments
    (`forwarded_call`; `aliases(node)`: the names bound to SDK methods where `node` is, asked only
    when a plain name is among its arguments), or None."""
    if name in RELAY_NAMES:
        return relayed(module, node)
    if not node.args:
        return None
    return forwarded_call(module, node, project, methods,
                          aliases(node) if aliases is not None and any(isinstance(a, ast.Name) for a in node.args)
                          else frozenset())


def forwarded_call(module, node: ast.Call, project, methods: frozenset[str],
                   aliases: frozenset[str] = frozenset()) -> ast.Call | None:
    """The call `node` makes through a function of the project that calls one of its parameters
    with the rest of its arguments (`forwarding_index`), when `node` hands it a method named like
    an SDK's send call (`methods`: `create`, `completion`, ...) or a name bound to one (`aliases`:
    `create_func = self._client.messages.create`): `backoff_create(client.messages.create,
    errors, messages=m, **kw)` is `client.messages.create(messages=m, **kw)`, at `node`'s place.
    The function is a module function (`backoff_create(...)`, also imported) or a method called on
    `self` (`self._call_client(create_func, **params)`), found in the module's classes or, when
    they define none of that name, in the package's (a base class elsewhere: `forwarding_method`).
    None otherwise (a cheap test of the arguments first)."""
    at = next((i for i, a in enumerate(node.args) if isinstance(a, ast.Attribute) and a.attr in methods
               or isinstance(a, ast.Name) and a.id in aliases), None)
    if at is None or any(isinstance(a, ast.Starred) for a in node.args[:at]):
        return None
    func, skip = None, 0
    if isinstance(node.func, ast.Name):
        func = module.functions.get(node.func.id)
        dotted = module.imports.get(node.func.id) if func is None else None
        if dotted is not None:
            found = project.resolve_symbol(dotted)
            func = found[0].functions.get(found[1]) if found is not None else None
    elif isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) and node.func.value.id == "self":
        func, skip = forwarding_method(module, node.func.attr, project, at + 1), 1
    if func is None or forwarding_index(func) != at + skip:
        return None
    params = [*func.args.posonlyargs, *func.args.args]
    named = {a.arg for a in params[skip:]}
    rest = node.args[len(params) - skip:]
    call = ast.Call(func=node.args[at], args=rest, keywords=[k for k in node.keywords if k.arg not in named])
    return ast.copy_location(call, node)


#: How many modules of the package may define a method of the name before none is read.
_METHOD_DEFINERS = 3


def forwarding_method(module, name: str, project, index: int):
    """The method `name` of a class of `module` that calls its parameter at `index` (`self`
    counted) with its own `*args, **kwargs`; else, when no class of `module` defines `name`, the
    one method of that name the package's modules define (`project.functions_named`, at most
    `_METHOD_DEFINERS` of them) when every definition so forwards; None otherwise."""
    own = [f for c in module.classes.values() for f in c.body if isinstance(f, _FUNCS) and f.name == name]
    if not own and project is not None:
        found = project.functions_named(name, module.path, _METHOD_DEFINERS) or []
        own = [f for m in found for c in m.classes.values() for f in c.body if isinstance(f, _FUNCS) and f.name == name]
    if not own or any(forwarding_index(f) != index for f in own):
        return None
    return own[0]


_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def forwarding_index(func: ast.AST) -> int | None:
    """The position of the positional parameter that `func` calls with its own `*args` (if it
    takes any) and `**kwargs` and nothing else (`return create_fn(*args, **kwargs)`, `return
    fn(**kwargs)`), or None."""
    args = func.args
    if args.kwarg is None:
        return None
    params = [a.arg for a in (*args.posonlyargs, *args.args)]
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in params \
                and _names(node.args, ast.Starred) == ([args.vararg.arg] if args.vararg is not None else []) \
                and len(node.keywords) == 1 and node.keywords[0].arg is None \
                and isinstance(node.keywords[0].value, ast.Name) and node.keywords[0].value.id == args.kwarg.arg:
            return params.index(node.func.id)
    return None


def _names(items, wrapper) -> list[str | None]:
    """The names `items` wrap (`*args` -> "args"), None for anything else."""
    return [i.value.id if isinstance(i, wrapper) and isinstance(i.value, ast.Name) else None for i in items]
