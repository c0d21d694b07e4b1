"""How often a cut of a kept list runs once the list has reached its limit (PRM105, read by
`python/stored_cuts.py`): on every request (a sliding window: each new message pushes an old one
out, so the head of the list changes every turn) or in steps (a block of many items dropped at
once, then the list grows again: the prefix is cached between two cuts).

A cut is described by what it keeps or drops: `("keep", N)` for `xs[-N:]` or `xs[len(xs) - N:]`,
`("drop", k)` for `xs[k:]`, `del xs[:k]`, `xs.pop(0)` (k = 1), `("index", call)` for a cut point a
call computes (`i = locate_index(xs, target, threshold)`, then `xs[i:]`). Its cadence:

- `SLIDES`: in a `while` loop that runs until a size fits; unconditional; under a size test whose
  bound is the number kept (`if len(xs) > N: xs = xs[-N:]`); one item dropped at a limit;
- `DEFAULT`: under a test whose bound is the number kept plus a margin whose default is 0 (`if
  len(xs) <= self.target + (self.threshold or 0): return`): it slides with the defaults, and
  cuts in steps of the margin when one is set;
- `STEPS`: a block dropped at once (`del xs[:10]` at a limit, `xs[-MAX // 2:]` under `len(xs) >
  MAX`, a margin whose default is not 0): cached between cuts, not reported;
- None: not known (a cut point computed with no test read): not reported.
"""
from __future__ import annotations

import ast

from ..walk import child_nodes

SLIDES = "slides"
DEFAULT = "default"
STEPS = "steps"

_ORDERS = (ast.Gt, ast.GtE, ast.Lt, ast.LtE)


def _same(a, b) -> bool:
    return a is not None and b is not None and ast.dump(a) == ast.dump(b)


def _sizes(node) -> bool:
    """True for an expression that measures a size: a call (`len(xs)`, `count_tokens(xs)`,
    `self._length()`) or a name or attribute named for one (`used_tokens`, `self.total`)."""
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            return True
        name = n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else ""
        if any(w in name.lower() for w in ("token", "len", "size", "count", "total", "used", "chars")):
            return True
    return False


def size_bound(test) -> ast.expr | None:
    """The bound of a test that compares a size with it (`len(xs) > N` -> N, `N < len(xs)` -> N,
    `len(xs) <= a + b` -> `a + b`), or None for any other test."""
    for n in ast.walk(test):
        if not (isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], _ORDERS)):
            continue
        left, right = n.left, n.comparators[0]
        if _sizes(left) and not _measured(right):
            return right
        if _sizes(right) and not _measured(left):
            return left
    return None


