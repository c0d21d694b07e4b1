"""Operators of the evaluator (a mixin of core.Evaluator): `a if t else b`, `a or b`, `+` (text
joined, lists concatenated in every variant), `*` (text repeated), `%` formatting, `/` of paths, set
operations (an order that depends on the hash seed) and `|` of dicts or runnables.
"""
from __future__ import annotations

import ast

from ...model import Kind, Segment, Volatility
from .configured import MARK, configured_test
from .variants import MAX_VARIANTS, dict_union, variants_with_list
from .frames import Frame, Thunk
from .values import Alt, Mapping, Obj, PathV, Seq, Spread, Text, Value, dynamic, is_none
from ..walk import node_key


class OperatorsMixin:
    """`IfExp`, `BoolOp` and `BinOp` nodes to Values."""

    def _ifexp(self, node: ast.IfExp, frame: Frame, env) -> Value:
        tested = _tested_name(node.test)
        if tested is None:
            return Alt([self.eval(node.body, frame, env), self.eval(node.orelse, frame, env)], frame.module.span(node),
                       fallback=_defaulted(node), configured=configured_test(self, node.test, frame, env))
        # `f"{x}\n\n" if x else ""`: the branch taken when `x` is truthy (not None) reads `x` without
        # its falsy values (`None`, `""`: a default no caller replaces); with nothing else, never taken
        name, falsy, truthy_branch = tested
        value = self.eval(name, frame, env)
        kept = _without_falsy(value, falsy)
        branches = [node.body, node.orelse]
        if kept is None:
            return self.eval(branches[1 - truthy_branch], frame, env)
        inner = env
        if kept is not value:
            inner = dict(env) if env is not None else dict(self.env_at(frame, node))
            inner[name.id] = Thunk("value", value=kept)
        values = [self.eval(b, frame, inner if i == truthy_branch else env) for i, b in enumerate(branches)]
        return Alt(values, frame.module.span(node),
                   fallback=_defaulted(node), configured=configured_test(self, node.test, frame, env))

    def _boolop(self, node: ast.BoolOp, frame: Frame, env) -> Value:
        left = self.eval(node.values[0], frame, env)
        for right_node in node.values[1:]:
            right = self.eval(right_node, frame, env)
            if isinstance(node.op, ast.Or):
                if _falsy_constant(left):
                    # `summarize_prompt or self.summarize_prompt` of a call that leaves it None (or of
                    # callers that all leave it None: `messages or [...]` of a wrapper none passes it)
                    left = right
                    continue
                lt = self.text_of(left, frame)
                if lt and all(s.is_static or s.volatility is Volatility.STABLE and MARK not in s.evidence for s in lt):
                    continue  # (a configured value may be None: its default is then used)
                left = Alt([left, right], frame.module.span(node), fallback=True)  # `x or DEFAULT`
            else:
                left = right
        return left

    def _binop(self, node: ast.BinOp, frame: Frame, env) -> Value:
        m = frame.module
        left = self.eval(node.left, frame, env)
        right = self.eval(node.right, frame, env)
        op = node.op
        if isinstance(op, ast.Add):
            joined = _lists_joined(left, right, node, m)
            if joined is not None:
                return joined
            left = _head_of_window(node, left, right, m) or left
            if isinstance(left, Seq) or isinstance(right, Seq):
                items = left.items if isinstance(left, Seq) else [Spread(left, m.span(node.left), m.code(node.left))]
                items = items + (right.items if isinstance(right, Seq) else [Spread(right, m.span(node.right), m.code(node.right))])
                return _joined(items, left, right, m.span(node))
            return Text(self.text_of(left, frame) + self.text_of(right, frame))
        if isinstance(op, ast.Mult):
            repeated = _repeat(left, right) or _repeat(right, left)
            if repeated is not None:
                return repeated
        if isinstance(op, ast.Mod) and isinstance(left, Text):
            args = right.items if isinstance(right, Seq) else [right]
            return self.percent(left, args, right if isinstance(right, Mapping) else None, node, frame)
        if isinstance(op, ast.Div) and isinstance(left, PathV):
            return self.path_join(left, [right], frame)
        if isinstance(op, (ast.BitOr, ast.BitAnd, ast.Sub, ast.BitXor)):
            for side in (left, right):
                if isinstance(side, Text) and any(s.kind is Kind.UNORDERED_ITERATION for s in side.segs):
                    return dynamic(m.span(node), m.code(node), Kind.UNORDERED_ITERATION, Volatility.PER_PROCESS,
                                   "a set operation: iteration order depends on the hash seed")
            if _dict_view(node.left) or _dict_view(node.right):  # `a.keys() - b.keys()`: a set
                return dynamic(m.span(node), m.code(node), Kind.UNORDERED_ITERATION, Volatility.PER_PROCESS,
                               "a set operation of dict keys: iteration order depends on the hash seed")
        if isinstance(op, ast.BitOr):
            merged = dict_union(left, right, m.span(node))  # `defaults | overrides`: the right side's keys win
            if merged is not None:
                return merged
            return Obj("chain", args=[left, right], span=m.span(node), node=node)
        return self.derived(left if isinstance(left, (Text, Alt)) else right, node, frame, m.code(node))


