"""A caller that keeps its request out of the conversation its callee keeps (a fact for the prefix
rules: `Segment.apart`).

A wrapper of the request that keeps a conversation (`self.chat_history`) adds each request's
message and reply to it only when options that are on by default say so:

    def get_chat_response(self, message=None, system_prompt=None,
                          add_message_to_chat_history=True, add_response_to_chat_history=True):
        completion = self.get_response_role_and_completion(
            message=message, system_prompt=system_prompt,
            add_message_to_chat_history=add_message_to_chat_history)
        if add_response_to_chat_history:
            chat_history.add_message({"role": "assistant", "content": text})

A call that turns every such option off with a literal `False` (`self.summarising_agent.
get_chat_response(text, system_prompt=prompt, add_message_to_chat_history=False,
add_response_to_chat_history=False)`) sends a request the conversation never holds: the history
the wrapper puts after the system prompt it passes is not grown by it, so nothing of it is lost to
that caller's prompt. An option counts when it guards an addition to a list in the wrapper
(`if option:` over `x.append(...)`, `x.add_message(...)`) or is handed on to another call (which may
guard one there); the call keeps its request out only when it turns off all of them, at least one
guards an addition in the wrapper itself, and the wrapper adds nothing unguarded to the lists it
adds to under them. Nothing here judges.
"""
from __future__ import annotations

import ast

from ...model import replace
from ..walk import children
from .values import Alt, Text

_ADDS = ("append", "extend", "insert")


def keeps_out(func, call: ast.Call, method: bool) -> bool:
    """True when `call` (of `func`, a method when `method`: its first parameter is bound) turns off
    with a literal `False` every parameter of `func` that defaults to `True` and guards an
    addition to a list in `func` or is handed on to another call, at least one of them guarding
    one in `func` itself, with no addition to those lists left unguarded (see the module docstring)."""
    a = func.args
    params = [*a.posonlyargs, *a.args]
    positional = params[1:] if method and params else params
    defaults = dict(zip([p.arg for p in params][len(params) - len(a.defaults):], a.defaults))
    defaults.update((p.arg, d) for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None)
    options = {name for name, d in defaults.items() if isinstance(d, ast.Constant) and d.value is True}
    if not options:
        return False
    guarded, unguarded, handed = _additions(func, options)
    counted = set(guarded) | handed
    if not guarded or any(r in unguarded for receivers in guarded.values() for r in receivers):
        return False
    passed = {k.arg: k.value for k in call.keywords if k.arg is not None}
    passed.update((p.arg, v) for p, v in zip(positional, call.args) if not isinstance(v, ast.Starred))
    return all(isinstance(passed.get(o), ast.Constant) and passed[o].value is False for o in counted)


def apart(value):
    """`value` (a caller's argument) with its dynamic segments marked `apart`; a value that is not
    text (or several texts) is returned as it is."""
    if isinstance(value, Alt):
        return Alt([apart(o) for o in value.options], value.span, value.fallback, value.configured, value.per_caller)
    if isinstance(value, Text):
        return Text([s if s.is_static else replace(s, apart=True) for s in value.segs])
    return value


def _additions(func, options: set[str]) -> tuple[dict, set, set]:
    """({option: receivers it guards additions to}, receivers of additions no option guards,
    options handed on to another call) in the body of `func` (nested functions included: a
    generator that adds the streamed reply)."""
    guarded: dict[str, set] = {}
    unguarded: set = set()
    handed: set = set()
    todo = [(child, frozenset()) for child in children(func)]
    while todo:
        node, guards = todo.pop()
        if isinstance(node, ast.If):
            tested = _tested(node.test) & options
            todo.extend((c, guards | tested) for c in node.body)
            todo.extend((c, guards) for c in [node.test, *node.orelse])
            continue
        if isinstance(node, ast.Call):
            receiver = _added_to(node)
            if receiver is not None:
                if guards:
                    for g in guards:
                        guarded.setdefault(g, set()).add(receiver)
                else:
                    unguarded.add(receiver)
            handed.update(k.value.id for k in node.keywords
                          if isinstance(k.value, ast.Name) and k.value.id in options)
            handed.update(v.id for v in node.args if isinstance(v, ast.Name) and v.id in options)
        todo.extend((c, guards) for c in children(node))
    return guarded, unguarded, handed


def _tested(test) -> set[str]:
    """The names an `if` test requires true: `option`, `x is not None and option`."""
    if isinstance(test, ast.Name):
        return {test.id}
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return {n for v in test.values for n in _tested(v)}
    return set()


def _added_to(call: ast.Call) -> str | None:
    """The receiver's code of `x.append(...)`, `x.add_message(...)` (an addition to a list), else None."""
    f = call.func
    if not isinstance(f, ast.Attribute) or not (f.attr in _ADDS or f.attr == "add" or f.attr.startswith("add_")):
        return None
    return ast.unparse(f.value)
