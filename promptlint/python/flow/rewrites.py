"""A conversation rendered into text with its older turns written apart from the newest few
(PRM105): the list joined (`"\\n".join(lines)`) was filled by

- two loops over one list, one over all but its newest turns and one over the newest
  (`for t in turns[:-4]: lines.append(f"You: {t.q}\\nExpert: (omitted)")`, then
  `for t in turns[-4:]: lines.append(f"You: {t.q}\\nExpert: {t.a}")`), each writing a turn its
  own way, or
- one loop by index that writes a turn one way when it is among the newest and another way
  otherwise (`for i, t in enumerate(turns): if i >= len(turns) - 4: ... else: ...`).

On every new turn the turn that leaves the newest few is written again the other way: the text
changes in its middle, and what a cache held of it ends there. `rendered_apart` finds the shape;
`join` marks the joined text with it (a stable segment of no text whose `window` is the shape).
"""
from __future__ import annotations

import ast

from ...model import Kind, Segment, Volatility
from ..walk import subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def mark(text_segs: list[Segment], found: tuple[ast.AST, str], module, node) -> list[Segment]:
    """`text_segs` (the joined text, at `node`) with a marker in front: a stable segment of no text
    whose `window` is where the older turns are written apart (`found`, from `rendered_apart`)."""
    at, listed = found
    marker = Segment(kind=Kind.UNKNOWN, volatility=Volatility.STABLE, expr=listed, span=module.span(node),
                     window=module.span(at),
                     evidence=f"`{listed}` written into text with its older turns written apart from the newest")
    return [marker, *text_segs]


def marks_of(segs: list[Segment]) -> list[Segment]:
    """The markers `mark` put in a text."""
    return [s for s in segs if s.window is not None and not s.text and s.kind is Kind.UNKNOWN
            and s.volatility is Volatility.STABLE]


def rendered_apart(func, name: str) -> tuple[ast.AST, str] | None:
    """(where, the list's source) for the first shape of the module docstring that fills `name`
    in `func`, or None."""
    if not isinstance(func, _FUNCS):
        return None
    older: dict[str, ast.For] = {}
    newer: dict[str, ast.For] = {}
    for loop in subtree(func):
        if not isinstance(loop, ast.For) or not _appends(loop.body, name):
            continue
        it = loop.iter
        if isinstance(it, ast.Subscript) and isinstance(it.slice, ast.Slice) and it.slice.step is None:
            key = ast.dump(it.value)
            sl = it.slice
            if sl.lower is None and _from_end(sl.upper):
                older.setdefault(key, loop)
            elif sl.upper is None and _from_end(sl.lower):
                newer.setdefault(key, loop)
        found = _by_index(loop, name)
        if found is not None:
            return found
    for key, loop in older.items():
        other = newer.get(key)
        if other is not None and _written(loop.body, name) != _written(other.body, name):
            return loop, ast.unparse(loop.iter.value)
    return None


def _from_end(bound) -> bool:
    """A bound counted from the end: `-4`, `-k`, `len(xs) - k`."""
    if isinstance(bound, ast.UnaryOp) and isinstance(bound.op, ast.USub):
        return not (isinstance(bound.operand, ast.Constant) and bound.operand.value == 0)
    return isinstance(bound, ast.BinOp) and isinstance(bound.op, ast.Sub) and _is_len(bound.left)


def _is_len(node) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len"


def _by_index(loop: ast.For, name: str) -> tuple[ast.AST, str] | None:
    """`for i, t in enumerate(xs):` whose body holds an `if` comparing `i` with a length less a
    count (`len(xs) - 4`, or a name assigned `len(xs)` in the function), both branches appending
    to `name` in their own way."""
    it, target = loop.iter, loop.target
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate" and it.args
            and isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name)):
        return None
    index = target.elts[0].id
    for stmt in loop.body:
        if not isinstance(stmt, ast.If) or not stmt.orelse:
            continue
        test = stmt.test
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1
                and isinstance(test.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE))):
            continue
        sides = [test.left, *test.comparators]
        if not any(isinstance(s, ast.Name) and s.id == index for s in sides):
            continue
        if not any(isinstance(s, ast.BinOp) and isinstance(s.op, ast.Sub) for s in sides):
            continue
        if _appends(stmt.body, name) and _appends(stmt.orelse, name) \
                and _written(stmt.body, name) != _written(stmt.orelse, name):
            return stmt.test, ast.unparse(it.args[0])
    return None


def _appends(body, name: str) -> bool:
    return bool(_written(body, name))


def _written(body, name: str) -> set[str]:
    """The source of what the statements append to `name` (`name.append(x)`), each once."""
    out = set()
    for stmt in body:
        for n in subtree(stmt):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "append" \
                    and isinstance(n.func.value, ast.Name) and n.func.value.id == name and n.args:
                out.add(ast.dump(n.args[0]))
    return out