def _falsy_constant(value: Value) -> bool:
    """True for `None` or the literal `""`, or a choice whose every option is one (what each caller
    of a function passes for a parameter that none of them gives: its default `None`)."""
    if isinstance(value, Alt):
        return bool(value.options) and all(_falsy_constant(o) for o in value.options)
    return is_none(value) or _empty_literal(value)


def _empty_literal(value: Value) -> bool:
    """True for the literal `""` (a Text of static segments holding no text): falsy, so `x or
    DEFAULT` is the default."""
    return isinstance(value, Text) and all(s.is_static and not s.text for s in value.segs)


def _head_of_window(node: ast.BinOp, left: Value, right: Value, m) -> Text | None:
    """The head of a conversation kept before its newest messages (`msgs[:first_k] + msgs[-last_k:]`,
    a cut in its middle): when the right side is the cut conversation (a window) and the left a head
    slice of the same expression that is not read as it, the left is that conversation's older part
    (so the two join as the conversation cut in its middle); else None."""
    from ...model import replace
    a, b = node.left, node.right
    if not (isinstance(a, ast.Subscript) and isinstance(b, ast.Subscript) and isinstance(a.slice, ast.Slice)
            and a.slice.lower is None and a.slice.upper is not None and node_key(a.value) == node_key(b.value)):
        return None
    if not (isinstance(left, Text) and len(left.segs) == 1 and left.segs[0].kind is Kind.UNKNOWN
            and isinstance(right, Text) and right.segs and right.segs[-1].kind is Kind.HISTORY
            and right.segs[-1].window is not None):
        return None
    cut = right.segs[-1]
    return Text([replace(cut, span=m.span(a), expr=m.code(a), window=None, window_stop=None, older=True)])


def _repeat(text, count) -> Text | None:
    """`"text" * n` with static text and a static count (a bounded result), else None."""
    if not (isinstance(text, Text) and isinstance(count, Text) and len(count.segs) == 1 and count.segs[0].is_static):
        return None
    if not text.segs or not all(s.is_static for s in text.segs) or not count.segs[0].text.isdigit():
        return None
    n = int(count.segs[0].text)
    body = "".join(s.text for s in text.segs)
    if n * len(body) > 1_000_000:
        return None
    return Text([Segment(text=body * n, span=text.segs[0].span)])


def _tested_name(test: ast.expr) -> tuple[ast.Name, frozenset, int] | None:
    """For a test of a local name's truthiness or of its being None (`x`, `not x`, `x is not None`,
    `x is None`): the name, the texts of the constants the test rules out in the branch it guards
    (`None`, `""`, `False`, `0`; only `None` for `is not None`) and that branch (0: the body,
    1: the `else`). None for any other test."""
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    if negated:
        test = test.operand
    if isinstance(test, ast.Name):
        return test, frozenset({"None", "", "False", "0"}), int(negated)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name) \
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None \
            and isinstance(test.ops[0], (ast.Is, ast.IsNot)) and not negated:
        return test.left, frozenset({"None"}), int(isinstance(test.ops[0], ast.Is))
    return None


def _without_falsy(value: Value, falsy: frozenset) -> Value | None:
    """`value` without the variants that are a constant the test rules out (a Text of static text
    equal to one of `falsy`): the value itself when none is, None when every variant is."""
    if isinstance(value, Text):
        return None if all(s.is_static for s in value.segs) and "".join(s.text for s in value.segs) in falsy \
            else value
    if isinstance(value, Alt):
        options = [_without_falsy(o, falsy) for o in value.options]
        kept = [o for o in options if o is not None]
        if not kept:
            return None
        if all(a is b for a, b in zip(options, value.options)):
            return value
        return kept[0] if len(kept) == 1 else Alt(kept, value.span, value.fallback, value.configured, value.per_caller)
    return value


