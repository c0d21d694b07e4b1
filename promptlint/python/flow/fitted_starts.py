"""A conversation sliced from a start chosen by size (PRM105): `xs[k:]` where `k` is where the
newest items that fit a bound begin, so once the conversation outgrows the bound its oldest
messages drop out on every turn, as with `xs[-n:]`. Three shapes of choosing `k`, read from the
syntax of the function that slices:

- `k` bound once to what a function of the tree returns, handed the list or a value made from it
  (`token_counts = counts(messages)`, `cut = cutoff_index(token_counts, max_tokens)`), where that
  function compares a size with another argument it is handed, or searches a running total for
  it (`np.searchsorted(np.cumsum(c), max_tokens)`, `bisect`); a function that compares only the
  list's own items (`if len(xs) > 0`, the role it is handed) chooses no size;
- `k` stepped down (or up) in a `while` loop whose test holds a size against a bound that is not
  the index alone (`while k > 0 and used + n(xs[k - 1]) <= budget: k -= 1`); a walk over every
  item (`while k < len(xs)`) is no cut;
- `k` the index of a `for` loop over `range(...)` of the list's length, the slice taken under an
  `if` that compares sizes (`for i in range(len(xs)): if size(xs[i:]) <= budget: return xs[i:]`).

The start may be the index a constant step from it (`xs[i + 1:]`: the items after the i-th).

A start found by what an item is (the index of the last user message) is no size: the newest turn,
not a window. Only a start that is not a constant is read (`xs[2:]` drops a fixed head)."""
from __future__ import annotations

import ast

from ..walk import subtree
from .cuts import compares_sizes

#: Calls that search a running total for a bound, or make one (the index where a budget is passed).
_SEARCHES = frozenset({"searchsorted", "bisect", "bisect_left", "bisect_right", "cumsum", "accumulate"})


def fitted_start(ev, node: ast.Subscript, frame, env) -> bool:
    """True when the slice `node` (`xs[k:]`, xs a name) starts where the newest items of xs that
    fit a bound begin (see the module docstring)."""
    cut = node.slice
    start = _index_name(cut.lower) if isinstance(cut, ast.Slice) else None
    if not (start is not None and cut.upper is None and cut.step is None
            and isinstance(node.value, ast.Name) and frame.func is not None):
        return False
    index, listed = start, node.value.id
    bindings = env if env is not None else ev.env_at(frame, node)
    th = bindings.get(index)
    if th is None:
        return False
    if th.kind == "iter":
        return _walked_to_fit(frame.func, node, th.node, index, listed)
    if th.kind == "expr" and th.prev is None and isinstance(th.node, ast.expr):
        return _searched(ev, frame, bindings, th.node, listed)
    return th.kind in ("expr", "aug", "alt") and _stepped_to_fit(frame.func, node, index, listed)


def _index_name(lower) -> str | None:
    """The name a slice's start is (`k`) or is a constant step from (`i + 1`, `k - 1`), else None."""
    if isinstance(lower, ast.BinOp) and isinstance(lower.op, (ast.Add, ast.Sub)) \
            and isinstance(lower.right, ast.Constant) and isinstance(lower.right.value, int):
        lower = lower.left
    return lower.id if isinstance(lower, ast.Name) else None


def _searched(ev, frame, bindings, value: ast.expr, listed: str) -> bool:
    """True for `f(...)` (also `int(f(...))`) of a function of the tree that is handed `listed` or a
    name bound from it, and that compares sizes or searches a running total."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "int" and value.args:
        value = value.args[0]
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
        return False
    args = [*value.args, *(k.value for k in value.keywords)]
    if len(args) < 2 or not any(_made_from(a, listed, bindings) for a in args):
        return False
    fn = ev.resolve_global(frame.module, value.func.id, frame.depth)
    body = getattr(fn, "node", None)
    if not isinstance(body, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    params = [a.arg for a in [*body.args.posonlyargs, *body.args.args]]
    bounds = {params[i] for i, a in enumerate(value.args) if i < len(params) and not _made_from(a, listed, bindings)}
    bounds |= {k.arg for k in value.keywords if k.arg and not _made_from(k.value, listed, bindings)}
    # (the bound handed in is what the callee searches for or compares a size with: not a role looked up)
    for n in subtree(body):
        if _searches(n) and _reads(n.args, bounds):
            return True
        if isinstance(n, (ast.If, ast.While)) and compares_sizes(n.test) and any(
                _reads([c], bounds) for c in subtree(n.test) if isinstance(c, ast.Compare)
                and any(isinstance(op, (ast.Gt, ast.GtE, ast.Lt, ast.LtE)) for op in c.ops)):
            return True
    return False


def _reads(nodes, names: set[str]) -> bool:
    """True when one of `nodes` reads one of `names`."""
    return any(isinstance(n, ast.Name) and n.id in names for node in nodes for n in subtree(node))


def _made_from(arg: ast.expr, listed: str, bindings: dict) -> bool:
    """True for the name `listed` or a name bound once to an expression that reads it
    (`counts = [n(m) for m in messages]`)."""
    if not isinstance(arg, ast.Name):
        return False
    if arg.id == listed:
        return True
    th = bindings.get(arg.id)
    return th is not None and th.kind == "expr" and isinstance(th.node, ast.expr) and any(
        isinstance(n, ast.Name) and n.id == listed for n in subtree(th.node))


def _searches(node) -> bool:
    """True for a call that searches or makes a running total (`np.searchsorted`, `bisect.bisect`)."""
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    return (f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else "") in _SEARCHES


def _stepped_to_fit(func, node, index: str, listed: str) -> bool:
    """True when `index` is stepped (`index -= 1`) in a `while` loop before `node` whose test holds a
    size against a bound other than the index and the list's length, and that reads `listed`."""
    for loop in subtree(func):
        if not (isinstance(loop, ast.While) and loop.end_lineno < node.lineno and compares_sizes(loop.test)):
            continue
        steps = any(isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id == index
                    for n in subtree(loop))
        reads = any(isinstance(n, ast.Name) and n.id == listed for n in subtree(loop))
        if steps and reads and any(_bounded(c, index) for c in subtree(loop.test) if isinstance(c, ast.Compare)):
            return True
    return False


def _bounded(compare: ast.Compare, index: str) -> bool:
    """True for a comparison of sizes none of whose sides is the index alone, a constant or a
    length (`used + n <= budget`, not `k > 0` nor `k < len(xs)`)."""
    if not any(isinstance(op, (ast.Gt, ast.GtE, ast.Lt, ast.LtE)) for op in compare.ops):
        return False
    return not any(isinstance(side, ast.Constant) or isinstance(side, ast.Name) and side.id == index
                   or isinstance(side, ast.Call) and isinstance(side.func, ast.Name) and side.func.id == "len"
                   for side in (compare.left, *compare.comparators))


def _walked_to_fit(func, node, walk, index: str, listed: str) -> bool:
    """True when `index` walks `range(...)` of `len(listed)` and `node` is taken under an `if` whose
    test compares a size with a bound (`if size(xs[i:]) <= budget:`, not `if i > 0:`)."""
    if not (isinstance(walk, ast.Call) and isinstance(walk.func, ast.Name) and walk.func.id == "range" and any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" and n.args
            and isinstance(n.args[0], ast.Name) and n.args[0].id == listed for a in walk.args for n in subtree(a))):
        return False
    return any(isinstance(n, ast.If) and any(_bounded(c, index) for c in subtree(n.test) if isinstance(c, ast.Compare))
               and any(s is node for s in subtree(n)) for n in subtree(func))
