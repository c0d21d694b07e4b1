"""A conversation read back newest first: facts for PRM105 (the rule judges them).

The read method of a message store (`get_messages`, `get` / `load` of a class that keeps a
conversation, its `get_recent`: `flow.store_reads.reads_conversation`, `reads_stored_messages`,
`reads_newest_stored`) that puts what it read in time order and then turns it around returns the
newest message first: each new message is put at the head of the history, so the history sent from
it never shares a prefix with the previous request's, whatever follows it. All in that one
function:

- a list put in time order, oldest first: `xs = sorted(ys, key=<a time key>)` or `xs.sort(key=<a
  time key>)` without `reverse=True`, or `xs = convert(..., sort_by_time=True)` (a keyword named
  for sorting by time, given True); a time key names a time (`created`, `timestamp`, `date`, `ts`,
  `*_at`, `updated`);
- then turned around in place (`xs.reverse()`) or rebound so (`xs = xs[::-1]`, `xs =
  list(reversed(xs))`), and nothing turns it back;
- and returned (`return xs`, `return xs[:k]`, `return xs[-k:]`).

A list sorted newest first by the store and then turned around is the time order again
(`newest_queries`), not this. The fact is the node that turns the list around, for an info where
the order is chosen (the request is not linked).
"""
from __future__ import annotations

import ast
import re

from .newest_queries import message_reader
from .walk import outer_functions

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_TIME = re.compile(r"(?i)time|created|date|(?:^|[_\W])ts(?:$|[_\W])|_at\b|updated|modified")


def might_hold(source: str) -> bool:
    """The cheap test before the module's walk: a sort and a reversal in the text."""
    return "sort" in source and ("reverse" in source or "[::-1]" in source)


def newest_first(module) -> list[ast.AST]:
    """The nodes that turn a time-ordered list around in the read methods of message stores (see the
    module's docstring), in source order."""
    out: list[ast.AST] = []
    for func, stack in outer_functions(module.tree):
        if message_reader(func, stack):
            out.extend(_turned(func))
    return sorted(out, key=lambda n: (n.lineno, n.col_offset))


def _statements(func) -> list[tuple[ast.stmt, int]]:
    """(statement, id of the block it is in) for the statements of `func` in source order, not those
    of nested functions or classes."""
    out, todo = [], [(c, id(func.body)) for c in reversed(func.body)]
    while todo:
        s, block = todo.pop()
        out.append((s, block))
        if not isinstance(s, (*_FUNCS, ast.ClassDef)):
            inside = [(c, id(inner)) for field in ("body", "handlers", "orelse", "finalbody")
                      for inner in [getattr(s, field, [])] for c in inner if isinstance(c, (ast.stmt, ast.excepthandler))]
            todo.extend(reversed(inside))
    return [(s, b) for s, b in out if isinstance(s, ast.stmt)]


def _turned(func) -> list[ast.AST]:
    """The reversal of each list of `func` put in time order, turned around once and returned."""
    listed = _statements(func)
    stmts = [s for s, _ in listed]
    blocks = [b for _, b in listed]
    timed: dict[str, int] = {}  # name -> the index of the statement that put it in time order
    turns: dict[str, list] = {}  # name -> [(index, node)] of the statements that turn it around
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
            name = s.targets[0].id
            if _time_ordered(s.value):
                timed[name] = i
                turns.pop(name, None)
            elif _turned_copy(s.value, name):
                turns.setdefault(name, []).append((i, s.value))
            elif name in timed and not _slice_of(s.value, name):
                timed.pop(name)
        elif isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Attribute) \
                and isinstance(s.value.func.value, ast.Name):
            name, attr = s.value.func.value.id, s.value.func.attr
            if attr == "sort" and _time_key(s.value):
                timed[name] = i
                turns.pop(name, None)
            elif attr == "reverse" and not s.value.args:
                turns.setdefault(name, []).append((i, s.value))
    out = []
    for name, at in timed.items():
        after = [(i, n) for i, n in turns.get(name, ()) if i > at]  # (turned where it was sorted, not under
        #                                                               a test of its own: a caller's option)
        if len(after) == 1 and blocks[after[0][0]] != blocks[at]:
            continue
        if len(after) == 1 and any(isinstance(s, ast.Return) and s.value is not None and _slice_of(s.value, name)
                                   and i > after[0][0] for i, s in enumerate(stmts)):
            out.append(after[0][1])
    return out


def _time_ordered(value) -> bool:
    """`sorted(xs, key=<time>)` without `reverse=True`, or a call given `sort_by_time=True`."""
    if not isinstance(value, ast.Call):
        return False
    if isinstance(value.func, ast.Name) and value.func.id == "sorted":
        return _time_key(value)
    return any(k.arg and "sort" in k.arg.lower() and _TIME.search(k.arg) and isinstance(k.value, ast.Constant)
               and k.value.value is True for k in value.keywords)


def _time_key(call: ast.Call) -> bool:
    """A sort call keyed by a time, oldest first."""
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    if "reverse" in kw and not (isinstance(kw["reverse"], ast.Constant) and kw["reverse"].value is False):
        return False
    return "key" in kw and _TIME.search(ast.unparse(kw["key"])) is not None


def _turned_copy(value, name: str) -> bool:
    """`xs[::-1]` or `list(reversed(xs))` of the name `name`."""
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) and value.value.id == name \
            and isinstance(value.slice, ast.Slice) and value.slice.lower is None and value.slice.upper is None:
        step = value.slice.step
        return isinstance(step, ast.UnaryOp) and isinstance(step.op, ast.USub) and isinstance(step.operand, ast.Constant) \
            and step.operand.value == 1
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "list" and value.args:
        value = value.args[0]
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "reversed" \
        and len(value.args) == 1 and isinstance(value.args[0], ast.Name) and value.args[0].id == name


def _slice_of(value, name: str) -> bool:
    """The name itself or a slice of it (`xs`, `xs[:k]`, `xs[-k:]`)."""
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice) and value.slice.step is None:
        value = value.value
    return isinstance(value, ast.Name) and value.id == name