def _measured(node) -> bool:
    """True when an expression calls `len` or a counter (it is the size side, not the bound)."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" for n in ast.walk(node))


def _parents(func) -> dict:
    """Child node -> parent node within `func`, built once per function (`cadence` and `guarded`
    both read it for each cut)."""
    out = getattr(func, "_cut_parents", None)
    if out is None:
        out = func._cut_parents = {}
        for parent in ast.walk(func):
            for child in child_nodes(parent):
                out[child] = parent
    return out


#: The bound `_guard` gives a cut under a condition that is neither a size test nor a presence
#: test (`if self.turn % 20 == 0:`, `if step == last:`): how often it runs is not known.
OTHER = object()


def _presence(test) -> bool:
    """True for a test of whether something is there or on, not of when (`if xs:`, `if not
    self.summary:`, `if x is not None and self.enabled:`): the cut runs each time it holds."""
    if isinstance(test, ast.BoolOp):
        return all(_presence(v) for v in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _presence(test.operand)
    if isinstance(test, ast.Compare):
        return all(isinstance(op, (ast.Is, ast.IsNot)) for op in test.ops) and _presence(test.left)
    return isinstance(test, (ast.Name, ast.Attribute))


def _guard(func, stmt):
    """(the `while` that runs until a size fits, None) or (None, the bound of the size test that
    decides the cut: an enclosing `if`, or an earlier `if <size test>: return` of the function),
    (None, OTHER) under another condition (not a presence test), or (None, None) when the cut
    runs unconditionally."""
    parents = _parents(func)
    node = stmt
    while node in parents and node is not func:
        up = parents[node]
        if isinstance(up, ast.While) and size_bound(up.test) is not None and node in up.body:
            return up, None
        if isinstance(up, (ast.If, ast.While)) and node in up.body + up.orelse:
            bound = size_bound(up.test)
            if bound is not None:
                return None, bound
            if not _presence(up.test):
                return None, OTHER  # `if self.turn % 20 == 0:`: when it runs is not known
        node = up
    for early in func.body:
        if early.lineno >= stmt.lineno:
            break
        if isinstance(early, ast.If) and early.body and isinstance(early.body[-1], ast.Return):
            bound = size_bound(early.test)
            if bound is not None:
                return None, bound
    return None, None


def guarded(func, stmt) -> bool:
    """True when the cut `stmt` runs in a loop until a size fits or under a size test."""
    return _guard(func, stmt) != (None, None)


def _int(node) -> int | None:
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def _margin(bound, kept, default_of):
    """The cadence of a cut keeping `kept` under a test bounded by `bound` (see the module
    docstring), with the margin's name: (cadence, margin expression or "")."""
    if _same(bound, kept):
        return SLIDES, ""
    b, k = (_int(n) if _int(n) is not None else default_of(n) if isinstance(n, ast.Name) else None
            for n in (bound, kept))  # (a module constant: `MAX_TURNS = 40`)
    if b is not None and k is not None:
        return (SLIDES if b - k <= 1 else STEPS), ""
    if isinstance(bound, ast.BinOp) and isinstance(bound.op, ast.Add):
        for this, other in ((bound.left, bound.right), (bound.right, bound.left)):
            if _same(this, kept):
                margin = other.values[0] if isinstance(other, ast.BoolOp) and isinstance(other.op, ast.Or) else other
                value = _int(margin) if _int(margin) is not None else default_of(margin)
                if value is None:
                    return None, ""
                return (DEFAULT if value == 0 and _int(margin) is None else SLIDES if value <= 1 else STEPS), \
                    ast.unparse(margin)
    if any(_same(n, bound) for n in ast.walk(kept)) and any(
            isinstance(n, ast.BinOp) and isinstance(n.op, (ast.FloorDiv, ast.Div, ast.Mult)) for n in ast.walk(kept)):
        return STEPS, ""  # `xs[-(MAX // 2):]` under `len(xs) > MAX`
    return None, ""


def cadence(func, stmt, how: str, amount, default_of=lambda node: None) -> tuple[str | None, str]:
    """(SLIDES | DEFAULT | STEPS | None, margin expression or "") for a cut made by `stmt` in
    `func` that keeps or drops `amount` (`how`: "keep", "drop" or "index"; `amount` an expression,
    or for "index" the call that computes the cut point). `default_of(node)` gives the default int
    value of a margin (`self.threshold_count` -> 0), or None when not known."""
    loop, bound = _guard(func, stmt)
    if loop is not None:
        return SLIDES, ""  # dropped until it fits: exactly the excess, on every request past the limit
    if bound is OTHER:
        return None, ""
    if how == "drop":
        k = _int(amount)
        if bound is None:
            return (SLIDES if k is not None else None), ""
        return (SLIDES if k == 1 else STEPS if k is not None else None), ""
    if how == "keep":
        return (SLIDES, "") if bound is None else _margin(bound, amount, default_of)
    if bound is None or not isinstance(amount, ast.Call):
        return None, ""
    # a cut point computed by a call handed the test's terms: it keeps the first term
    args = [*amount.args, *(k.value for k in amount.keywords)]
    terms = [bound.left, bound.right] if isinstance(bound, ast.BinOp) and isinstance(bound.op, ast.Add) else [bound]
    kept = next((t for t in terms if any(_same(t, a) for a in args)), None)
    return _margin(bound, kept, default_of) if kept is not None else (None, "")
