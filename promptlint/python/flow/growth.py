"""Lists and dicts changed by statements (a mixin of containers.ContainersMixin): `+=`, `append`
/ `extend` / `insert` (growth), `d[k] = v` (set_item), `update`, `random.shuffle`, and the order a
loop adds items in. A list grown in a loop is `repeated` with the items written before it as its
`head`; a list that is one of several (an `Alt` after an `if`) grows in each variant.
"""
from __future__ import annotations

import ast

from ... import classify
from ...model import Kind, Segment, Volatility, replace
from .configured import all_configured
from .fields import field_added
from .frames import Thunk
from .values import Alt, Mapping, Seq, Spread, Text, Value, dynamic, held_order
from .variants import dict_union, dict_variants, flat_options, list_variants, one_dict


class GrowthMixin:
    """Statements that grow or change a list or dict bound to a name."""

    def augment(self, th: Thunk, prev, frame) -> Value:
        """`name += value` (other operators: unknown). A list that is one of several (an Alt of
        lists, after an `if` that grew it) grows in each variant."""
        m = frame.module
        add = self.eval(th.node, frame, th.env)
        if isinstance(th.value, str):  # `message.content += text`
            return field_added(prev, th.value, add, lambda v: self.text_of(v, frame), th.name == "Set")
        if th.name == "BitOr" and (merged := dict_union(prev, add, getattr(prev, "span", None))) is not None:
            return merged  # `d |= other`: one dict (per variant), the right side's keys win
        if th.name != "Add":
            return dynamic(m.span(th.node), m.code(th.node))
        variants = list_variants(prev)
        where = (m.span(th.node), m.code(th.node))  # (one spread item made here, the same in every variant)
        if variants is not None:  # (a list we cannot read added to each: `messages += history`)
            return Alt([self._added(th, v, add, where) for v in variants], prev.span, configured=all_configured(prev))
        if isinstance(prev, Seq) or isinstance(add, Seq):
            return self._added(th, prev, add, where)
        segs = self.text_of(prev, frame) if prev is not None else []
        return Text(segs + self.text_of(add, frame))

    @staticmethod
    def _added(th: Thunk, prev, add, where=(None, "")) -> Seq:
        """The list `prev + add` (a value that is not a known list is kept as one spread item, made
        at `where`: the span and code of the added expression)."""
        base = prev.items if isinstance(prev, Seq) else ([] if prev is None else [Spread(prev)])
        items = base + (add.items if isinstance(add, Seq) and not add.repeated else [Spread(add, *where)])
        repeated = th.repeated or getattr(prev, "repeated", False)
        head = (prev.head if prev.repeated else len(prev.items)) if isinstance(prev, Seq) else 0
        return Seq(items, getattr(prev, "span", None), repeated=repeated,
                   unordered=getattr(prev, "unordered", None) or getattr(add, "unordered", None),
                   head=head if repeated else 0, tail=_tail(th, prev, items))

    def growth(self, th: Thunk, frame) -> Value | None:
        """What `.append` / `.extend` / `.insert` (`th.node`) adds to its list: the value of its
        argument (of the item inserted), or None when it adds nothing we read."""
        args = th.node.args
        if th.kind in ("append", "extend") and args:
            return self.eval(args[0], frame, th.env)
        if th.kind == "insert" and len(args) == 2:
            return self.eval(args[1], frame, th.env)
        return None

    def grow(self, th: Thunk, prev, frame, added: Value | None = None) -> Value:
        """The list `prev` after `.append` / `.extend` / `.insert` of `th.node`; `added`: what it
        adds (`growth`), when already read (once for every variant of a list built in branches)."""
        m = frame.module
        args = th.node.args
        base = prev.items if isinstance(prev, Seq) else ([] if prev is None else [Spread(prev)])
        if th.kind == "append" and args:
            item = self.eval(args[0], frame, th.env) if added is None else added
            self._return_cache[("appended at", id(item))] = (item, m.span(th.node))
            items = base + [item]
        elif th.kind == "extend" and args:
            ext = self.eval(args[0], frame, th.env) if added is None else added
            options = list_variants(ext) if isinstance(ext, Alt) else None
            if options and len(options) > 1 and all(not o.repeated for o in options):
                # extended by one of several known lists (`yield from` a generator that yields in
                # branches): one list per variant, not one item that stands for any list
                return Alt([self._grown(th, prev, base + o.items, frame) for o in options],
                           getattr(prev, "span", None), configured=all_configured(ext))
            items = base + (ext.items if isinstance(ext, Seq) and not ext.repeated
                            else [Spread(ext, m.span(args[0]), m.code(args[0]))])
        elif th.kind == "insert" and len(args) == 2:
            item = self.eval(args[1], frame, th.env) if added is None else added
            idx = args[0]
            at_start = isinstance(idx, ast.Constant) and idx.value == 0
            items = [item] + base if at_start else base + [item]
        else:
            items = base
        return self._grown(th, prev, items, frame)

    def _grown(self, th: Thunk, prev, items: list, frame) -> Seq:
        """The list `prev` grown by `th` to hold `items`."""
        unordered = (getattr(prev, "unordered", None) or (held_order(prev) if isinstance(prev, Text) else None)
                     or self._loop_order(th, frame))
        repeated = th.repeated or getattr(prev, "repeated", False)
        head = (prev.head if prev.repeated else len(prev.items)) if isinstance(prev, Seq) else 0
        return Seq(items, getattr(prev, "span", None), repeated=repeated, unordered=unordered,
                   head=head if repeated else 0, tail=_tail(th, prev, items))

    def set_item(self, th: Thunk, prev, frame) -> Value:
        """The dict `prev` after `prev[th.name] = th.node` (each variant of a dict set in
        branches, the value evaluated once); any other value as it was."""
        if isinstance(prev, Alt):
            variants = dict_variants(prev)
            if variants is None:  # not all dicts (a parameter in one branch): the same, flattened
                options = flat_options(prev, lambda v: True)
                return options[0] if len(options) == 1 else Alt(options, prev.span)
        elif isinstance(prev, Mapping) and not prev.repeated:
            variants = [prev]
        elif th.value is not None:  # a dict handed in: known by the conversation cut under its key
            variants = [Mapping({}, span=getattr(prev, "span", None))]
        else:
            return prev
        value = self.eval(th.node, frame, th.env)
        if th.value is not None:  # `d[key] = d_key[2:]` until it fits: its oldest messages dropped (scopes)
            value = self.windowed(value, th.value, frame, th.name)
        span = frame.module.span(th.node if th.at is None else th.at)
        made = [replace(v, items={**v.items, th.name: value}, key_spans={**v.key_spans, th.name: span})
                for v in variants]
        return made[0] if len(made) == 1 else Alt(made, prev.span)

    def set_path(self, th: Thunk, prev, frame) -> Value:
        """The list or dict `prev` after its item at the keys `th.value` is set to `th.node`
        (`th.name` "aug": the item's text followed by it: `system[-1]["text"] += note`); `prev` as
        it was when a key does not lead to a known item (a list of unknown length, an Alt)."""
        add = self.eval(th.node, frame, th.env)
        if th.name == "aug":
            change = lambda old: Text(self.text_of(old, frame) + self.text_of(add, frame))  # noqa: E731
        else:
            change = lambda old: add  # noqa: E731
        made = _at_path(prev, th.value, change, frame.module.span(th.node))
        return prev if made is None else made

    def updated(self, th: Thunk, prev, frame) -> Value:
        """The dict `prev` after `prev.update(other, key=value)` (`th.node`; each variant of a dict
        set in branches): the entries of `other` (a dict with static keys) and the keywords added,
        later ones winning; with `other` of keys not known, the entries known so far, in an order
        that is not the code's. Any other value (a set, a hash) as it was."""
        if isinstance(prev, Alt):
            variants = dict_variants(prev)
            if variants is None:
                return prev
        elif isinstance(prev, Mapping) and not prev.repeated:
            variants = [prev]
        elif unread_data(prev):
            # `kwargs = row; kwargs.update({"examples": EXAMPLES})`: a dict of keys not known (a
            # record handed in) with these keys set, as `{**row, "examples": EXAMPLES}`
            variants = [Mapping({}, span=getattr(prev, "span", None), open=True)]
        else:
            return prev
        call, m = th.node, frame.module
        other = one_dict(self.eval(call.args[0], frame, th.env)) if call.args else Mapping({})
        if not isinstance(prev, (Mapping, Alt)) and (other is None or "cache_control" in other.items):
            # (`x.update(y)` of two values not known: nothing known is added; a breakpoint set on a
            # block handed in is a marker of the frame, counted where it is set)
            return prev
        items = dict(other.items) if other is not None else {}
        spans = dict(other.key_spans) if other is not None else {}
        for kw in call.keywords:
            if kw.arg is not None:
                items[kw.arg] = self.eval(kw.value, frame, th.env)
                spans[kw.arg] = m.span(kw)
        known = other is not None and all(kw.arg is not None for kw in call.keywords)
        opened = not known or other.open or other.repeated  # (keys not known: `d.update(kwargs)`)
        made = [replace(v, items={**v.items, **items}, key_spans={**v.key_spans, **spans},
                        node=v.node if known else None, open=v.open or opened) for v in variants]
        return made[0] if len(made) == 1 else Alt(made, prev.span)

    def defaulted(self, th: Thunk, prev, frame) -> Value:
        """The dict `prev` after `prev.setdefault("key", value)` (`th.node`; each variant of a dict
        set in branches): the key set to the value where it is missing; an open dict (keys not
        known, `Mapping.open`) may hold it: one of both there. Any other value as it was."""
        variants = dict_variants(prev) if isinstance(prev, Alt) else [prev] if isinstance(prev, Mapping) else None
        if not variants or any(v.repeated for v in variants):
            return prev
        key, value = th.node.args[0].value, None
        made = []
        for v in variants:
            if key in v.items and not v.open:
                made.append(v)
                continue
            value = value or self.eval(th.node.args[1], frame, th.env)
            given = v.items.get(key) or dynamic(frame.module.span(th.node), f"{th.name}[{key!r}]",
                                                evidence=f"`{key}` of `{th.name}`, if it holds one")
            default = value if key not in v.items and not v.open else Alt([given, value], fallback=True)
            made.append(replace(v, items={**v.items, key: default},
                                key_spans={**v.key_spans, key: frame.module.span(th.node.args[1])}))
        return made[0] if len(made) == 1 else Alt(made, prev.span)

    def shuffled(self, th: Thunk, prev, frame) -> Value:
        """The list `prev` after `random.shuffle(prev)` (`th.node`): the same items in a random
        order, new on every call (reported at the shuffle: sorting would undo it)."""
        m = frame.module
        seg = Segment(span=m.span(th.node), kind=Kind.UNORDERED_ITERATION, volatility=Volatility.PER_REQUEST,
                      expr=m.code(th.node), evidence=f"`{m.code(th.node.func)}(...)`{classify.SHUFFLED_AT_RANDOM}")
        if isinstance(prev, Seq):
            return replace(prev, repeated=True, unordered=seg, ordered=False, head=0)
        return Text([seg])

    def _loop_order(self, th: Thunk, frame) -> Segment | None:
        """The unordered-iteration segment of the loop an append runs in, if its source is unordered."""
        ctx = th.loop
        while ctx is not None:  # the innermost loop first, then the loops around it
            found = self._order_in(ctx, frame)
            if found is not None:
                return found
            ctx = ctx[2]
        return None

    def _order_in(self, ctx: tuple, frame) -> Segment | None:
        """The unordered-iteration segment of the source of the loop `ctx` (its iterable node, the
        bindings before it, the loop around it) in `frame`, or None: read once per frame, however
        many of the items it adds (and variants of the lists they grow) ask."""
        known = frame.shared.get(id(ctx))
        if known is not None and known[0] is ctx:
            return known[1]
        node, env, _, source = ctx  # (`source`: the loop's own reading of its iterable, when it is `node`)
        found = self._order_of(self.force(frame, source) if source is not None else self.eval(node, frame, env), node,
                               frame)
        if not self.budget.exhausted:  # (a reading the prompt's budget cut short is not kept)
            frame.shared[id(ctx)] = (ctx, found)
        return found


