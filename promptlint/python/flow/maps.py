"""Maps over a list display: `[convert(m) for m in messages]` and the loop
`for m in messages: out.append(convert(m))` over `[system, *history, user]` give one converted
element per item, in place, instead of one element that stands for any of them. A message
converted for an SDK (a provider adapter, a `to_dict`) so keeps its role and its content, and the
system message stays first, before the history.
"""
from __future__ import annotations

import ast

from .variants import list_variants
from .kept_entries import KeptEntriesMixin
from .frames import Thunk
from ...model import Kind
from .values import Alt, Seq, Spread, Text, Value
from .windows import held_conversation, window_of
from .item_maps import converts_item, copies_fields
from .loop_shapes import extends_by_display
from .branched_maps import converts_each

MAPPED_ITEMS = 256  # the longest list display mapped item by item
_UNKNOWN = object()  # a value the code alone does not fix


class MapsMixin(KeptEntriesMixin):
    """Maps over known lists (and dicts rebuilt from their own entries), for the Evaluator."""

    def _known_items(self, iter_node, frame, env, it=None) -> list[Seq] | None:
        """The lists `iter_node` evaluates to (`it` when given: already evaluated; one list, or
        each variant of a list grown in branches) when each is a display of 1 to `MAPPED_ITEMS`
        items in a fixed order with at least one item that is not a spread, else None."""
        if it is None:
            it = self.eval(iter_node, frame, env)
        lists = list_variants(it) if isinstance(it, Alt) else [it]
        if not lists or any(not _mappable(x) for x in lists):
            return None
        return lists

    def _each(self, it: Seq, iter_node, frame, name: str, element) -> list[Value]:
        """`element(item_thunk)` for each item of `it` (None: the item is dropped); a spread item
        gives a spread of one repeated element made from an element of what it spreads."""
        out: list[Value] = []
        for item in it.items:
            if isinstance(item, Spread):
                one = Thunk("value", value=self.item_of(item.value, iter_node, frame, name))
                out.append(Spread(Seq([element(one)], item.span, repeated=True), item.span, item.expr))
            else:
                made = element(Thunk("value", value=item))
                if made is not None:
                    out.append(made)
        return out

    def mapped_comprehension(self, node, frame, env: dict, it) -> Seq | None:
        """`[f(m) for m in xs if cond]` over a known list display (one `for`, a plain name): one
        element per item the filter keeps (`static_truth`), or None for any other comprehension.
        `it`: the value of its source, evaluated by the caller. A dict rebuilt from its own entries
        (`{k: v for k, v in params.items() if v is not None}`) is that dict (`kept_entries`)."""
        if isinstance(node, ast.DictComp):
            return self.kept_entries(node, frame, env)
        if not isinstance(node, (ast.ListComp, ast.GeneratorExp)) or len(node.generators) != 1:
            return None
        comp = node.generators[0]
        if not isinstance(comp.target, ast.Name):
            return None
        lists = self._known_items(comp.iter, frame, env, it)
        if lists is None:
            return None
        name = comp.target.id

        def element(item: Thunk) -> Value | None:
            inner = {**env, name: item}
            if any(self.static_truth(cond, frame, inner) is False for cond in comp.ifs):
                return None  # a filter that drops this item whatever the request (`if part`, `!= ""`)
            return self.eval(node.elt, frame, inner)

        span = frame.module.span(node)
        mapped = [Seq(self._each(it, comp.iter, frame, name, element), span, node=node, ordered=it.ordered)
                  for it in lists]
        return mapped[0] if len(mapped) == 1 else Alt(mapped, span)

    def static_truth(self, cond: ast.expr, frame, env: dict) -> bool | None:
        """Whether `cond` holds, when the code alone says so (a truth test, `==` / `!=` / `is` /
        `is not` of static text, numbers or None, `not`, `and` / `or` of those), else None (kept:
        a filter we cannot decide is read as keeping the item)."""
        if isinstance(cond, ast.UnaryOp) and isinstance(cond.op, ast.Not):
            inner = self.static_truth(cond.operand, frame, env)
            return None if inner is None else not inner
        if isinstance(cond, ast.BoolOp):
            values = [self.static_truth(v, frame, env) for v in cond.values]
            if isinstance(cond.op, ast.And):
                return False if False in values else None if None in values else True
            return True if True in values else None if None in values else False
        if isinstance(cond, ast.Compare) and len(cond.ops) == 1:
            left, right = self._fixed_value(cond.left, frame, env), self._fixed_value(cond.comparators[0], frame, env)
            if left is _UNKNOWN or right is _UNKNOWN:
                return None
            op = cond.ops[0]
            if isinstance(op, (ast.Eq, ast.Is)):
                return left == right
            if isinstance(op, (ast.NotEq, ast.IsNot)):
                return left != right
            return None
        value = self._fixed_value(cond, frame, env)
        return None if value is _UNKNOWN else bool(value)

    def _fixed_value(self, node: ast.expr, frame, env: dict):
        """The Python value of `node` when the code fixes it (a constant, static text), else _UNKNOWN."""
        if isinstance(node, ast.Constant):
            return node.value
        value = self.eval(node, frame, env)
        if isinstance(value, Text) and all(s.is_static for s in value.segs):
            return "".join(s.text for s in value.segs)
        return _UNKNOWN

    def _copied_conversation(self, th: Thunk, prev, frame) -> Seq | None:
        """The list after a loop that copies each message of a conversation onto a list of known
        messages (`out = [system]; for m in messages: if "role" in m: out.append({"role":
        m["role"], "content": m["content"]})`, `out.append(convert(m))`): the known messages,
        then the conversation spread (its messages in their order; a filter only leaves some out),
        else None (`th`: the map thunk, `prev` the list before the loop)."""
        stmt = th.node
        call = th.at if th.at is not None else th.value.node
        if not (isinstance(prev, Seq) and prev.items and not prev.repeated and isinstance(call, ast.Call) and call.args):
            return None
        item = stmt.target.id
        elts = call.args[0].elts if extends_by_display(call) else [call.args[0]]
        if not (all(converts_item(e, item) or copies_fields(e, item) for e in elts) or converts_each(stmt)):
            return None  # (extended by several messages of the item: `(user turn of r, reply of r)`)
        it = _as_conversation(self.eval(stmt.iter, frame, th.env))
        if it is None:
            return None
        m = frame.module
        return Seq([*prev.items, Spread(it, m.span(stmt.iter), m.code(stmt.iter))], prev.span, node=prev.node,
                   ordered=prev.ordered)

    def mapped_loop(self, th: Thunk, prev, frame) -> Value:
        """The list after a map loop (`th`: kind "map", `node` the `for`, `env` the bindings before
        it, `value` the loop's append thunk, `prev` the list before the loop): over a known list
        display, the list before it plus one appended element per item; otherwise what the
        append gives."""
        stmt = th.node
        if th.at is not None or isinstance(prev, Seq) and prev.items and not prev.repeated:
            copied = self._copied_conversation(th, prev, frame)
            if copied is not None:
                return copied
            if th.at is not None:  # a filtered loop: what the appends give (never mapped item by item)
                return self.force(frame, th.value)
        append: Thunk = th.value
        if extends_by_display(append.node):  # (several items per element: not mapped item by item)
            return self.force(frame, th.value)
        if isinstance(prev, Seq) and not prev.items and converts_item(append.node.args[0], stmt.target.id):
            it = self.eval(stmt.iter, frame, th.env)
            if window_of(it) is not None:  # `for r in rows[-k:]: out.append(convert(r))`: the cut, converted
                m = frame.module
                return Seq([Spread(it, m.span(stmt.iter), m.code(stmt.iter))], m.span(stmt), repeated=True, node=stmt)
        lists = self._known_items(stmt.iter, frame, th.env)
        if lists is None or len(lists) != 1 or not isinstance(prev, Seq) or prev.repeated:
            return self.force(frame, th.value)
        it = lists[0]
        name = stmt.target.id
        before = th.env

        def element(item: Thunk) -> Value:
            memo: dict = {}
            return self.eval(append.node.args[0], frame, _rebound(append.env, before, name, item, memo))

        items = self._each(it, stmt.iter, frame, name, element)
        return Seq(prev.items + items, prev.span, node=prev.node, ordered=prev.ordered)


def _as_conversation(it, depth: int = 0) -> Value | None:
    """The conversation a loop walks: the history itself, the history a container of the package was
    made from (`AgentMessageList(messages)`: windows.held_conversation), or, for a list bound in
    branches, each option so read (all of them, else None)."""
    if isinstance(it, Text) and len(it.segs) == 1 and it.segs[0].kind is Kind.HISTORY:
        return it
    if isinstance(it, Alt) and depth < 3:
        options = [_as_conversation(o, depth + 1) for o in it.options]
        return None if any(o is None for o in options) else Alt(options, it.span, it.fallback)
    held = held_conversation(it)
    return Text([held]) if held is not None else None


def _mappable(it) -> bool:
    return (isinstance(it, Seq) and not it.repeated and it.unordered is None and 0 < len(it.items) <= MAPPED_ITEMS
            and not all(isinstance(i, Spread) for i in it.items))


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
