"""Counting cache breakpoints on the longest path through a function (facts for
`marking_helpers.py`): a `Count` is `True` (once per item of a list of unknown length) or an
`int` (that many breakpoints); a loop multiplies what its body sets (`loop_count`: `n` over
`xs[-n:]`, `xs[:n]`, `range(n)`, once when it stops after the first), `plus` / `times`
combine counts, `more` keeps the branch that sets more of them, and `exclusive` tells two `if` tests that cannot both hold
(`if x:` and `if x is None`), so their branches count once."""
from __future__ import annotations

import ast

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)

Count = bool | int  # True: once per item of a list of unknown length; n: n breakpoints


def loop_count(func: ast.AST | None, target: ast.AST) -> Count | None:
    """How many breakpoints the loops of `func` around `target` (a node of it) set: None when it
    is in no loop, else as `_loop_factor` (the product over nested loops)."""
    if func is None:
        return None
    chain = _ancestors(func, target)
    if chain is None:
        return None
    count: Count | None = None
    for i, node in enumerate(chain):
        if isinstance(node, _LOOPS):
            factor = _loop_factor(node, target)
            count = factor if count is None else times(count, factor)
    if count is not None:
        cap = counted_cap(chain, target)
        if cap is not None:
            count = cap if count is True else min(count, cap)
    return count


