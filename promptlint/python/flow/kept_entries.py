"""A dict rebuilt from its own entries keeps its keys: `{k: v for k, v in params.items() if v is
not None}` (the options left unset dropped before a send), `{k: clean(v) for k, v in obj.items()}`
in the function `clean` itself (a converter that walks a request and rewrites values of some types,
dates to text: the same keys, each value converted the same way).

Read as the dict it rebuilds, entry by entry in its order, so a request dict passed on as
`**params` after such a rebuild is still a request whose messages, system prompt and tools are
known. An entry that a filter drops whatever the request (`if v is not None` of a value written
`None`, `if k != "stream"`, `if k not in ("user",)`: `MapsMixin.static_truth`) is left out; a
filter that cannot be decided keeps the entry (the request may send it).
"""
from __future__ import annotations

import ast
from dataclasses import replace

from .frames import Thunk
from .values import Alt, Mapping, Value, static

#: The most entries a rebuilt dict is read for entry by entry (a request's options).
KEPT_ENTRIES = 64


class KeptEntriesMixin:
    """Dicts rebuilt from their own entries, for the Evaluator."""

    def kept_entries(self, node, frame, env: dict) -> Mapping | None:
        """The dict that `node`, a dict comprehension over `X.items()` keeping each key (`k: v`
        or, inside the function `f`, `k: f(v)`), rebuilds from the known dict X: its entries in
        order, those a filter drops whatever the request left out. None for any other comprehension
        or when X is not a dict of known keys (`Mapping` not `repeated`; each variant of a dict
        completed in branches is rebuilt alike)."""
        if not isinstance(node, ast.DictComp) or len(node.generators) != 1:
            return None
        comp = node.generators[0]
        looked_up = _looked_up(node, comp)
        if looked_up is not None:
            if self._order_of(self.eval(comp.iter, frame, env), comp.iter, frame) is not None:
                return None  # (keys taken in a set's order: the dict comes in that order, containers.py)
            return self._picked(node, looked_up, frame, env)
        names = _key_value_names(comp.target)
        if names is None or comp.is_async or not _items_call(comp.iter):
            return None
        key, val = names
        if not (isinstance(node.key, ast.Name) and node.key.id == key) or not _kept_value(node.value, val, frame):
            return None
        source = self.eval(comp.iter.func.value, frame, env)
        if not _known_dicts(source):
            return None

        def rebuilt(value):
            if isinstance(value, Alt):
                return replace(value, options=[rebuilt(o) for o in value.options])
            return self._kept(node, comp, key, val, value, frame, env)
        return rebuilt(source)

    def _picked(self, node, source_node, frame, env: dict) -> Value | None:
        """`{k: d[k] for k in names if k in d}`: the entries of the known dict `d` whose keys
        `names` picks, what they are not known: each entry of `d` kept (the request may send it),
        in an order that is not the code's (`node` None), each variant of a dict completed in
        branches alike; None when `d` is not such a dict. (Names iterated in an order that differs
        between runs, a set's, are left to the comprehension's reading, which keeps that order.)"""
        source = self.eval(source_node, frame, env)
        if not _known_dicts(source):
            return None

        def picked(value):
            if isinstance(value, Alt):
                return replace(value, options=[picked(o) for o in value.options])
            return Mapping(dict(value.items), key_spans=dict(value.key_spans), span=frame.module.span(node),
                           node=None, unordered=value.unordered, open=value.open)
        return picked(source)

    def _kept(self, node, comp, key: str, val: str, source: Mapping, frame, env: dict) -> Mapping:
        """The entries of `source` that `comp`'s filters keep (see `kept_entries`)."""
        items, spans = {}, {}
        for name, value in source.items.items():
            inner = {**env, key: Thunk("value", value=static(name, None)), val: Thunk("value", value=value)}
            if any(self.static_truth(cond, frame, inner) is False for cond in comp.ifs):
                continue  # dropped whatever the request (`None` where it is written, a key filtered out)
            items[name] = value
            if name in source.key_spans:
                spans[name] = source.key_spans[name]
        return Mapping(items, key_spans=spans, span=frame.module.span(node), node=source.node
                       if len(items) == len(source.items) else None, unordered=source.unordered, open=source.open)


def _known_dicts(value, depth: int = 0) -> bool:
    """True when `value` is a dict of 1 to KEPT_ENTRIES known keys, or each variant of one built in
    branches is (nested a few levels at most)."""
    if isinstance(value, Alt):
        return depth < 4 and bool(value.options) and all(_known_dicts(o, depth + 1) for o in value.options)
    return isinstance(value, Mapping) and not value.repeated and 0 < len(value.items) <= KEPT_ENTRIES


def _looked_up(node: ast.DictComp, comp: ast.comprehension) -> ast.expr | None:
    """The dict `d` of `{k: d[k] for k in names ...}` (each key looked up in one dict, by itself),
    else None."""
    if not (isinstance(comp.target, ast.Name) and isinstance(node.key, ast.Name) and node.key.id == comp.target.id):
        return None
    value = node.value
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Name) and value.slice.id == comp.target.id \
            and not comp.is_async:
        return value.value
    return None


def _key_value_names(target) -> tuple[str, str] | None:
    """(key name, value name) of a `for k, v in ...` target, else None."""
    if isinstance(target, ast.Tuple) and len(target.elts) == 2 and all(isinstance(e, ast.Name) for e in target.elts):
        return target.elts[0].id, target.elts[1].id
    return None


def _items_call(node) -> bool:
    """`X.items()`."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "items" \
        and not node.args and not node.keywords


def _kept_value(value, name: str, frame) -> bool:
    """True when the entry's value is the source's own (`v`) or, inside the function `f`, the
    converter's recursion on it (`f(v)`): the rebuilt dict has the same values, converted alike."""
    if isinstance(value, ast.Name):
        return value.id == name
    if not (isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords
            and isinstance(value.args[0], ast.Name) and value.args[0].id == name):
        return False
    func = getattr(frame, "func", None)
    callee = value.func
    called = callee.id if isinstance(callee, ast.Name) else callee.attr if isinstance(callee, ast.Attribute) else None
    return func is not None and called == getattr(func, "name", None)
