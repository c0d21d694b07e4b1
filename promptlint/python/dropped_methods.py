"""A conversation sent without its tools by another method of the same class: facts for PRM204.

An agent class often sends its loop's requests through one method (`_request_model(spec,
messages)`, which passes `tools=tool_definitions` to the call that builds or sends the request)
and its wrap-up requests (a retry after an empty answer, the final answer once the budget of
steps is spent) through another that passes the same call `tools=None`. Both hand that call the
conversation they are given, under the same parameter name and at the same place: the wrap-up
request re-sends the loop's conversation, and the tool definitions, which come first in the
cached prefix, differ from those its earlier requests carried.

Read, per class: two methods (not `__init__`), each with a parameter named for a conversation
(`messages`, `history`, `chat_history`, `conversation`, `contents`), that call one callee (the
same source text, `self._build_request_kwargs`, a request by `sent_calls.is_send`) passing that
parameter at the same position (or keyword); one passes a tool list (`tools=` / `functions=`, a
value that is not `None` / `[]`), the other `None` or `[]`; the method without tools is called
by a method of the class (`self._request_no_tools(...)`: part of the class's own run, not an
option a caller of the class chooses). One finding per method without tools.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from .flow.binding_syntax import param_names
from .sent_calls import is_send, sending_functions
from .tool_switches import _TOOL_KEYWORDS, _no_tools
from .walk import own_nodes, statements

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: A tools keyword given no tools in the text (`tools=None`, `functions=[]`), also inside a longer
#: name: a cheap test (each pattern starts with a literal the regex engine scans for quickly).
_NO_TOOLS = tuple(re.compile(k + r"\s*=\s*(?:None\b|\[\s*\]|\(\s*\))") for k in _TOOL_KEYWORDS)


def _no_tools_text(text: str) -> bool:
    return any(p.search(text) is not None for p in _NO_TOOLS)
#: Parameter names that carry a conversation (a message list sent as it is).
_CONVERSATION_PARAMS = {"messages", "history", "chat_history", "conversation", "contents", "msgs"}


@dataclass
class DroppedInMethod:
    """`node`: the `None` / `[]` given as the tools (where it is reported); `request`: the call it
    is given to; `earlier`: the call of the other method that passes tools; `function` /
    `other`: the two methods' names; `param`: the conversation parameter's name."""

    node: ast.expr
    request: ast.Call
    earlier: ast.Call
    function: str
    other: str
    param: str


def _conversation_slot(call: ast.Call, params: set[str]) -> tuple[object, str] | None:
    """(the position or keyword, the parameter's name) where the call passes a conversation
    parameter of its method as it is, or None."""
    for i, arg in enumerate(call.args):
        if isinstance(arg, ast.Name) and arg.id in params:
            return i, arg.id
    for kw in call.keywords:
        if kw.arg is not None and isinstance(kw.value, ast.Name) and kw.value.id in params:
            return kw.arg, kw.value.id
    return None


def find_dropped_in_methods(module) -> list[DroppedInMethod]:
    """The wrap-up requests of a class sent without the tools another of its methods sends the
    same conversation with (the module docstring), in source order."""
    out: list[DroppedInMethod] = []
    if not _no_tools_text(module.source):
        return out  # no request written without tools: the cheap test first
    lines = module.source.splitlines()
    senders = None
    for cls in (n for n in statements(module.tree) if isinstance(n, ast.ClassDef)):
        if not _no_tools_text("\n".join(lines[cls.lineno - 1:cls.end_lineno or cls.lineno])):
            continue  # (the cheap test again, on the class's own text)
        methods = [m for m in cls.body if isinstance(m, _FUNCS) and m.name != "__init__" and (set(param_names(m)) & _CONVERSATION_PARAMS)]
        if len(methods) < 2:
            continue
        with_tools: dict[tuple, tuple[ast.Call, str]] = {}
        without: list[tuple[tuple, ast.expr, ast.Call, str, str]] = []
        for m in methods:
            params = set(param_names(m)) & _CONVERSATION_PARAMS
            for call in (n for n in own_nodes(m, body_only=True) if isinstance(n, ast.Call) and n.keywords):
                tools = next((k.value for k in call.keywords if k.arg in _TOOL_KEYWORDS), None)
                slot = _conversation_slot(call, params) if tools is not None else None
                if slot is None:
                    continue
                key = (ast.unparse(call.func), slot[0], slot[1])
                if _no_tools(tools):
                    without.append((key, tools, call, m.name, slot[1]))
                else:
                    with_tools.setdefault(key, (call, m.name))
        pairs = [(w, with_tools[w[0]]) for w in without if w[0] in with_tools and with_tools[w[0]][1] != w[3]]
        if not pairs:
            continue
        called = {n.func.attr for m in cls.body if isinstance(m, _FUNCS) for n in own_nodes(m, body_only=True)
                  if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                  and isinstance(n.func.value, ast.Name) and n.func.value.id == "self"}
        done: set[str] = set()
        for (key, tools, call, name, param), (earlier, other) in pairs:
            if name in done or name not in called:
                continue
            if senders is None:
                senders = sending_functions(module)
            if not (is_send(call, senders) and is_send(earlier, senders)):
                continue
            done.add(name)
            out.append(DroppedInMethod(tools, call, earlier, name, other, param))
    return sorted(out, key=lambda d: (d.node.lineno, d.node.col_offset))
