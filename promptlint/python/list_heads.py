"""The message that heads a message list built in steps and branches.

A function that assembles its request list step by step (`msgs = []`, `if system: msgs.append(
system_msg)`, `msgs.extend(history)` in some branches, `msgs.extend(memory)`, then
`msgs.append(user_msg)`) leaves a value whose first item is nested in spreads of the earlier
steps' lists, each one of several variants. Read as a whole, those variants are one conversation
spread into the request; but when every variant starts with the same message (or with nothing,
the branch that leaves it out), that message is the head of the request, before what the other
steps add (the history): `head_of` finds it, `without` drops it from the variants.
"""
from __future__ import annotations

from dataclasses import replace

from .flow.values import Alt, Seq, Spread, Text

#: A list variant that may hold no message (`[]`, or `msgs` before the branch that appends one).
EMPTY = "empty"
#: How deep nested spreads and alternatives are followed (each step of the function adds one or two).
MAX_DEPTH = 24


def first_items(value, depth: int = 0) -> list:
    """The items that can come first in the list `value`, in the order found, each once (by
    identity), with `EMPTY` where a variant may hold no item at all, `None` where the first item
    is not known (a list handed in, a call's result, text), and the list itself (a `Seq`) where a
    variant is a list a loop grew from nothing (its first item one of those the loop appends)."""
    if depth > MAX_DEPTH:
        return [None]
    if isinstance(value, Alt):
        out: list = []
        for option in value.options[:16]:
            for found in first_items(option, depth + 1):
                if not any(found is o for o in out):
                    out.append(found)
        return out
    if isinstance(value, Seq) and value.repeated and not value.head:
        return [value]  # a list grown in a loop from nothing: it starts with what the loop appends
    if not isinstance(value, Seq):
        return [None]
    out = []
    for item in value.items:
        if not isinstance(item, Spread):
            out.append(item)
            return out
        found = first_items(item.value, depth + 1)
        out.extend(f for f in found if f is not EMPTY and not any(f is o for o in out))
        if not any(f is EMPTY for f in found):
            return out
    out.append(EMPTY)
    return out


def head_of(value) -> tuple[object, bool] | None:
    """(message, always) for the one message that starts every variant of the list `value` that
    holds it (`always`: no variant leaves it out), None when the variants start with different
    messages, or one holds it after another item (`[*history, system]` in one branch)."""
    found = [f for f in first_items(value) if f is not EMPTY and f is not None and not isinstance(f, (Seq, Text))]
    if len(found) != 1:
        return None
    ends = outcomes(value, found[0])
    if "late" in ends or "first" not in ends:
        return None
    return found[0], ends == {"first"}


#: How the place of a message in a prefix combines with what follows it (`outcomes`).
_THEN = {("first", "first"): "first", ("first", "absent"): "first", ("first", "late"): "first",
         ("absent", "first"): "late", ("absent", "late"): "late", ("absent", "absent"): "absent",
         ("late", "first"): "late", ("late", "absent"): "late", ("late", "late"): "late"}


def outcomes(value, message, depth: int = 0) -> set[str]:
    """Where `message` (by identity) comes in the variants of the list `value`: "first", "late"
    (after another item), "absent" (items, none of them it), "empty" (no item at all). A value
    that is not a list written in the code (a list handed in, a call's result) cannot hold this
    message, made in the code: "absent"."""
    if depth > MAX_DEPTH:
        return {"late"}
    if isinstance(value, Alt):
        return set().union(*(outcomes(o, message, depth + 1) for o in value.options[:16])) or {"late"}
    if not isinstance(value, Seq):
        return {"absent"}
    pending = {"empty"}
    for item in value.items:
        after = outcomes(item.value, message, depth + 1) if isinstance(item, Spread) else \
            {"first"} if item is message else {"absent"}
        if value.repeated and not value.head and "first" in after:
            after = after - {"first"} | {"late"}  # (appended by a loop among other messages: not its head)
        pending = {p if q == "empty" else q if p == "empty" else _THEN[p, q] for p in pending for q in after}
    return pending


def without(value, head, depth: int = 0):
    """The list `value` with the message `head` (by identity) left out of every variant."""
    if depth > MAX_DEPTH:
        return value
    if isinstance(value, Alt):
        return Alt([without(o, head, depth + 1) for o in value.options], value.span, value.fallback,
                   value.configured, value.per_caller)
    if isinstance(value, Seq):
        items = []
        for item in value.items:
            if item is head:
                continue
            items.append(Spread(without(item.value, head, depth + 1), item.span, item.expr)
                         if isinstance(item, Spread) else item)
        return replace(value, items=items, head=max(0, value.head - (len(value.items) - len(items))))
    return value
