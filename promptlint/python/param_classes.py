"""A class reached through a parameter whose default is that class (facts for the library
windows of PRM105): `def from_tools(..., memory_cls: Type[BaseMemory] = ChatMemoryBuffer)`, then
`memory_cls.from_defaults(chat_history, llm=llm)` builds a `ChatMemoryBuffer` whenever the caller
leaves the parameter at its default. Read from the syntax tree alone.
"""
from __future__ import annotations

import ast

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def default_class(func, name: str) -> ast.expr | None:
    """The default of the parameter `name` of `func` when it names a class (a name or a dotted
    name, `ChatMemoryBuffer`, `memory.ChatMemoryBuffer`) and the function never binds `name`
    again; else None (no such parameter, no default, a default that is a call or a constant)."""
    if not isinstance(func, _FUNCS):
        return None
    args = func.args
    positional = [*args.posonlyargs, *args.args]
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    default = next((d for a, d in pairs if a.arg == name), None)
    if not _dotted(default):
        return None
    body = func.body if isinstance(func.body, list) else [func.body]
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, (ast.Store, ast.Del)):
                return None  # (rebound in the body: the default may not be what is called)
    return default


def _dotted(node) -> bool:
    """True for `Name` or `a.b.Name` whose last part is written as a class (capitalised)."""
    if isinstance(node, ast.Attribute):
        return _dotted(node.value) and node.attr[:1].isupper() or isinstance(node.value, ast.Name) \
            and node.attr[:1].isupper()
    return isinstance(node, ast.Name) and node.id[:1].isupper()
