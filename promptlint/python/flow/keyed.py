"""Dicts filled by key in a loop, and the order they keep (PRM202); lists sorted in place; an item
read by its key from one of several values, some of them dicts, and a method no dict has called
on such a value (a response among a wrapper's variants, one of them a dict keeping a random model
pick beside it: what is read is the response's, never the text of the dict's other items).

`deps[edge.name] = result` in a loop over a set fills the dict in the set's order: its items,
values and JSON come in that order. `values[f] = set()` (or `defaultdict(set)`) fills it with
sets: `values[f]` reads back one of them, iterated in its hash-seed order. Such a dict is a
`Mapping` that is `repeated` (its keys are not known) with `value` one of its values and
`unordered` the iteration that ordered its keys. A dict filled in a fixed order with values that
hold no order is left as the evaluator read it before (its keys set by key are not read).
"""
from __future__ import annotations

import ast
from ...model import replace

from .frames import Thunk
from ...model import Kind, Volatility
from .values import Alt, Mapping, Seq, Spread, Text, Value, dynamic, held_order, keyword_entry


class KeyedMixin:
    """Item assignments by a key not known statically, of the Evaluator."""

    def item_of_variants(self, base: Value, key: str | int, node, frame) -> Value | None:
        """`x["choices"]`, `x.get("choices")` or `x[0]` of a value that is one of several, some of them
        dicts (`{**response, "picked_model": random.choice(pool)}` in one branch, the response
        itself in another): the item of each dict that holds the key; from a dict that does not
        (its other keys, or data of its `**spread` the analysis cannot see), a value not known
        statically, never the text of its other items (a response's content is not the random
        pick kept beside it). None when no variant is a dict. The options of nested choices are
        all read, each once (a wrapper whose branches return a response, the response of a
        recursive call, a dict made of it: many variants sharing the same values); past
        MAX_FLAT distinct ones, the rest is one value not known statically, never their text."""
        if not isinstance(base, Alt):
            return None
        flat, cut, dicts = _flat_options(base)
        if not dicts:
            return None
        m = frame.module
        options = []
        if cut:
            options.append(dynamic(m.span(node), m.code(node), Kind.UNKNOWN, Volatility.UNKNOWN,
                                   f"the item `{key}` of one of many values"))
        for o in flat:
            if isinstance(o, Mapping) and not o.repeated and key in o.items:
                options.append(o.items[key])
            elif isinstance(o, Mapping) and not o.repeated and o.keywords and isinstance(key, str):
                options.append(keyword_entry(o, key, m.span(node), m.code(node)))  # a keyword a caller may pass
            elif isinstance(o, Mapping) and not o.repeated:
                options.append(dynamic(m.span(node), m.code(node), Kind.UNKNOWN, Volatility.UNKNOWN,
                                       f"the item `{key}` of a dict not known statically"))
            elif isinstance(o, Seq) and not o.repeated and isinstance(key, int) and -len(o.items) <= key < len(o.items):
                options.append(o.items[key])
            else:
                options.append(self.derived(o, node, frame, m.code(node), attr=key if isinstance(key, str) else None))
        return Alt(options, m.span(node), base.fallback, base.configured, base.per_caller)

    def call_of_variants(self, base: Alt, method: str, node, args, kwargs, frame, env) -> Value | None:
        """`x.json()` of a value that is one of several, some of them dicts written in the code
        (`{**response, "picked_model": random.choice(pool)}` in one branch): a method no dict has
        gives, on such a dict, nothing known statically (never the text of its items); on the
        other variants, what it gives on them. None when no variant is a dict."""
        flat, cut, dicts = _flat_options(base)
        if not dicts:
            return None
        m = frame.module
        others = [o for o in flat if not (isinstance(o, Mapping) and not o.repeated)]
        options: list[Value] = [dynamic(m.span(node), m.code(node), Kind.UNKNOWN, Volatility.UNKNOWN,
                                        f"`.{method}()` of one of several values, one of them a dict")]
        if others:
            options.append(self.method(Alt(others, base.span, base.fallback, base.configured, base.per_caller),
                                       method, node, args, kwargs, frame, env))
        return Alt(options, m.span(node), base.fallback, base.configured, base.per_caller)

    def set_key(self, th: Thunk, prev, frame) -> Value:
        """The dict `prev` after `prev[key] = th.node` (or `prev[key][k] = th.node`) in a loop: when
        the loop iterates an unordered source (`for edge in self.edges:` of a set), a dict whose
        keys come in that order; when the value set holds such an order itself (`values[f] =
        set()`, `out[f] = ", ".join(list(s)[:20])`), a dict holding such values; else a dict made
        empty and filled in the loop's order (`ent_props[e.label] = [...]`). One of its values is the
        one set, one of its keys the key set (`Mapping.key`). Any other dict (one with items written
        in the code, completed by the loop) as it was."""
        prev = filled_dict(prev) or prev
        if not isinstance(prev, Mapping):
            return prev
        order = prev.unordered or self._loop_order(th, frame)
        value = self.eval(th.node, frame, th.env)
        if order is None and held_order(value) is None and prev.items:
            return prev  # (a request dict completed by a loop over options, `body[k] = v`: its items stand)
        if prev.value is not None and prev.value != value:  # several items set: one of them
            value = Alt([prev.value, value], prev.span)
        # (a key of an unordered loop, `for label in routes_of(c)` over a set, is left unknown: the
        # dict's order says it, `Mapping.unordered`; the key itself sorts like any, `sorted(d.items())`)
        key = self._set_key_of(th, frame) if order is None and (not prev.repeated or prev.key is not None) else None
        if key is not None and prev.key is not None and prev.key != key:
            key = Alt([prev.key, key], prev.span)
        # (filled in an order the loop fixes, with values of no order of their own: its keys are
        # written in the code's order, as a display's: `serial_orders.written`)
        node = prev.node if order is None and held_order(value) is None else None
        return replace(prev, repeated=True, value=value, unordered=order, node=node, key=key)

    def _set_key_of(self, th: Thunk, frame) -> Value | None:
        """The key `th` sets an item of its dict by (`ent_props[e.label] = ...`: `e.label`), None for
        an item of one of its values (`schema[field]["values"] = ...`) or a statement not known."""
        target = th.at
        if not isinstance(target, ast.Subscript) or not isinstance(target.value, ast.Name):
            return None
        return self.eval(target.slice, frame, th.env)

    def key_grown(self, th: Thunk, prev, frame) -> Value:
        """The dict `prev` after `groups[k].append(x)` (or `.extend`, `groups.setdefault(k,
        []).append(x)`; `th.node`) in a loop: when the loop iterates an unordered source, a dict
        whose lists grow in that order (its keys set in the same loop come in it too). One of its
        values is such a list. Any other dict as it was."""
        base = filled_dict(prev) or prev
        if not isinstance(base, Mapping):
            return prev
        order = self._loop_order(th, frame)
        if order is None:
            return prev
        added = self.eval(th.node.args[0], frame, th.env)
        grown = Seq([added if th.node.func.attr == "append" else Spread(added)], repeated=True, unordered=order)
        return replace(base, repeated=True, value=grown, unordered=base.unordered or order, node=None)


