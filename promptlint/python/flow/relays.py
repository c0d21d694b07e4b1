"""Calls that relay a call (`classify.RELAY_CALLS`, `RELAY_METHODS`): `functools.partial(fn, *args,
**kwargs)`, `asyncio.to_thread(fn, ...)`, `loop.run_in_executor(None, fn, ...)`,
`executor.submit(fn, ...)` call `fn` with the other arguments they are given. `relayed(module,
node)` is that call written out (`fn(*args, **kwargs)`, at the relay's place): the site finder
matches it against the SDK call shapes (a send call made through a partial or a thread), and the
callers of a function read it as one of its call sites (its parameters take what the relay passes).
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