def counted_cap(chain: list, target: ast.AST) -> int | None:
    """The most times a statement in a loop runs when an `if` around it, inside the loop, tests a
    counter against a constant and counts up in the same branch (`if used < 4: ...; used += 1`,
    also `used <= 3`, `4 > used`, in an `and`: `if tokens >= 1024 and used < 5`): that many
    (N for `<`, N + 1 for `<=`), or None. The counter must not be set again inside the loop
    (a count per message is no cap). `chain`: the nodes from the function down to `target`'s
    parent (`_ancestors`)."""
    loops = [n for n in chain if isinstance(n, _LOOPS)]
    if not loops:
        return None
    inner = loops[-1]
    reset = {t.id for n in ast.walk(inner) if isinstance(n, (ast.Assign, ast.AnnAssign))
             for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
    best = None
    for i in range(chain.index(inner) + 1, len(chain)):
        node = chain[i]
        if not isinstance(node, ast.If):
            continue
        below = chain[i + 1] if i + 1 < len(chain) else target  # the statement of the body on the way down
        if not any(stmt is below or any(n is target for n in ast.walk(stmt)) for stmt in node.body):
            continue  # (in the `else` branch: the test's count does not hold there)
        counted = {n.target.id for stmt in node.body for n in ast.walk(stmt) if isinstance(n, ast.AugAssign)
                   and isinstance(n.op, ast.Add) and isinstance(n.target, ast.Name)
                   and isinstance(n.value, ast.Constant) and n.value.value == 1}
        for t in conjuncts(node.test):
            cap = _cap(t, counted - reset)
            if cap is not None:
                best = cap if best is None else min(best, cap)
    return best


def _cap(test: ast.AST, counters: set) -> int | None:
    """N for `c < N` / `N > c`, N + 1 for `c <= N` / `N >= c`, with `c` one of `counters`."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(right, ast.Name) and right.id in counters and _int(left) is not None:
        left, right = right, left
        op = {ast.Gt: ast.Lt(), ast.GtE: ast.LtE()}.get(type(op), op)
    if not (isinstance(left, ast.Name) and left.id in counters):
        return None
    n = _int(right)
    if n is None or n < 0:
        return None
    if isinstance(op, ast.Lt):
        return n
    if isinstance(op, ast.LtE):
        return n + 1
    return None


def _ancestors(root: ast.AST, target: ast.AST) -> list | None:
    """The nodes from `root` down to `target`'s parent (nested functions not entered), or None."""
    stack = [(root, [])]
    while stack:
        node, path = stack.pop()
        for child in ast.iter_child_nodes(node):
            if child is target:
                return path + [node]
            if not isinstance(child, (*_FUNCS, ast.Lambda, ast.ClassDef)):
                stack.append((child, path + [node]))
    return None


def _loop_factor(loop: ast.AST, inner: ast.AST) -> Count:
    """Breakpoints a loop sets for one it sets per pass: 1 when the loop's body stops right after
    the statement holding it (`break`, `return` in the same block), n over a fixed count of items,
    else True (once per item)."""
    for block in _blocks(loop):
        at = next((i for i, s in enumerate(block) if any(n is inner for n in ast.walk(s))), None)
        if at is not None and any(isinstance(s, (ast.Break, ast.Return)) for s in block[at + 1:]):
            return 1
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        n = fixed_length(loop.iter)
        if n is not None:
            return n
    return True


def _blocks(node: ast.AST):
    """Every statement list inside `node` (bodies of nested `if`s, `with`s, `try`s), not nested loops."""
    out = [node.body]
    for s in ast.walk(node):
        if s is node or isinstance(s, (*_FUNCS, ast.Lambda, ast.ClassDef)):
            continue
        for name in ("body", "orelse", "finalbody"):
            block = getattr(s, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                out.append(block)
    return out


def fixed_length(it: ast.AST) -> int | None:
    """Items of `xs[-n:]`, `xs[:n]`, `xs[a:b]` (constants), `range(n)`, `reversed(...)` of one, a
    literal list or tuple: at most that many."""
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id in ("reversed", "enumerate", "list") \
            and it.args:
        return fixed_length(it.args[0])
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and len(it.args) == 1:
        return _int(it.args[0])
    if isinstance(it, (ast.List, ast.Tuple)) and not any(isinstance(e, ast.Starred) for e in it.elts):
        return len(it.elts)
    if isinstance(it, ast.Subscript) and isinstance(it.slice, ast.Slice) and it.slice.step is None:
        lo = _int(it.slice.lower) if it.slice.lower is not None else 0
        hi = _int(it.slice.upper) if it.slice.upper is not None else None
        if lo is not None and lo < 0 and it.slice.upper is None:
            return -lo
        if hi is not None and hi >= 0 and lo is not None and lo >= 0:
            return max(0, hi - lo)
    return None


def _int(node: ast.AST) -> int | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and isinstance(node.operand.value, int):
        return -node.operand.value
    return None


def times(a: Count, b: Count) -> Count:
    if a is True or b is True:
        return True
    return a * b


def plus(a: Count, b: Count) -> Count:
    if a is True or b is True:
        return True
    return a + b


def _total(marks: list) -> Count:
    out: Count = 0
    for _span, count, *_rest in marks:
        out = plus(out, count)
    return out


def more(a: list, b: list) -> list:
    """The branch with more breakpoints (once per item beats any number)."""
    ta, tb = _total(a), _total(b)
    if ta is True:
        return a
    if tb is True:
        return b
    return a if ta >= tb else b


def exclusive(first: ast.AST, second: ast.AST) -> bool:
    """True when two `if` tests cannot both hold: one tests a name true or not None (`x`, `x is
    not None`) and the other (alone or in an `and`) that it is None or false (`x is None`, `not x`)."""
    return bool(_truthy(first) & _falsy(second)) or bool(_falsy(first) & _truthy(second))


def conjuncts(test: ast.AST) -> list:
    return list(test.values) if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]


def _truthy(test: ast.AST) -> set:
    out = set()
    for t in conjuncts(test):
        if isinstance(t, ast.Name):
            out.add(t.id)
        elif _none_test(t, ast.IsNot):
            out.add(t.left.id)
    return out


def _falsy(test: ast.AST) -> set:
    out = set()
    for t in conjuncts(test):
        if isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.Not) and isinstance(t.operand, ast.Name):
            out.add(t.operand.id)
        elif _none_test(t, ast.Is):
            out.add(t.left.id)
    return out


def _none_test(t: ast.AST, op) -> bool:
    return isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], op) \
        and isinstance(t.left, ast.Name) and isinstance(t.comparators[0], ast.Constant) \
        and t.comparators[0].value is None
