"""Tools made of a conversation's state that the code updates together with the conversation:
facts for PRM204.

    def call_model(state, config):
        selected = [registry[i] for i in state["selected_tool_ids"]]        # the tools: state
        bound = llm.bind_tools([retrieve_tools, *selected])
        return {"messages": [bound.invoke(state["messages"])]}              # the conversation: state

    def select_tools(tool_calls, config):                                   # after a tool call
        ...
        return {"messages": tool_messages, "selected_tool_ids": ids}        # both written at once

A function sends the conversation it reads from a parameter (`state["messages"]`,
`state.messages`: a graph node's state, an agent's run state) and makes the request's tools
(`tools=` / `functions=` of the request, `bind_tools(X)` of the runnable it invokes) of another
entry of the same parameter (`state["selected_tool_ids"]`, `state.get("tools")`, `state.tools`),
directly or through the locals the function computes from it. A statement of the module writes
that entry together with the conversation: a dict display with both keys (a node's update,
`return {"messages": [...], "selected_tool_ids": ids}`, `Command(update={...})`), or one function
that changes both attributes of one object (`state.tools.append(t)` and
`state.messages.append(m)`). The entry then changes while the conversation runs, and the next
request of that conversation is sent with other tool definitions.

The writing function must run after a model's request, which the code says: it writes a tool
result (`ToolMessage(...)`, `{"role": "tool", ...}`), reads the model's tool calls (a name
`tool_calls`), or is the sending function itself (the entry written from its reply). Then the
change falls between two requests of one conversation; without it the entry may be written once,
when the conversation starts (a setup node that loads the tools with the system message): no fact.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from .module import statements
from .walk import own_nodes, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_TOOL_KEYWORDS = ("tools", "functions")
_CONVERSATION_KEYS = ("messages", "history", "chat_history", "conversation")
_SENDS = {"invoke", "ainvoke", "stream", "astream", "create", "acreate", "generate", "agenerate",
          "chat", "achat", "complete", "acomplete"}
_CHANGES = {"append", "extend", "insert", "update", "add", "add_messages", "pop", "remove", "clear"}


@dataclass
class StateTools:
    """`node`: the tools of the request (reported); `send`: the request that sends the
    conversation; `read`: where the tools read the state's entry `key`; `conversation`: the
    state's conversation entry; `writer`: the statement or display that writes both; `writer_function`:
    the function it is in; `function`: the sending function's name."""

    node: ast.AST
    send: ast.Call
    read: ast.AST
    key: str
    conversation: str
    writer: ast.AST
    writer_function: str
    function: str


def _entry(node, params) -> tuple[str, str] | None:
    """(parameter, key) for a read of a parameter's entry: `p["k"]`, `p.get("k")`, `p.k`."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in params \
            and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return node.value.id, node.slice.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
            and isinstance(node.func.value, ast.Name) and node.func.value.id in params and node.args \
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        return node.func.value.id, node.args[0].value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in params:
        return node.value.id, node.attr
    return None


def _sent_conversation(call: ast.Call, params) -> tuple[str, str] | None:
    """(parameter, key) of the conversation a request sends, when it is a parameter's entry."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr in _SENDS):
        return None
    sent = next((k.value for k in call.keywords if k.arg in ("messages", "input")), None)
    sent = sent if sent is not None else (call.args[0] if call.args else None)
    found = _entry(sent, params) if sent is not None else None
    return found if found is not None and found[1] in _CONVERSATION_KEYS else None


def _tools_value(call: ast.Call):
    value = next((k.value for k in call.keywords if k.arg in _TOOL_KEYWORDS), None)
    if value is None and isinstance(call.func, ast.Attribute) and call.func.attr == "bind_tools" and call.args:
        value = call.args[0]
    return value


def _reads(value, param: str, binds: dict, depth: int = 0) -> list[tuple[ast.AST, str]]:
    """(the read, its key) of each entry of `param` the value is made of, through the locals the
    function assigns (three steps deep)."""
    out = []
    for n in subtree(value):
        entry = _entry(n, {param})
        if entry is not None:
            out.append((n, entry[1]))
        elif isinstance(n, ast.Name) and depth < 3:
            for bound in binds.get(n.id, ()):
                out.extend(_reads(bound, param, binds, depth + 1))
    return out


