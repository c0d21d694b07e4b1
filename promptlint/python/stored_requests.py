"""Two methods of a class that send the conversation the instance keeps with different tools:
facts for PRM204.

A class keeps a conversation on the instance (`self.history`: read into a request by one method
and written back by a method of the class, `self.history.set(messages)`). One method sends it
with the tools it fills from a source (a comprehension or a call over the agent's tools, given as
the request's `tools` or as the `tools=` of a config call the request carries). Another method
builds a request of its own over the same stored conversation (a structured answer asked for
after a chat) and sends

- no tools at all: no `tools` key, and the config call the first method gives tools to made
  without them (`types.GenerateContentConfig(...)`, no `tools=`), or
- a tool list written in place (one tool that returns the answer), often forced with
  `tool_choice`:

    async def generate(self, message):
        messages = [*self.history.get(), user(message)]
        tools = [schema(t) for t in await self.agent.list_tools()]
        ... create(messages=messages, tools=tools)
        self.history.set(messages)

    async def generate_structured(self, message, model):
        messages = [*self.history.get(), user(message)]
        ... create(messages=messages, tools=[answer_tool(model)], tool_choice={"type": "tool", ...})

That request goes out with other tool definitions than the conversation's, which come first in
the prefix. When the method that writes the conversation back put the system message into it
(`messages.append(system)` into the list it stores), and the other method puts the system
message before the stored conversation again, that request's messages differ from the start too
(`system_first`).
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from .module import statements
from .text_gates import holds_any
from .option_tools import filled_tool_list
from .toolsets import tool_set_named
from .walk import own_nodes

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: Keys and keywords of a request that carry its conversation.
_CONVERSATION_KEYS = ("messages", "contents", "input")
#: The cheap test: the module sends tools and reads something of the instance (`"tools"` quoted,
#: or `tools =` at a word's start; written to start with the word: searched as fast as a substring).
_TEXT = re.compile(r"tools(?:(?<=[\"']tools)[\"']|(?<=\btools)\s*=)")


@dataclass
class StoredRequest:
    """`node`: where the request's tools differ (the tools value written in place, the config call
    made without tools, or the request); `request`: the request (a dict display or a call);
    `function`: its method; `stored`: the attribute of the kept conversation; `read`: where it is
    read into the request; `other`: the tools the conversation's requests are sent with, in
    `other_function`; `written`: True for a tool list written in place (else: no tools);
    `forced`: the `tool_choice` value, or None; `system_first`: the system message put again
    before a stored conversation that holds it, or None."""

    node: ast.AST
    request: ast.AST
    function: str
    stored: str
    read: ast.AST
    other: ast.AST
    other_function: str
    written: bool
    forced: ast.AST | None
    system_first: ast.AST | None


@dataclass
class _Request:
    node: ast.AST
    stored: str
    read: ast.AST
    listed: str  # the local list the conversation is read into ("" when read in place)
    tools: ast.AST | None
    carrier: ast.Call | None  # the config call that carries the tools (or is made without them)
    callees: dict  # callee text -> the call made without tools, among the request's values
    forced: ast.AST | None
    opaque: bool  # a `**kwargs` of the method merged in: its tools are not known


def _stored(expr) -> tuple[str, ast.AST] | None:
    """(attr, node) for a read of an attribute of the instance: `self.A`, `self.A.get()`,
    `[*self.A]`, `list(self.A)`."""
    if isinstance(expr, (ast.List, ast.Tuple)):
        for e in expr.elts:
            if isinstance(e, ast.Starred):
                found = _stored(e.value)
                if found is not None:
                    return found
        return None
    if isinstance(expr, ast.Call) and not expr.args and not expr.keywords and isinstance(expr.func, ast.Attribute):
        expr = expr.func.value
    elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "list" and len(expr.args) == 1:
        expr = expr.args[0]
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        return expr.attr, expr
    return None


def _system_message(node) -> bool:
    """True for a message display or call with the role "system"."""
    if isinstance(node, ast.Dict):
        return any(isinstance(k, ast.Constant) and k.value == "role" and isinstance(v, ast.Constant)
                   and v.value == "system" for k, v in zip(node.keys, node.values))
    return isinstance(node, ast.Call) and any(k.arg == "role" and isinstance(k.value, ast.Constant)
                                              and k.value.value == "system" for k in node.keywords)


def _grows(node) -> tuple[str, ast.AST, str] | None:
    """(list name, value, verb) for `n.append(v)` / `n.extend(v)` / `n.insert(i, v)` / `n += v`."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
            and node.func.attr in ("append", "extend", "insert") and node.args:
        return node.func.value.id, node.args[-1], node.func.attr
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and isinstance(node.op, ast.Add):
        return node.target.id, node.value, "extend"
    return None