def _defaulted(node: ast.IfExp) -> bool:
    """True for `x if x is not None else DEFAULT`, `x if x else DEFAULT`, `DEFAULT if x is None
    else x` (values.Alt.fallback), and for an entry of a mapping or its default, `d.get(k, DEFAULT)`
    spelled out: `d[k] if k in d else DEFAULT`, `d[k] if d and k in d else DEFAULT`, `DEFAULT if k
    not in d else d[k]`."""
    test, code = node.test, node_key
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.comparators[0], ast.Constant) \
            and test.comparators[0].value is None:
        kept = node.body if isinstance(test.ops[0], (ast.IsNot, ast.NotEq)) else node.orelse
        return isinstance(test.ops[0], (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)) and code(kept) == code(test.left)
    return code(node.body) == code(test) or _entry_or_default(node)


def _entry_or_default(node: ast.IfExp) -> bool:
    """True for `d[k] if k in d else DEFAULT` (the test may also check `d` itself: `d and k in d`)
    and `DEFAULT if k not in d else d[k]`: the entry a mapping gives for a key, or the default."""
    test = node.test
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    checks = [p for p in parts if isinstance(p, ast.Compare) and len(p.ops) == 1
              and isinstance(p.ops[0], (ast.In, ast.NotIn))]
    if len(checks) != 1 or len(parts) > 2:
        return False
    check = checks[0]
    negated = isinstance(check.ops[0], ast.NotIn)
    if negated and len(parts) > 1:
        return False
    entry = node.orelse if negated else node.body
    mapping = check.comparators[0]
    if not (isinstance(entry, ast.Subscript) and node_key(entry.value) == node_key(mapping)
            and node_key(entry.slice) == node_key(check.left)):
        return False
    return all(p is check or node_key(p) == node_key(mapping) for p in parts)


def _lists_joined(left: Value, right: Value, node: ast.BinOp, m) -> Value | None:
    """Two lists added (`head + history[-k:]`) where a side is a list written in variants
    (`([system] if system_prompt else []) + (extra or [])`, an attribute a method may also set
    from elsewhere): `+` with a list is list concatenation in every variant, so one joined list
    per pair of variants (at most `MAX_VARIANTS`, else one list of both sides spread), the items
    of a list variant and any other variant spread: a message list keeps its shape. None when no side is an Alt with a list among
    its variants."""
    lv, rv = variants_with_list(left), variants_with_list(right)
    if lv is None and rv is None:
        return None

    def items(v, at):
        return v.items if isinstance(v, Seq) else [Spread(v, m.span(at), m.code(at))]
    lv, rv = lv or [left], rv or [right]
    if len(lv) * len(rv) > MAX_VARIANTS:  # one list: each side spread whole
        return Seq([Spread(left, m.span(node.left), m.code(node.left)),
                    Spread(right, m.span(node.right), m.code(node.right))], m.span(node))
    options = [_joined(items(a, node.left) + items(b, node.right), a, b, m.span(node)) for a in lv for b in rv]
    alts = [v for v in (left, right) if isinstance(v, Alt)]
    return Alt(options, m.span(node), configured=all(a.configured for a in alts),
               fallback=all(a.fallback for a in alts), per_caller=all(a.per_caller for a in alts))


def _joined(items: list, left: Value, right: Value, span) -> Seq:
    """The list `left + right` holding `items`. Grown in a loop when a side is; its `head` (the
    items known before the loop) is what a written list on the left adds to the right's head
    (`[system] + messages`: the system message, then the messages written before their loop)."""
    repeated = getattr(left, "repeated", False) or getattr(right, "repeated", False)
    head = 0
    if repeated and isinstance(left, Seq):
        head = left.head if left.repeated else len(left.items) + getattr(right, "head", 0)
    return Seq(items, span, repeated=repeated, head=head)


def _dict_view(node) -> bool:
    """`d.keys()` / `d.items()`: a dict's view, whose operators `| & - ^` make a set."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("keys", "items") \
        and not node.args and not node.keywords
