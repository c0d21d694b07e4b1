"""A dict attribute completed by key in the methods of its class: `self.params = {...}` in
`__init__`, then `self.params["system"] = text` or `self.params.update(...)` (`class_facts.
keyed_writes`), sent later as `client.messages.create(**self.params)`.

Keys set by the methods that set the object up (`class_facts.setup_methods`) are in the dict
whenever it is read; keys set by any other method (`def enable_cache(self): self.params[
"cache_control"] = {...}`) are there once that method has run: the dict is then one of two, as
built and as that method leaves it (an `Alt`). A dict updated with data whose keys are not
known (`self.params.update(options)`) may hold others (`Mapping.open`).

Shape: `written(ev, module, cls, attr, value, self_value, depth) -> Value`.
"""
from __future__ import annotations

import ast

from ...model import replace
from .class_facts import keyed_writes, setup_methods
from .values import Alt, Mapping, Value
from .variants import dict_variants, one_dict


def written(ev, module, cls: ast.ClassDef, attr: str, value: Value, self_value, depth: int) -> Value:
    """`value`, the dict `self.attr` is assigned, with the keys the methods of `cls` set on it
    (see the module docstring); any other value as it is."""
    writes = keyed_writes(cls, attr)
    if not writes:
        return value
    dicts = [value] if isinstance(value, Mapping) and not value.repeated else \
        dict_variants(value) if isinstance(value, Alt) else None
    if not dicts:
        return value
    setup = setup_methods(cls)
    for method, stmt in writes:
        if method.name in setup:
            dicts = _applied(ev, module, cls, method, stmt, dicts, self_value, depth)
    built = dicts
    for method, stmt in writes:
        if method.name not in setup:
            dicts = _applied(ev, module, cls, method, stmt, dicts, self_value, depth)
    options = built + [d for d in dicts if all(d is not b for b in built)]
    return options[0] if len(options) == 1 else Alt(options, getattr(value, "span", None))


def _applied(ev, module, cls, method, stmt, dicts: list[Mapping], self_value, depth: int) -> list[Mapping]:
    """Each of `dicts` after the statement `stmt` of `method` (a key set, or an update) ran."""
    frame = ev._method_frame(module, cls, method, self_value, depth + 1)
    if isinstance(stmt, ast.Assign):
        target = next(t for t in stmt.targets if isinstance(t, ast.Subscript))
        key = target.slice.value
        items = {key: ev.eval(stmt.value, frame)}
        spans = {key: module.span(target if key == "cache_control" else stmt.value)}  # (a breakpoint: where it is set)
        opened = False
    else:
        call = stmt.value
        other = one_dict(ev.eval(call.args[0], frame)) if call.args else Mapping({})
        items = dict(other.items) if other is not None and not other.repeated else {}
        spans = dict(other.key_spans) if other is not None and not other.repeated else {}
        for kw in call.keywords:
            if kw.arg is not None:
                items[kw.arg] = ev.eval(kw.value, frame)
                spans[kw.arg] = module.span(kw)
        opened = other is None or other.repeated or other.open or any(kw.arg is None for kw in call.keywords)
    return [replace(d, items={**d.items, **items}, key_spans={**d.key_spans, **spans}, open=d.open or opened)
            for d in dicts]