def _bindings(func) -> dict[str, list]:
    out: dict[str, list] = {}
    for n in own_nodes(func):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            out.setdefault(n.targets[0].id, []).append(n.value)
    return out


def _writers(module) -> list[tuple[ast.AST, str, frozenset, ast.AST | None]]:
    """(the writing node, a conversation key, the other keys written with it, the function it is
    in) for each dict display with a conversation key and each function that changes a
    conversation attribute and other attributes of one object."""
    out = []
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        own = own_nodes(func)
        for n in own:
            if isinstance(n, ast.Dict):
                keys = {k.value for k in n.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
                for conv in keys & set(_CONVERSATION_KEYS):
                    out.append((n, conv, frozenset(keys - {conv}), func))
        written: dict[str, dict[str, ast.AST]] = {}  # object -> attribute -> first write
        for n in own:
            target = None
            if isinstance(n, (ast.Assign, ast.AugAssign)):
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                target = next((t for t in targets if isinstance(t, ast.Attribute)), None)
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _CHANGES \
                    and isinstance(n.func.value, ast.Attribute):
                target = n.func.value
            if target is not None and isinstance(target.value, ast.Name):
                written.setdefault(target.value.id, {}).setdefault(target.attr, n)
        for attrs in written.values():
            for conv in set(attrs) & set(_CONVERSATION_KEYS):
                for key, node in attrs.items():
                    if key != conv:
                        out.append((node, conv, frozenset({key}), func))
    return out


def _after_call(func) -> bool:
    """True when `func` runs after a model's request (see the module docstring)."""
    for n in own_nodes(func):
        if isinstance(n, ast.Call):
            name = n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id if isinstance(n.func, ast.Name) else ""
            if name.endswith("ToolMessage"):
                return True
        elif isinstance(n, ast.Dict) and any(
                isinstance(k, ast.Constant) and k.value == "role" and isinstance(v, ast.Constant) and v.value == "tool"
                for k, v in zip(n.keys, n.values)):
            return True
        elif isinstance(n, (ast.Name, ast.arg)) and (getattr(n, "id", None) or getattr(n, "arg", None)) == "tool_calls":
            return True
        elif isinstance(n, ast.Attribute) and n.attr == "tool_calls":
            return True
    return any(a.arg == "tool_calls" for a in [*func.args.args, *func.args.kwonlyargs])


def find_state_tools(module) -> list[StateTools]:
    """Each request whose tools are made of an entry of the conversation's state that the module
    writes together with the conversation (see the module docstring), one per request, by line."""
    src = module.source
    if "tools" not in src or not any(k in src for k in _CONVERSATION_KEYS):
        return []  # (the cheap test on the module's text before any walk)
    if "bind_tools(" not in src and "tools=" not in src and "functions=" not in src:
        return []
    writers = None
    out = []
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        args = func.args
        params = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]} - {"self", "cls"}
        if not params:
            continue
        own = own_nodes(func)
        calls = [n for n in own if isinstance(n, ast.Call)]
        sends = [(c, conv) for c in calls if (conv := _sent_conversation(c, params)) is not None]
        if not sends:
            continue
        binds = None
        for site in sorted((c for c in calls if _tools_value(c) is not None), key=lambda c: (c.lineno, c.col_offset)):
            value = _tools_value(site)
            for send, (param, conv) in sends:
                if site is not send and not (isinstance(site.func, ast.Attribute) and site.func.attr == "bind_tools"):
                    continue  # (a request's own tools, or a runnable bound in the function that sends)
                binds = binds if binds is not None else _bindings(func)
                reads = [(r, k) for r, k in _reads(value, param, binds) if k not in _CONVERSATION_KEYS]
                if not reads:
                    continue
                writers = writers if writers is not None else _writers(module)
                found = _match(reads, conv, writers, func)
                if found is not None:
                    read, key, (writer, _, _, wfunc) = found
                    out.append(StateTools(site, send, read, key, conv, writer, wfunc.name, func.name))
                    break
            else:
                continue
            break  # one per function
    return sorted(out, key=lambda s: (s.node.lineno, s.node.col_offset))


def _match(reads, conv: str, writers, func):
    """(read, key, writer) for the first read whose key a writer that runs after a model's
    request (`func` itself, or see `_after_call`) writes with `conv`, or None."""
    for read, key in reads:
        for w in writers:
            if w[1] == conv and key in w[2] and (w[3] is func or _after_call(w[3])):
                return read, key, w
    return None
