"""One conversation sent with tools by one phase of a method and without them by the next: facts
for PRM204.

An agent often runs a task in phases over one message list: a tool phase (inspect the data,
call tools until the model stops) and a final phase that streams the answer without tools:

    def run(self, messages):
        messages = self._inspect(messages)          # sends `messages` with tools=INSPECT_TOOLS
        yield from self._generate(messages)         # sends `messages` with tools=None
    # or the final request written in place:
        stream = self.client.get_completion(messages=messages, stream=True)

Read, per method of a class: a call of another method of the class (`self._inspect(v, ...)`)
that passes a name `v` named as a conversation (`messages`, `history`, `msgs`) as it is, where that method sends the parameter it receives it as with
tools (a `tools=` / `functions=` keyword that is not `None` / `[]`, also through a further method
of the class that takes the tools as a parameter, `self._call_with_tools(messages, tools)`), the
call itself giving no tools (`tool_switches.find_dropped_tools` reads those); then,
later in the same method and able to follow it in one pass (`sent_calls.exclusive`), a request
that sends `v` as it is without tools: a call named as a request (`sent_calls`) with `tools=None`
/ `[]`, or no tools keyword, no argument named for tools and no `**options`; or a method of the class that sends the
parameter it receives `v` as that way. Reported at the request without tools (inside the later
method when it sends there).

The tool definitions come first in the cached prefix: the request without them reads none of the
conversation its tool phase cached.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from .flow.binding_syntax import param_names
from .sent_calls import _named_send, branch_paths, exclusive
from .walk import own_nodes, statements

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_TOOL_KEYWORDS = ("tools", "functions")
#: Words of a name that holds a conversation (`messages`, `chat_history`, `msgs`).
_TOOLISH = re.compile(r"tool|function", re.I)
_CONVERSATION = re.compile(r"messages|msgs|history|conversation|contents|dialog", re.I)


@dataclass
class PhaseTools:
    """`node`: where it is reported (the `None` given as the tools, or the request without a
    tools keyword); `first`: the call of the tool phase; `later`: the call that sends without
    tools in the method that runs the phases (the node itself or the call of the later
    method); `function`: that method's name; `conversation`: the name `v`."""

    node: ast.AST
    first: ast.Call
    later: ast.Call
    function: str
    conversation: str


def _no_tools(value) -> bool:
    return isinstance(value, ast.Constant) and value.value is None or \
        isinstance(value, (ast.List, ast.Tuple)) and not value.elts


def _passes(call: ast.Call, name: str) -> int | str | None:
    """The position or keyword at which `call` passes `name` as it is, or None."""
    for i, arg in enumerate(call.args):
        if isinstance(arg, ast.Name) and arg.id == name:
            return i
    for kw in call.keywords:
        if kw.arg is not None and isinstance(kw.value, ast.Name) and kw.value.id == name:
            return kw.arg
    return None


def _self_method(call: ast.Call, methods: dict) -> ast.AST | None:
    f = call.func
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self":
        return methods.get(f.attr)
    return None


def _param_at(method, slot) -> str | None:
    """The parameter of `method` (called on `self`) that receives position or keyword `slot`."""
    names = param_names(method, receiver=False)
    if isinstance(slot, int):
        return names[slot] if slot < len(names) else None
    return slot if slot in names else None


def _tools_given(call: ast.Call, method) -> ast.expr | None:
    """The value `call` gives the tools parameter of `method` (by keyword or position), or None."""
    for kw in call.keywords:
        if kw.arg in _TOOL_KEYWORDS:
            return kw.value
    names = param_names(method, receiver=False)
    for i, arg in enumerate(call.args):
        if i < len(names) and names[i] in _TOOL_KEYWORDS:
            return arg
    return None


def _sent(method, param: str, methods: dict, depth: int = 0) -> tuple[str | None, ast.AST | None]:
    """("tools", None) when `method` sends its parameter `param` with tools; ("none", node) when
    every request of it that it sends does so without them (`node`: the first such, where it is
    reported); (None, None) when neither is known."""
    without = None
    for call in sorted((n for n in own_nodes(method, body_only=True) if isinstance(n, ast.Call)),
                       key=lambda c: (c.lineno, c.col_offset)):
        slot = _passes(call, param)
        if slot is None:
            continue
        inner = _self_method(call, methods)
        given = _tools_given(call, inner) if inner is not None else \
            next((k.value for k in call.keywords if k.arg in _TOOL_KEYWORDS), None)
        if given is not None:
            if not _no_tools(given):
                return "tools", None
            without = without or given
            continue
        if inner is not None and depth < 2:
            p = _param_at(inner, slot)
            state, node = _sent(inner, p, methods, depth + 1) if p else (None, None)
            if state == "tools":
                return state, None
            without = without or node
        elif inner is None and _bare_send(call):
            without = without or call
    return ("none", without) if without is not None else (None, None)


def find_phase_tools(module) -> list[PhaseTools]:
    """The requests sent without tools after a tool phase of the same method sent their
    conversation with tools (the module docstring), in source order, one per request."""
    if "tools" not in module.source and "functions" not in module.source:
        return []
    out: dict[int, PhaseTools] = {}
    for cls in (n for n in statements(module.tree) if isinstance(n, ast.ClassDef)):
        methods = {m.name: m for m in cls.body if isinstance(m, _FUNCS)}
        for func in methods.values():
            calls = sorted((n for n in own_nodes(func, body_only=True) if isinstance(n, ast.Call)),
                           key=lambda c: (c.lineno, c.col_offset))
            paths = None
            for i, first in enumerate(calls):
                phase = _self_method(first, methods)
                if phase is None or phase is func or _tools_given(first, phase) is not None:
                    continue  # (tools the caller gives: `tool_switches.find_dropped_tools` reads those)
                for name in (a.id for a in first.args if isinstance(a, ast.Name) and _CONVERSATION.search(a.id)):
                    p = _param_at(phase, _passes(first, name))
                    if p is None or _sent(phase, p, methods)[0] != "tools":
                        continue
                    for later in calls[i + 1:]:
                        found = _without(later, name, methods, func)
                        if found is None:
                            continue
                        if paths is None:
                            paths = branch_paths(func)
                        if later.lineno > first.lineno and not exclusive(paths, first, later, name) \
                                and found.lineno not in out:
                            out[found.lineno] = PhaseTools(found, first, later, func.name, name)
                        break
    return sorted(out.values(), key=lambda f: (f.node.lineno, f.node.col_offset))


def _without(call: ast.Call, name: str, methods: dict, func) -> ast.AST | None:
    """Where `call` sends `name` without tools (see `_sent`), or None."""
    slot = _passes(call, name)
    if slot is None:
        return None
    inner = _self_method(call, methods)
    if inner is not None:
        if inner is func:
            return None
        given = _tools_given(call, inner)
        if given is not None:
            return given if _no_tools(given) else None
        p = _param_at(inner, slot)
        state, node = _sent(inner, p, methods) if p else (None, None)
        return node if state == "none" else None
    given = next((k.value for k in call.keywords if k.arg in _TOOL_KEYWORDS), None)
    if given is not None:
        return given if _no_tools(given) else None
    return call if _bare_send(call) else None


def _bare_send(call: ast.Call) -> bool:
    """True for a call named as a request that passes no `**options` and no argument named for
    tools (`self._stream(messages, tool_choice, tools)` passes them by position)."""
    if not _named_send(call) or any(k.arg is None for k in call.keywords):
        return False
    return not any(_TOOLISH.search(ast.unparse(a)) for a in [*call.args, *(k.value for k in call.keywords)])