def filled_dict(value) -> Mapping | None:
    """Of a dict, or of one of several dicts (an `if` in a loop set a key of it, or not), the one
    filled by key in a loop (`repeated`, with one value for any of its items); else None."""
    options = _options(value, set())
    if not options or not all(isinstance(o, Mapping) for o in options):
        return None
    return next((o for o in options if o.repeated and o.value is not None), None)


def _options(value, seen: set) -> list:
    """The values an Alt stands for, nested Alts flattened (each Alt read once)."""
    if not isinstance(value, Alt):
        return [value]
    if id(value) in seen:
        return []
    seen.add(id(value))
    return [o for option in value.options for o in _options(option, seen)]


def held_set(base, key) -> Value | None:
    """`values[f]` of a dict filled by key with values in an unordered order (`values[f] = set()`):
    one of those values; None for any other subscript (a key the dict was given statically too)."""
    filled = filled_dict(base)
    if filled is None or key in filled.items:
        return None
    held = held_order(filled.value)
    grown = isinstance(filled.value, Seq) and filled.value.repeated  # a list grown in the loop (`key_grown`)
    if held is None or not grown and filled.unordered is not None and _source(held) == _source(filled.unordered):
        # `{name: alias(name) for name in names}[n]`: an element of the set the keys come from,
        # one value looked up, not a list in that order
        return None
    return filled.value


def _source(seg):
    """Where an order was made (the set or listing it comes from)."""
    return seg.origin or seg.span


def holds_order(value) -> bool:
    """True for a tuple (a dict's entry, `(key, value)`) with a member in an unordered order."""
    return isinstance(value, Seq) and value.is_tuple and any(
        held_order(v) is not None for v in value.items if not isinstance(v, Spread))


def entry_part(item, target: ast.AST, index: int) -> Value:
    """The part of `item` that the `index`-th name of a loop target takes: of a tuple unpacked into
    plain names (an entry that holds an order, `for field, values in out.items()`; a pair of
    `zip(names, rows)`), its member; else the whole item, as before."""
    if (isinstance(item, Seq) and item.is_tuple and isinstance(target, ast.Tuple) and len(target.elts) == len(item.items)
            and not any(isinstance(v, Spread) for v in item.items) and all(isinstance(e, ast.Name) for e in target.elts)):
        return item.items[index]
    return item


def sorted_in_place(prev) -> Value:
    """The list `prev` after `prev.sort(...)`: its items in a fixed order (as `sorted(prev)`); a
    list read as text in an unordered order (`list(s)`), a sorted list of unknown items."""
    if isinstance(prev, Alt):
        return Alt([sorted_in_place(o) for o in prev.options], prev.span, prev.fallback, prev.configured)
    if isinstance(prev, Seq):
        return replace(prev, ordered=True, unordered=None)
    if isinstance(prev, Text) and any(s.kind is Kind.UNORDERED_ITERATION for s in prev.segs):
        return Seq([], None, repeated=True, ordered=True)
    return prev


MAX_FLAT = 128  # distinct options of nested choices read for an item by key
MAX_VISITS = 2048  # values visited to find them (choices share sub-values)


def _flat_options(alt: Alt) -> tuple[list[Value], bool, bool]:
    """The distinct options of a choice with the options of the choices among them (a value
    reassigned in branches: `response = response[0]` under an `if`), each once, up to MAX_FLAT;
    whether some were left out; and whether one of them, read or left out, is a dict written in
    the code (looked for up to MAX_VISITS values). Kept on the choice: it is read again with
    each item read from it."""
    known = alt.__dict__.get("_flat")
    if known is None:
        known = alt.__dict__["_flat"] = _flatten(alt)
    return known


def _flatten(alt: Alt) -> tuple[list[Value], bool, bool]:
    out: list[Value] = []
    seen: set[int] = set()
    todo = list(alt.options)
    visits, cut, dicts = 0, False, False
    while todo and visits < MAX_VISITS:
        one = todo.pop(0)
        visits += 1
        if id(one) in seen:
            continue
        seen.add(id(one))
        if isinstance(one, Alt):
            todo[:0] = one.options
            continue
        dicts = dicts or isinstance(one, Mapping) and not one.repeated
        if len(out) < MAX_FLAT:
            out.append(one)
        else:
            cut = True
            if dicts:
                break
    return out, cut or bool(todo), dicts
