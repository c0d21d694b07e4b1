"""Reads of a value that is one per caller: a method called on it, or an attribute read from it.

A value that is `Alt.per_caller` (what each override of an abstract method returns,
`self.agent = self.strategy.next_agent(...)` over the strategies of the tree; the arguments the
call sites of a function pass) is one option for each caller or deployment, the same on every
request it makes. A method called on it (`self.agent.get_prompt()`) or an attribute read from it
(`self.agent.name`) is read on each option apart, and the result is again one per caller: a
random draw or a per-request value that one option makes stays in that option. Read on the
value as a whole, the call would be one call of unknown result whose inputs are all the options,
as volatile as the most volatile of them (a random pick of one subclass made every request's).

`per_caller_in(value)` also holds for one of several values some of which are such a value
(`self.agent` assigned in several methods, each time from the strategy): each is read apart.
"""
from __future__ import annotations

from typing import Callable

from .values import Alt, Value


def per_caller_in(value) -> bool:
    """True for an `Alt.per_caller`, or an Alt with one among its options (at any depth)."""
    return isinstance(value, Alt) and (value.per_caller or any(per_caller_in(o) for o in value.options))


def each_option(value: Alt, read: Callable[[Value], Value]) -> Alt:
    """`read(option)` for each option of `value` (an option met twice is read once), as an Alt
    with the same span and flags (one per caller stays so)."""
    done: dict[int, Value] = {}
    out = []
    for option in value.options:
        if id(option) not in done:
            done[id(option)] = read(option)
        out.append(done[id(option)])
    return Alt(out, value.span, value.fallback, value.configured, value.per_caller)
