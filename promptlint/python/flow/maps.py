"""Maps over a list display: `[convert(m) for m in messages]` and the loop
`for m in messages: out.append(convert(m))` over `[system, *history, user]` give one converted
element per item, in place, instead of one element that stands for any of them. A message
converted for an SDK (a provider adapter, a `to_dict`) so keeps its role and its content, and the
system message stays first, before the history.
"""
from __future__ import annotations

import ast

from .scopes import Thunk
from .values import Seq, Spread, Value

MAPPED_ITEMS = 16  # the longest list display mapped item by item


class MapsMixin:
    """Maps over known lists, for the Evaluator."""

    def _known_items(self, iter_node, frame, env) -> Seq | None:
        """The list `iter_node` evaluates to when it is a display of 1 to `MAPPED_ITEMS` items
        in a fixed order with at least one item that is not a spread, else None."""
        it = self.eval(iter_node, frame, env)
        if (not isinstance(it, Seq) or it.repeated or it.unordered is not None or not it.items
                or len(it.items) > MAPPED_ITEMS or all(isinstance(i, Spread) for i in it.items)):
            return None
        return it

    def _each(self, it: Seq, iter_node, frame, name: str, element) -> list[Value]:
        """`element(item_thunk)` for each item of `it`; a spread item gives a spread of one
        repeated element made from an element of what it spreads."""
        out: list[Value] = []
        for item in it.items:
            if isinstance(item, Spread):
                one = Thunk("value", value=self.item_of(item.value, iter_node, frame, name))
                out.append(Spread(Seq([element(one)], item.span, repeated=True), item.span, item.expr))
            else:
                out.append(element(Thunk("value", value=item)))
        return out

    def mapped_comprehension(self, node, frame, env: dict) -> Seq | None:
        """`[f(m) for m in xs]` over a known list display (one `for`, no filter, a plain name):
        one element per item, or None for any other comprehension."""
        if not isinstance(node, (ast.ListComp, ast.GeneratorExp)) or len(node.generators) != 1:
            return None
        comp = node.generators[0]
        if comp.ifs or not isinstance(comp.target, ast.Name):
            return None
        it = self._known_items(comp.iter, frame, env)
        if it is None:
            return None
        name = comp.target.id

        def element(item: Thunk) -> Value:
            return self.eval(node.elt, frame, {**env, name: item})

        return Seq(self._each(it, comp.iter, frame, name, element), frame.module.span(node), node=node,
                   ordered=it.ordered)

    def mapped_loop(self, th: Thunk, prev, frame) -> Value:
        """The list after a map loop (`th`: kind "map", `node` the `for`, `env` the bindings before
        it, `value` the loop's append thunk, `prev` the list before the loop): over a known list
        display, the list before it plus one appended element per item; otherwise what the
        append gives."""
        stmt = th.node
        it = self._known_items(stmt.iter, frame, th.env)
        if it is None or not isinstance(prev, Seq) or prev.repeated:
            return self.force(frame, th.value)
        name = stmt.target.id
        append: Thunk = th.value
        before = th.env

        def element(item: Thunk) -> Value:
            memo: dict = {}
            return self.eval(append.node.args[0], frame, _rebound(append.env, before, name, item, memo))

        items = self._each(it, stmt.iter, frame, name, element)
        return Seq(prev.items + items, prev.span, node=prev.node, ordered=prev.ordered)


def _rebound(env: dict, before: dict, name: str, item: Thunk, memo: dict) -> dict:
    """`env` (bindings inside a loop body) with the loop variable `name` bound to `item`, and every
    binding made in the body (one that differs from `before`) re-made to see it."""
    out = {}
    for key, th in env.items():
        if key == name:
            out[key] = item
        elif th is not before.get(key):
            out[key] = _rebound_thunk(th, before, name, item, memo)
        else:
            out[key] = th
    return out


def _rebound_thunk(th: Thunk, before: dict, name: str, item: Thunk, memo: dict) -> Thunk:
    if id(th) in memo:
        return memo[id(th)]
    if th.kind == "expr" and th.env is not None:
        made = Thunk("expr", node=th.node, env=_rebound(th.env, before, name, item, memo))
    elif th.kind == "alt":
        made = Thunk("alt", options=[_rebound_thunk(o, before, name, item, memo) for o in th.options])
    else:
        made = th
    memo[id(th)] = made
    return made