def _bound(own, name: str) -> list[ast.AST]:
    """The values `name` is assigned in the method."""
    return [n.value for n in own if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None and any(
        isinstance(t, ast.Name) and t.id == name for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))]


def _pairs(node) -> list[tuple[str | None, ast.AST]]:
    if isinstance(node, ast.Dict):
        return [(k.value if isinstance(k, ast.Constant) else None, v) for k, v in zip(node.keys, node.values)]
    return [(k.arg, k.value) for k in node.keywords]


def _requests(func, params: set[str]) -> list[_Request]:
    """The requests of `func` given the conversation an attribute of the instance holds."""
    own = sorted(own_nodes(func, body_only=True), key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))
    reads: dict[str, tuple[str, ast.AST]] = {}
    for n in own:
        grown = _grows(n)
        if grown is not None and grown[2] == "extend" and grown[0] not in reads and _stored(grown[1]):
            reads[grown[0]] = _stored(grown[1])
        if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None:
            for t in n.targets if isinstance(n, ast.Assign) else [n.target]:
                if isinstance(t, ast.Name) and t.id not in reads and _stored(n.value):
                    reads[t.id] = _stored(n.value)
    out = []
    for n in own:
        if not isinstance(n, (ast.Dict, ast.Call)):
            continue
        pairs = _pairs(n)
        conv = next((v for k, v in pairs if k in _CONVERSATION_KEYS), None)
        if conv is None:
            continue
        listed = conv.id if isinstance(conv, ast.Name) else ""
        found = reads.get(listed) if listed else _stored(conv)
        if found is None:
            continue
        names = {t.id for a in own if isinstance(a, (ast.Assign, ast.AnnAssign)) and a.value is n
                 for t in (a.targets if isinstance(a, ast.Assign) else [a.target]) if isinstance(t, ast.Name)}
        tools = next((v for k, v in pairs if k == "tools"), None)
        forced = next((v for k, v in pairs if k == "tool_choice"), None)
        splats = [v for k, v in pairs if k is None] + (
            [k.value for k in n.keywords if k.arg is None] if isinstance(n, ast.Call) else [])
        for a in own:  # `req["tools"] = x`, `req.update(x)`, `req = {**req, **x}`
            if isinstance(a, ast.Assign) and isinstance(a.targets[0], ast.Subscript) \
                    and isinstance(a.targets[0].value, ast.Name) and a.targets[0].value.id in names \
                    and isinstance(a.targets[0].slice, ast.Constant):
                key = a.targets[0].slice.value
                tools = a.value if key == "tools" else tools
                forced = a.value if key == "tool_choice" else forced
            elif isinstance(a, ast.Call) and isinstance(a.func, ast.Attribute) and a.func.attr == "update" \
                    and isinstance(a.func.value, ast.Name) and a.func.value.id in names:
                splats.extend(a.args)
        carrier, callees = None, {}
        for _, v in pairs:
            calls = [v] if isinstance(v, ast.Call) else [b for b in _bound(own, v.id) if isinstance(b, ast.Call)] \
                if isinstance(v, ast.Name) else []
            set_later = [a.value for a in own if isinstance(a, ast.Assign) and isinstance(v, ast.Name) and any(
                isinstance(t, ast.Attribute) and t.attr == "tools" and isinstance(t.value, ast.Name)
                and t.value.id == v.id for t in a.targets)]  # `config.tools = tools`
            for c in calls:
                kw = next((k.value for k in c.keywords if k.arg == "tools"), None)
                kw = set_later[0] if kw is None and set_later else kw
                if kw is not None:
                    tools, carrier = kw, c
                elif not any(k.arg is None for k in c.keywords):
                    callees.setdefault(ast.unparse(c.func), c)
        opaque = any(isinstance(s, ast.Name) and s.id in params for s in splats)
        out.append(_Request(n, found[0], found[1], listed, tools, carrier, callees, forced, opaque))
    return out


