"""Names a nested function reads from the function around it (a closure):

    async def generate(graph, config):
        template = PROMPTS["community_report"]
        async def one(community):
            describe = await pack(graph, community)
            prompt = template.format(input_text=describe)   # `template`, `graph`: the outer's
            ...
        await asyncio.gather(*[one(c) for c in communities])

A name the nested function does not bind is the enclosing function's binding of it, as seen where
the nested function is defined (its `def` statement; a name bound only after it, as seen at the end
of the enclosing function), evaluated in a frame of the enclosing function at the same depth (its
parameters asked of its callers as any frame's are). A name neither binds is the module's.
"""
from __future__ import annotations

import ast

from ..walk import block_statements, child_nodes
from .scopes import END
from .frames import Frame

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def enclosing(module, func) -> tuple | None:
    """(enclosing function, its class or None) of the function `func` defined inside another
    function of `module`, or None for a module-level function or a method."""
    table = module._pieces.get("enclosing")
    if table is None:
        table = {}
        todo: list = [(module.tree, None, None)]
        while todo:  # (a function is defined by a statement: the blocks of statements are walked, not expressions)
            node, outer, cls = todo.pop()
            for child in block_statements(node):
                if isinstance(child, _FUNCS):
                    if outer is not None:
                        table[id(child)] = (outer, cls)
                    todo.append((child, child, cls))
                elif isinstance(child, ast.ClassDef):
                    todo.append((child, None, child))
                else:
                    todo.append((child, outer, cls))
        module._pieces["enclosing"] = (None, table)
    else:
        table = table[1]
    return table.get(id(func))


def closure_value(evaluator, frame: Frame, name: str):
    """The value of `name` that the nested function of `frame` reads from the functions around
    it, or None when none of them binds it."""
    func = frame.func
    while func is not None:
        found = enclosing(frame.module, func)
        if found is None or name in local_names(frame.module, func):
            return None
        outer, cls = found
        outer_frame = _outer_frame(evaluator, frame, outer, cls)
        value = evaluator.lookup(outer_frame, name, func)
        if value is None:
            value = evaluator.lookup(outer_frame, name, _End())
        if value is not None:
            return value
        frame, func = outer_frame, outer
    return None


def outer_parameters(module, func) -> tuple[set[str], set[str]]:
    """(parameters, `**` parameters) of the functions around the nested function `func` that
    `func` reads as they are (it binds no name of theirs, and the function that takes one binds it
    no other way): `def anthropic_chat(client, prompt, **kwargs): ... def messages(): return
    client.messages.create(messages=[{"role": "user", "content": prompt}], **kwargs)` reads
    `prompt` and `kwargs` of its callers. Both empty for a module-level function or a method.
    `self` and `cls` are left out."""
    params: set[str] = set()
    stars: set[str] = set()
    own = local_names(module, func)
    current = func
    while (found := enclosing(module, current)) is not None:
        outer = found[0]
        a = outer.args
        rebound = local_names(module, outer) - {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]} \
            - {p.arg for p in (a.vararg, a.kwarg) if p is not None}
        bound_again = _assigned(outer)
        params.update(p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs] if p.arg not in bound_again)
        if a.kwarg is not None and a.kwarg.arg not in bound_again:
            stars.add(a.kwarg.arg)
        own |= rebound
        current = outer
    return params - own - {"self", "cls"}, stars - own


def _assigned(func) -> set[str]:
    """The names a function's own body assigns (nested functions left out)."""
    out: set[str] = set()
    todo = list(func.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (*_FUNCS, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
        todo.extend(child_nodes(node))
    return out


def local_names(module, func) -> set[str]:
    """The names `func` binds itself (parameters, assignment and loop targets, imports, nested
    definitions; not those it declares `nonlocal` or `global`): Python makes them local to it in
    the whole body, so they never read the enclosing function's."""
    key = ("locals", id(func))
    known = module._pieces.get(key)
    if known is not None:
        return known[1]
    a = func.args
    names = {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]}
    names.update(p.arg for p in (a.vararg, a.kwarg) if p is not None)
    declared: set[str] = set()
    todo = list(func.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (*_FUNCS, ast.ClassDef)):
            names.add(node.name)
            continue  # (its own names are its own)
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((al.asname or al.name).split(".")[0] for al in node.names)
        elif isinstance(node, (ast.Nonlocal, ast.Global)):
            declared.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue  # (a comprehension's variables are its own)
        todo.extend(child_nodes(node))
    out = names - declared
    module._pieces[key] = (None, out)
    return out


def captured_default(evaluator, module, func, default):
    """The default `default` of a parameter of `func`, when `func` is nested in another function
    and the default reads a name (`def score(*, keys=keys)`, the idiom that captures a loop's
    current value): a thunk of that name as the enclosing function binds it where `func` is
    defined (evaluated each time the `def` runs, not once per process), read in the enclosing
    function's frame with no argument bound. None for any other default or function."""
    if not isinstance(default, ast.Name):
        return None
    found = enclosing(module, func)
    if found is None:
        return None
    from .frames import Thunk
    outer, cls = found
    frame = evaluator.unbound_frame(module, outer, cls)
    th = evaluator.env_at(frame, func).get(default.id)
    return None if th is None else Thunk("bound", value=frame, prev=th, name=default.id)


class _End:
    """A node after every statement (`env_at` reads the bindings at the end of the body)."""
    lineno = END


def _outer_frame(evaluator, frame: Frame, outer, cls) -> Frame:
    """A frame of the enclosing function `outer`, one per (function, depth, hops) in the analysis
    of one file: its body is read once for every name its nested functions ask for."""
    key = ("outer frame", id(outer), frame.depth, frame.hops)
    found = evaluator._return_cache.get(key)
    if found is None or found.module is not frame.module:
        found = evaluator._return_cache[key] = Frame(module=frame.module, func=outer, cls=cls, depth=frame.depth,
                                                     hops=frame.hops, self_value=frame.self_value) \
            if frame.self_value is not None else evaluator.unbound_frame(frame.module, outer, cls, frame.depth, frame.hops)
    return found
