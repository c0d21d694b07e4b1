"""A tool choice written into the options a loop's requests are sent with: facts for PRM204.

A tool loop often sends each request with one options mapping and changes its `tool_choice`
between requests: a forced choice reset once the model has called a tool, or `"none"` written
before the wrap-up request once a limit is reached:

    for attempt in range(max_iterations):
        response = await call_model(messages=messages, options=options)  # the loop's request
        ...
        _reset_required_tool_choice(options)   # def ...(options): options["tool_choice"] = None
    options["tool_choice"] = "none"            # after the loop: the wrap-up request
    response = await call_model(messages=messages, options=options)

Read, per function: a loop holding a request (`sent_calls.is_send`) that passes a local name or
parameter `o` (as a keyword's value, a positional argument, or `**o`); a write of a constant to
`o["tool_choice"]` (or `o["function_call"]`, the legacy name) that follows that request: inside
the loop after it, or after the loop and before a later request passing `o`. A write made by a
function of the module that the loop (or the code after it, before the later request) calls with
`o`, into its own parameter (`def reset(options): options["tool_choice"] = None`), counts too
and is reported in that function. A write before the first request (the choice the conversation
starts with) is none.

Anthropic invalidates the cached messages when `tool_choice` changes (the tools and the system
prompt stay cached): the request after the write reads none of the conversation from the cache.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from .flow.binding_syntax import param_names
from .sent_calls import is_send, sending_functions
from .walk import own_nodes, statements

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_KEYS = ("tool_choice", "function_call")
#: A constant written under one of `_KEYS` (the cheap test of a module).
_GATE = re.compile(r"[\"'](?:tool_choice|function_call)[\"']\]\s*=[^=]")


@dataclass
class ChoiceWrite:
    """`node`: the assignment (where it is reported); `request`: the loop's request it follows;
    `later`: the request sent after the loop with the written options, or None (the loop's own
    next request); `options`: the options' name at the request; `function`: the name of the
    function that sends; `via`: the call of the helper that writes (None when the sending
    function writes itself); `value`: the constant written, as source text."""

    node: ast.Assign
    request: ast.Call
    later: ast.Call | None
    options: str
    function: str
    via: ast.Call | None
    value: str


def _writes(nodes, name: str) -> list[ast.Assign]:
    """The assignments of a constant to `name["tool_choice"]` (or `["function_call"]`) among `nodes`."""
    out = []
    for n in nodes:
        if not isinstance(n, ast.Assign) or len(n.targets) != 1 or not isinstance(n.value, ast.Constant):
            continue
        t = n.targets[0]
        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name \
                and isinstance(t.slice, ast.Constant) and t.slice.value in _KEYS:
            out.append(n)
    return out


def _writes_any(nodes) -> list[ast.Assign]:
    """The assignments of a constant to `<a name>["tool_choice"]` among `nodes`."""
    names = {n.id for n in nodes if isinstance(n, ast.Name)}
    return [w for name in names for w in _writes(nodes, name)]


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _passes(call: ast.Call, name: str) -> int | str | None:
    """The position or keyword at which `call` passes the name `name` as it is (`**name`: "**")."""
    for i, arg in enumerate(call.args):
        if isinstance(arg, ast.Name) and arg.id == name:
            return i
    for kw in call.keywords:
        if isinstance(kw.value, ast.Name) and kw.value.id == name:
            return kw.arg if kw.arg is not None else "**"
    return None


def _helpers(module) -> dict[str, tuple[ast.AST, list[str]]]:
    """Functions of the module by name -> (the function, its parameter names in order), for
    those whose own body writes a tool choice into one of their parameters."""
    out = {}
    for f in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        names = list(param_names(f))
        if any(_writes(own_nodes(f, body_only=True), p) for p in names):
            out.setdefault(f.name, (f, names))
    return out


def _helper_writes(call: ast.Call, name: str, helpers: dict) -> list[ast.Assign]:
    """The writes a helper of the module makes into the parameter `call` passes `name` as."""
    f = call.func
    found = helpers.get(_callee(call))
    if found is None:
        return []
    func, names = found
    slot = _passes(call, name)
    if slot is None or slot == "**":
        return []
    if isinstance(slot, int):
        offset = 1 if names[:1] in (["self"], ["cls"]) and isinstance(f, ast.Attribute) else 0
        if slot + offset >= len(names):
            return []
        slot = names[slot + offset]
    return _writes(own_nodes(func, body_only=True), slot)


def find_choice_writes(module) -> list[ChoiceWrite]:
    """The tool choices written between the requests of a loop's conversation (the module
    docstring), in source order, one per assignment."""
    if _GATE.search(module.source) is None:
        return []
    helpers = _helpers(module)
    senders = None
    out: dict[int, ChoiceWrite] = {}
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        own = own_nodes(func, body_only=True)
        calls = sorted((n for n in own if isinstance(n, ast.Call)), key=lambda c: (c.lineno, c.col_offset))
        written = {n.targets[0].value.id for n in _writes_any(own)}
        if not written and not any(_callee(c) in helpers for c in calls):
            continue
        if senders is None:
            senders = sending_functions(module)
        for loop in (n for n in own if isinstance(n, _LOOPS)):
            inside = own_nodes(loop, body_only=True)
            sends = sorted((c for c in inside if isinstance(c, ast.Call) and is_send(c, senders)),
                           key=lambda c: (c.lineno, c.col_offset))
            for request in sends:
                for name in dict.fromkeys(a.id for a in [*request.args, *(k.value for k in request.keywords)]
                                          if isinstance(a, ast.Name)):
                    _collect(out, func, loop, inside, own, calls, request, name, helpers, senders)
    return sorted(out.values(), key=lambda w: (w.node.lineno, w.node.col_offset))


def _collect(out, func, loop, inside, own, calls, request, name, helpers, senders) -> None:
    """Adds the writes into `name` that follow `request` (inside `loop`, or after it before a
    later request passing `name`)."""
    end = loop.end_lineno or loop.lineno
    after = [c for c in calls if c.lineno > end and c is not request and is_send(c, senders)
             and _passes(c, name) is not None]
    later = after[0] if after else None

    def follows(node) -> bool:
        if node.lineno <= request.lineno:
            return False
        return node.lineno <= end or (later is not None and node.lineno < later.lineno)

    here = [*_writes(inside, name), *(_writes(own, name) if later is not None else [])]
    for w in here:
        if follows(w) and w.lineno not in out:
            out[w.lineno] = ChoiceWrite(w, request, later if w.lineno > end else None, name, func.name, None,
                                        ast.unparse(w.value))
    for call in calls:
        if call is request or not follows(call) or _passes(call, name) is None:
            continue
        for w in _helper_writes(call, name, helpers):
            if w.lineno not in out:
                out[w.lineno] = ChoiceWrite(w, request, later if call.lineno > end else None, name, func.name,
                                            call, ast.unparse(w.value))
