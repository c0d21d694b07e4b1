"""The returns of a function that a call can reach, when the call's constant arguments decide
the `if` tests around them.

    def get_prompt(name):
        if name == "review":
            return REVIEW
        table = {"chat": CHAT, "joke": JOKE}
        return table[name]

Called as `get_prompt("chat")`, the `review` branch cannot run: the call returns what the last
`return` gives, not one of both. Only tests that compare a parameter with string constants are
decided (`p == "x"`, `p != "x"`, `p in ("x", "y")`, `p not in (...)`, either side), for a
parameter the call binds to a static text (a default included), and truth tests of a flag the
call binds to `True`, `False` or `None` (`if is_system:`, `if not p:`). A method's comparisons of a
field of its instance with string constants (`if self.template_format == "jinja2":`) are decided
likewise when the instance it is called on holds static text there (`StringTemplate(T,
template_format="jinja2").format(...)`: the field the constructor set); an `if` whose test is not decided
keeps both branches, and so does a test of a parameter the body rebinds. A branch that always ends (a `return` or a `raise` on every path) hides the
statements after it when it is taken.
"""
from __future__ import annotations

import ast
from typing import Callable

from .binding_syntax import param_names
from .frames import Thunk
from .segment_text import const_str

_ENDS = (ast.Return, ast.Raise)
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def picked(ev, func, bindings: dict, returns: list, field: Callable[[str], str | None] | None = None) -> list | None:
    """The return thunks of `func` (`returns`, as its reading collects them) a call with these
    `bindings` (parameter -> thunk or value) can reach; None when no test is decided. `field(attr)`:
    the static text the instance the method is called on holds in `self.attr` (None when not known)."""
    def value_of(name: str) -> str | None:
        if name.startswith("self."):
            return field(name[5:]) if field is not None else None
        bound = bindings.get(name)
        value = ev.force(bound.value, bound) if isinstance(bound, Thunk) else bound
        return const_str(value)

    live = live_returns(func, value_of)
    if live is None:
        return None
    return [t for t in returns if id(getattr(t, "node", None)) in live] or returns


def live_returns(func, value_of: Callable[[str], str | None]) -> set[int] | None:
    """The ids of the returned expressions of `func` a call can reach, given `value_of(name)`: the
    static text a parameter is bound to (None when not known). None when no test of the body is
    decided (every return stays)."""
    params = _decidable(func)
    if params is None:  # no test the walk meets compares a parameter: none is decided
        return None
    decided = [False]

    def decide(test) -> bool | None:
        flag = _flag_test(test, params)
        if flag is not None:  # `if is_system:` of a call that passes `is_system=False`
            name, negated = flag
            truth = _TRUTHS.get(value_of(name))
            if truth is None:
                return None
            decided[0] = True
            return truth != negated
        found = _compared(test, params)
        if found is None:
            return None
        name, texts, negated = found
        value = value_of(name)
        if value is None:
            return None
        decided[0] = True
        return (value in texts) != negated

    out: list[ast.expr] = []
    _walk(func.body, decide, out)
    return {id(r) for r in out} if decided[0] else None


def _decidable(func) -> frozenset | None:
    """The parameters of `func` its body never rebinds (a test of a rebound one reads the new
    value), when some `if` test `_walk` meets (at statement level, in `if` branches) compares one
    of them with constant text (`_compared`) or tests its truth (`_flag_test`); None when no test does, so no call decides any.
    Read once per function node (kept on it: trees are never changed after parsing)."""
    known = getattr(func, "_promptlint_decidable", False)
    if known is not False:
        return known
    params = set(param_names(func))
    params -= {n.id for stmt in func.body for n in (stmt, *_own(stmt))
               if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    if "self" in params:  # the fields of its instance the method does not set itself
        params |= {"self." + n.attr for stmt in func.body for n in (stmt, *_own(stmt))
                   if isinstance(n, ast.Attribute) and _field(n) and isinstance(n.ctx, ast.Load)}
        params -= {"self." + n.attr for stmt in func.body for n in (stmt, *_own(stmt))
                   if isinstance(n, ast.Attribute) and _field(n) and not isinstance(n.ctx, ast.Load)}
    tests = []
    todo = [func.body]
    while todo:
        for stmt in todo.pop():
            if isinstance(stmt, ast.If):
                tests.append(stmt.test)
                todo += [stmt.body, stmt.orelse]
    found = frozenset(params) if any(_compared(t, params) is not None or _flag_test(t, params) is not None
                                     for t in tests) else None
    func._promptlint_decidable = found
    return found


def _walk(stmts, decide, out: list) -> bool:
    """Collect the returned expressions reachable in `stmts`; True when they always end."""
    for stmt in stmts:
        if isinstance(stmt, ast.If):
            verdict = decide(stmt.test)
            if verdict is not None:
                if _walk(stmt.body if verdict else stmt.orelse, decide, out):
                    return True
                continue
            ends = _walk(stmt.body, decide, out)
            if _walk(stmt.orelse, decide, out) and ends:
                return True
        elif isinstance(stmt, ast.Return):
            if stmt.value is not None:
                out.append(stmt.value)
            return True
        elif isinstance(stmt, ast.Raise):
            return True
        elif not isinstance(stmt, _NESTED):  # loops, with, try: every return inside may run
            out.extend(n.value for n in _own(stmt) if isinstance(n, ast.Return) and n.value is not None)
    return False


def _own(node):
    """The nodes under `node`, not inside a nested function or class."""
    todo = list(ast.iter_child_nodes(node))
    while todo:
        n = todo.pop()
        if isinstance(n, _NESTED):
            continue
        yield n
        todo.extend(ast.iter_child_nodes(n))


#: The truth of the constants a flag parameter is bound to (`True`, `False`, `None`, as their text).
_TRUTHS = {"True": True, "False": False, "None": False}


def _field(node) -> bool:
    """True for `self.attr`."""
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _name(node) -> str | None:
    """`p` for a name, `self.attr` for a field of the instance, else None."""
    if isinstance(node, ast.Name):
        return node.id
    return "self." + node.attr if _field(node) else None


def _flag_test(test, params: set) -> tuple[str, bool] | None:
    """(parameter, negated) for a truth test of a parameter, `if p:` or `if not p:`, else None."""
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    inner = test.operand if negated else test
    return (inner.id, negated) if isinstance(inner, ast.Name) and inner.id in params else None


def _compared(test, params: set) -> tuple[str, set, bool] | None:
    """(parameter, the constant texts it is compared with, negated) for `p == "x"`, `p != "x"`,
    `p in ("x", "y")`, `p not in (...)` (either side for == and !=), else None."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(left, ast.Constant) and _name(right) is not None:
        left, right = right, left
    name = _name(left)
    if name is None or name not in params:
        return None
    if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(right, ast.Constant) and isinstance(right.value, str):
        return name, {right.value}, isinstance(op, ast.NotEq)
    if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.Tuple, ast.List, ast.Set)) and right.elts \
            and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in right.elts):
        return name, {e.value for e in right.elts}, isinstance(op, ast.NotIn)
    return None
