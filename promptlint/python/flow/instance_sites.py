"""Call sites of a method through an instance of its class held elsewhere: the wrapper class of a
request (`class LLM: def complete(self, system, history, user): client.chat.completions.create(
messages=[{"role": "system", "content": system}, *history, ...])`) called by the code that
builds the prompt (`self.llm.complete(preamble, self.history, question)`, `llm.complete(...)`),
in its own module or in the other modules of its package tree that build one (docs/policies.md, Policy 8: the
layout is the caller's, judged where the caller builds it).

A call counts when its callee, evaluated in the calling function's frame, is this very method
bound to an instance (`Func` whose node is the method), or when its receiver is an instance the
code builds of the class (`Obj` of `LLM(...)`), or an alternative of which one option is
(`self.model` that is a given model or `OpenAIModel(...)` by default). A call whose receiver is not known (`self.client.get_completion(
...)` of a client handed in) does not count: the package may call a namesake of another class.
"""
from __future__ import annotations

import ast

from ..walk import children
from .values import Alt, Func, Obj

MAX_MODULES = 10  # modules of the package tree read for the calls of one method


def instance_sites(evaluator, module, func, cls, depth: int, limit: int) -> list:
    """(module, call, enclosing function, class) of the calls `x.name(...)` (any receiver but a
    bare `self` / `cls`) of the method `func` of `cls` in `module` and in the other modules of its
    package tree that build an instance (`LLM(...)`: the calls of the class, `callers_of`) and
    bind `x` to an instance of `cls`; [] when there are none or more than
    `limit` (too many callers: the parameter stays unknown) or the tree is too large to read."""
    key = ("instance_sites", id(func), depth, limit)  # (the sites do not depend on the parameter asked)
    found = evaluator._return_cache.get(key)
    if found is None:
        found = evaluator._return_cache[key] = _instance_sites(evaluator, module, func, cls, depth, limit)
    return found


def _instance_sites(evaluator, module, func, cls, depth: int, limit: int) -> list:
    """`instance_sites` once its cache was asked."""
    name = func.name
    modules = [module]
    if getattr(module, "path", None) is not None:
        others = evaluator.project.callers_of(cls.name, module.path, MAX_MODULES)
        if others is None:
            return []
        modules += others
    sites = []
    for other in modules:
        for call, caller, c in _attribute_calls(other, name):
            if caller is func:
                continue
            frame = evaluator.module_frame(other) if caller is None else \
                evaluator.unbound_frame(other, caller, c, depth, None)
            if _is_method(evaluator.eval(call.func, frame), func) or \
                    _is_instance(evaluator.eval(call.func.value, frame), cls):
                sites.append((other, call, caller, c))
                if len(sites) > limit:
                    return []
    return sites


def _is_method(value, func) -> bool:
    """True when `value` (a callee) is the method `func` bound to an instance, or an Alt with
    such an option."""
    if isinstance(value, Func):
        return value.node is func and value.self_value is not None
    if isinstance(value, Alt):
        return any(_is_method(option, func) for option in value.options)
    return False


def _is_instance(value, cls) -> bool:
    """True when `value` (a receiver) is an instance the code builds of `cls` (`LLM(...)`), or an
    Alt with such an option (`llm or LLM()`, `model if model else OpenAIModel(...)`)."""
    if isinstance(value, Obj):
        return value.node is cls and value.qualname.startswith("instance:")
    if isinstance(value, Alt):
        return any(_is_instance(option, cls) for option in value.options)
    return False


def _attribute_calls(module, name: str) -> list:
    """(call, enclosing function, class) of the calls `<expr>.name(...)` of `module` whose receiver
    is not a bare `self` or `cls` (those are the class's own calls, `callers.calls_named`), in
    source order (row, then column). Read from one index of the module's attribute calls by name,
    made on the first ask and kept with the module (`_attribute_index`)."""
    if "." + name not in module.source:
        return []
    return _attribute_index(module).get(name, [])


def _attribute_index(module) -> dict:
    """name -> the entries of `_attribute_calls(module, name)`: one walk of the module for every
    name (the walk of each name alone visited every node of the module again), each list sorted
    as that walk's was (a stable sort of the same entries in the same walk order)."""
    cached = module._pieces.get("attribute calls")
    if cached is not None:
        return cached[1]
    index: dict = {}
    todo: list = [(module.tree, None, None)]
    while todo:
        node, fn, cls = todo.pop()
        f = getattr(node, "func", None) if isinstance(node, ast.Call) else None
        if isinstance(f, ast.Attribute) and not (isinstance(f.value, ast.Name) and f.value.id in ("self", "cls")):
            index.setdefault(f.attr, []).append((node, fn, cls))
        for child in children(node):
            kind = type(child)
            if kind in (ast.FunctionDef, ast.AsyncFunctionDef):
                todo.append((child, child, cls))
            elif kind is ast.ClassDef:
                todo.append((child, None, child))
            else:
                todo.append((child, fn, cls))
    for entries in index.values():
        entries.sort(key=lambda entry: (entry[0].lineno, entry[0].col_offset))
    module._pieces["attribute calls"] = (None, index)
    return index
