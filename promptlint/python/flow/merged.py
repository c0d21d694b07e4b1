"""One list for many variants of a list grown in branches (`if c: lines.append(x)` a dozen times
over, a numbered loop among them): `merged_list`, used by `containers.list_variants` past
MAX_VARIANTS variants."""
from __future__ import annotations

from ...model import Segment
from .values import Alt, Seq, Spread, Text


def merged_list(variants: list[Seq], configured: bool = False) -> Seq | None:
    """One list for many variants of a list grown in branches (`if c: parts.append(x)` six times
    over): the items of all of them in their order, an item missing from some variant made
    "present or absent" (an Alt of it and no text). Items are the same when made by the same code
    (`_item_key`); a new item goes before the first later one made further down the code. A
    variant grown in a loop (`for i, x in enumerate(xs): lines.append(...)` in one branch) makes
    the merged list one grown in a loop from the first item any such variant appended in its loop
    on, when every item is text (lines to be joined; a list of messages or records grown in a
    loop is not merged). None when two variants order their common items differently. `configured`: every
    branch was chosen by configuration (an item is then present or absent per deployment)."""
    if any(v.repeated for v in variants) and not all(_line(i) for v in variants for i in v.items):
        return None  # (messages or records grown in a loop: read as the list they are, not merged)
    order: list = []  # (key, item, how many variants hold it)
    for v in variants:
        at = 0
        used: set[int] = set()  # rows this variant matched (an item made twice by one line: a loop's)
        for item in v.items:
            key = _item_key(item)
            found = next((i for i in range(at, len(order)) if order[i][0] == key), None)
            if found is None:
                if any(row[0] == key and id(row) not in used for row in order[:at]):
                    return None
                while at < len(order) and _before(order[at][0], key):
                    at += 1
                order.insert(at, [key, item, 1])
                found = at
            else:
                order[found][2] += 1
            used.add(id(order[found]))
            at = found + 1
    items = []
    for _, item, count in order:
        if count >= len(variants):
            items.append(item)
        else:
            span = getattr(item, "span", None)
            if span is None and isinstance(item, Text) and item.segs:
                span = item.segs[0].span  # (where the item was made: `configured.present_by_configuration`)
            items.append(Alt([item, Text([Segment(text="", span=span)])], span, configured=configured))
    first = variants[0]
    looped = {_item_key(i) for v in variants if v.repeated for i in v.items[v.head:]}
    head = next((n for n, row in enumerate(order) if row[0] in looped), len(order))
    return Seq(items, first.span, node=first.node, unordered=next((v.unordered for v in variants if v.unordered), None),
               repeated=bool(looped) or any(v.repeated for v in variants), head=head if looped else 0)


def _line(item) -> bool:
    """True for an item of a list of text lines: text, text present or absent, or text we cannot
    list spread into it."""
    if isinstance(item, Alt):
        return all(_line(o) for o in item.options)
    if isinstance(item, Spread):  # `lines.extend(self.instructions)`: strings we cannot list
        return isinstance(item.value, Text) or isinstance(item.value, Alt) and _line(item.value)
    return isinstance(item, Text)


def _item_key(item):
    """Where an item was made in the code ((row, column) of its span, or its identity); an item
    made "present or absent" by an earlier merge is where its present option was made."""
    span = getattr(item, "span", None)
    if span is None and isinstance(item, Alt) and item.options:
        return _item_key(item.options[0])
    if span is None and isinstance(item, Text) and item.segs:
        span = item.segs[0].span
    return (span.start.row, span.start.column, span.end.row, span.end.column) if span is not None else ("id", id(item))


def _before(a, b) -> bool:
    """Whether the item made at `a` comes before the one made at `b` in the code (unknown: no)."""
    return a[0] != "id" and b[0] != "id" and a < b