def _filled_tools(func, value) -> bool:
    """True for tools filled from a source: a comprehension or a call, or a tools name the method
    assigns one (`available_tools = [... for tool in result.tools]`)."""
    if isinstance(value, (ast.ListComp, ast.GeneratorExp, ast.Call)):
        return True
    own = own_nodes(func, body_only=True)
    return isinstance(value, ast.Name) and tool_set_named(value.id) and filled_tool_list(own, value.id) and not _written(func, value)


def _written(func, value) -> bool:
    """True for a tool list written in place: a list display with items, or a name the method
    assigns only such lists."""
    if isinstance(value, (ast.List, ast.Tuple)):
        return bool(value.elts) and not any(isinstance(e, ast.Starred) for e in value.elts)
    if isinstance(value, ast.Name):
        bound = _bound(own_nodes(func, body_only=True), value.id)
        return bool(bound) and all(_written(func, b) for b in bound if not isinstance(b, ast.Name))
    return False


def _writes_back(cls, attr: str) -> list[tuple[ast.AST, str, ast.AST]]:
    """The places a method of `cls` other than `__init__` writes the kept conversation
    `self.attr` (`self.attr.set(n)`, `self.attr = n`, `.append` / `.extend` / `+=`), each with the
    local name it writes ("" when not a name) and the method."""
    out = []
    for func in (n for n in cls.body if isinstance(n, _FUNCS) and n.name != "__init__"):
        for n in own_nodes(func, body_only=True):
            value = None
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.args \
                    and isinstance(n.func.value, ast.Attribute) and n.func.value.attr == attr \
                    and isinstance(n.func.value.value, ast.Name) and n.func.value.value.id == "self" \
                    and n.func.attr in ("set", "append", "extend", "add", "update", "save", "put"):
                value = n.args[0]
            elif isinstance(n, (ast.Assign, ast.AugAssign)) and any(
                    isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name)
                    and t.value.id == "self" for t in (n.targets if isinstance(n, ast.Assign) else [n.target])):
                value = n.value
            if value is not None:
                out.append((n, value.id if isinstance(value, ast.Name) else "", func))
    return out


def _system_into(func, listed: str, before: ast.AST | None = None) -> ast.AST | None:
    """The statement of `func` that puts a system message into the list `listed` (before the node
    `before` in source order, when given), or None."""
    for n in sorted(own_nodes(func, body_only=True), key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0))):
        grown = _grows(n)
        if grown is None or grown[0] != listed or grown[2] == "extend":
            continue
        if before is not None and (n.lineno, n.col_offset) >= (before.lineno, before.col_offset):
            return None
        if _system_message(grown[1]):
            return n
    return None


def find_stored_requests(module) -> list[StoredRequest]:
    """The requests of a class's method that send the conversation the instance keeps with other
    tools than another method sends it with (see the module docstring), one per request, in
    source order."""
    out: list[StoredRequest] = []
    if not _TEXT.search(module.source) or "self." not in module.source:
        return out
    for cls in (n for n in statements(module.tree) if isinstance(n, ast.ClassDef)):
        methods = [n for n in cls.body if isinstance(n, _FUNCS)]
        if len(methods) < 2:
            continue
        found = []
        for func in methods:
            a = func.args
            params = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)} | \
                {p.arg for p in (a.vararg, a.kwarg) if p is not None}
            if holds_any(module, func, _CONVERSATION_KEYS):  # (a request's conversation key: the cheap test)
                found.extend((func, r) for r in _requests(func, params))
        if len(found) < 2:
            continue
        with_tools = [(f, r) for f, r in found if r.tools is not None and _filled_tools(f, r.tools)]
        for func, req in found:
            other = next(((f, r) for f, r in with_tools if f is not func and r.stored == req.stored), None)
            if other is None or req.opaque:
                continue
            writes = _writes_back(cls, req.stored)
            if not writes:
                continue  # not a conversation the instance keeps: nothing is written back to it
            if req.tools is None:
                written, at = False, req.node
                if other[1].carrier is not None:
                    at = req.callees.get(ast.unparse(other[1].carrier.func), req.node)
            elif _written(func, req.tools):
                written, at = True, req.tools
            else:
                continue
            system_first = None
            if req.listed:
                holds = any(name and _system_into(f, name) is not None for _, name, f in writes)
                system_first = _system_into(func, req.listed, req.read) if holds else None
            out.append(StoredRequest(at, req.node, func.name, req.stored, req.read, other[1].tools, other[0].name,
                                     written, req.forced, system_first))
    return sorted(out, key=lambda f: (f.node.lineno, f.node.col_offset))
