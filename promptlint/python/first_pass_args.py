"""Prompt content a loop's request carries only on its first pass: facts for PRM104.

A loop that re-sends one conversation (`messages=messages`, a name the loop does not build anew)
with an argument given on the first pass only (`context=notes if iteration == 0 else None`, or a
name bound so in the loop: `call_prompt = prompt if iteration == 1 else ""`, then
`prompt=call_prompt`) sends other prompt text on its first request than on the next ones, which
continue the same conversation: they share the first request's cached prefix only up to where
that text goes. The first pass is a test of the loop's counter against its first value: the
variable of `for i in range(...)` or `enumerate(...)` against 0, or a name the loop advances
(`iteration += 1`) against the value it has on the first pass (its value before the loop, plus
one when the loop advances it before the request). The other branch is nothing (`None`, `""`,
`[]`). Options that are not prompt text (the tools, the tool choice, the model: other rules;
`stream`, `timeout`, sampling) are not read.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

from .walk import own_nodes, statements, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_CONVERSATION_KEYS = ("messages", "contents", "chat_history", "history")
_NOT_TEXT = {"tools", "functions", "tool_choice", "function_call", "model", "stream", "timeout", "temperature",
             "max_tokens", "top_p", "seed", "callbacks", "api_key", "api_url", "provider", "n", "stop"}


@dataclass
class FirstPassArg:
    """`node`: the conditional value (reported); `request`: the call; `keyword`: the argument's
    name; `test`: the source text of the first-pass test; `conversation`: the source text of what
    the request re-sends; `others`: the request's other arguments given on the first pass only
    (one cause: reported once)."""

    node: ast.IfExp
    request: ast.Call
    keyword: str
    test: str
    conversation: str
    others: list = field(default_factory=list)


def _empty(expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value in (None, "") or \
        isinstance(expr, (ast.List, ast.Dict, ast.Tuple)) and not (getattr(expr, "elts", None) or getattr(expr, "keys", None))


def _first_values(loop, func) -> dict[str, int]:
    """The loop's counters -> their value on the first pass (see the module docstring)."""
    out = {}
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        it = loop.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id in ("range", "enumerate"):
            target = loop.target.elts[0] if isinstance(loop.target, ast.Tuple) and loop.target.elts else loop.target
            start = it.args[0] if it.func.id == "range" and len(it.args) > 1 else \
                next((k.value for k in it.keywords if k.arg == "start"), None) if it.func.id == "enumerate" else None
            if isinstance(target, ast.Name):
                out[target.id] = start.value if isinstance(start, ast.Constant) and isinstance(start.value, int) else 0
    body = own_nodes(loop, body_only=True)
    for n in body:
        if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add) and isinstance(n.target, ast.Name) \
                and isinstance(n.value, ast.Constant) and n.value.value == 1:
            before = sorted((a for a in own_nodes(func) if isinstance(a, ast.Assign) and a.lineno < loop.lineno
                             and any(isinstance(t, ast.Name) and t.id == n.target.id for t in a.targets)),
                            key=lambda a: (a.lineno, a.col_offset))
            if before and isinstance(before[-1].value, ast.Constant) and isinstance(before[-1].value.value, int):
                first_stmt = loop.body[0]
                advanced_first = isinstance(first_stmt, ast.AugAssign) and first_stmt is n
                out[n.target.id] = before[-1].value.value + (1 if advanced_first else 0)
    return out


def _first_pass(test, counters: dict[str, int]) -> bool:
    return isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq) \
        and isinstance(test.left, ast.Name) and test.left.id in counters \
        and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value == counters[test.left.id]


def _rebuilt(name: str, loop) -> bool:
    """True when the loop assigns the name (also in a tuple: `(schema, messages) = prepare(...)`)
    from something else than itself (a new list per pass)."""
    return any(isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name
                                                 for target in n.targets for t in subtree(target))
               and name not in {x.id for x in subtree(n.value) if isinstance(x, ast.Name)}
               for n in own_nodes(loop, body_only=True))


def find_first_pass_args(module) -> list[FirstPassArg]:
    """Every argument of a loop's request given only on the first pass (see the module
    docstring), once per conditional value, by line."""
    src = module.source
    if " if " not in src or "==" not in src or not any(k in src for k in _CONVERSATION_KEYS):
        return []
    nodes = subtree(module.tree)
    if not any(type(n) is ast.IfExp for n in nodes) or not any(
            type(n) is ast.Call and any(k.arg in _CONVERSATION_KEYS and type(k.value) is ast.Name for k in n.keywords)
            for n in nodes):
        return []  # (no conditional value, or no call handed a conversation by name: nothing below is found)
    out: dict[int, FirstPassArg] = {}
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        for loop in (n for n in own_nodes(func) if isinstance(n, _LOOPS)):
            counters = _first_values(loop, func)
            if not counters:
                continue
            inside = [n for s in loop.body for n in subtree(s)]  # (a request in a function the loop defines too)
            bound = {t.id: n.value for n in inside if isinstance(n, ast.Assign) and isinstance(n.value, ast.IfExp)
                     for t in n.targets if isinstance(t, ast.Name)}
            for call in (n for n in inside if isinstance(n, ast.Call)):
                sent = next((k.value for k in call.keywords if k.arg in _CONVERSATION_KEYS), None)
                if not isinstance(sent, ast.Name) or _rebuilt(sent.id, loop):
                    continue
                for k in call.keywords:
                    value = bound.get(k.value.id) if isinstance(k.value, ast.Name) else k.value
                    if k.arg is None or k.arg in _NOT_TEXT or not isinstance(value, ast.IfExp) or id(value) in out:
                        continue
                    if _first_pass(value.test, counters) and _empty(value.orelse) and not _empty(value.body):
                        out[id(value)] = FirstPassArg(value, call, k.arg, ast.unparse(value.test), sent.id)
    by_request: dict[int, FirstPassArg] = {}
    for f in sorted(out.values(), key=lambda f: (f.node.lineno, f.node.col_offset)):
        first = by_request.setdefault(id(f.request), f)
        if first is not f:
            first.others.append(f.node)
    return list(by_request.values())