def _at_path(value, keys: tuple, change, span) -> Value | None:
    """`value` with the item at `keys` replaced by `change(item)` (positions of a list written out,
    keys of a dict; a new last key of a dict is added, at `span`); None when a key does not lead
    to a known item."""
    if not keys:
        return change(value)
    key, rest = keys[0], keys[1:]
    if isinstance(value, Seq) and isinstance(key, int) and not value.repeated and _placed(value.items, key):
        item = _at_path(value.items[key], rest, change, span)
        if item is None:
            return None
        items = list(value.items)
        items[key] = item
        return replace(value, items=items)
    if isinstance(value, Mapping) and isinstance(key, str) and not value.repeated:
        if key not in value.items:
            return replace(value, items={**value.items, key: change(None)},
                           key_spans={**value.key_spans, key: span}) if not rest else None
        item = _at_path(value.items[key], rest, change, span)
        return None if item is None else replace(value, items={**value.items, key: item})
    return None


def _placed(items: list, key: int) -> bool:
    """True when the item at position `key` of a list's items is known: a position from the start
    before any spread of other items (the conversation appended after a system message), or from
    the end of a list without spreads."""
    if key >= 0:
        return key < len(items) and not any(isinstance(i, Spread) for i in items[:key + 1])
    return -len(items) <= key and not any(isinstance(i, Spread) for i in items)


def unread_data(value) -> bool:
    """True for a value of which nothing is known but that it is data (text of dynamic segments
    only, of no known kind: a parameter, an item of a parameter's list), so that keys set on it
    make a dict of those keys and others not known; False for known text, the conversation, a
    list, an instance, a dict."""
    return isinstance(value, Text) and bool(value.segs) and all(
        not s.is_static and s.kind is Kind.UNKNOWN for s in value.segs)


def _tail(th: Thunk, prev, items: list) -> int:
    """How many last items of the grown list were added once after the loop that grew it (`tail`):
    those of `prev` and what this statement adds, when it runs once and `prev` was grown in a loop;
    0 when this statement runs in a loop (every item may then be one of many)."""
    if th.repeated or th.kind == "insert" or not isinstance(prev, Seq) or not prev.repeated:
        return 0  # (an insert may put its item anywhere: the list's last items are not known to be its)
    return prev.tail + max(0, len(items) - len(prev.items))
