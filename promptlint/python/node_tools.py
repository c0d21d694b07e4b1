"""The nodes of one graph state that send its conversation with different tools: facts for PRM204.

    class _Extract:
        def __init__(self, llm, tools):
            self.bound = llm.bind_tools([schema(t) for t in tools])
        def invoke(self, state: ExtractionState, config):
            return {"messages": [self.bound.invoke(state.messages, config)]}

    class _Patch:                                                   # a retry node of the same graph
        def __init__(self, llm):
            self.bound = llm.bind_tools([PatchFunctionErrors], tool_choice="any")
        def invoke(self, state: ExtendedExtractState, config):     # a subclass of ExtractionState
            return self.bound.invoke(state.messages, config)

A node is a function (or a method of a class) with a parameter annotated by a class name, the
state, that sends the state's conversation (`state.messages`, `state["messages"]`, the first
argument of `invoke` / `ainvoke` / `stream` / `astream`) through a runnable bound to tools: by
`bind_tools(T)` in the same function, or kept in an attribute that the class's `__init__` binds
(`self.bound = llm.bind_tools(T)`). Nodes whose states are one class of the module or classes
related by inheritance share one conversation; when their tool lists differ (by their source
text), a conversation that passes from one node to the other sends its next request with other
tool definitions. Which node follows which is decided by the graph's edges, not read here.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from .module import statements
from .walk import own_nodes

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SENDS = {"invoke", "ainvoke", "stream", "astream"}
_CONVERSATION_KEYS = ("messages", "history", "chat_history")


@dataclass
class NodeTools:
    """`node`: the tools of a later node (its `bind_tools` call, reported); `node_name`: its
    function or class; `other`, `other_name`: those of the first node of the same state that
    sends other tools; `state`: the state class of the later node."""

    node: ast.Call
    node_name: str
    other: ast.Call
    other_name: str
    state: str


def _root(name: str, bases: dict[str, list[str]]) -> str:
    """The outermost class of the module that `name` derives from (itself when none)."""
    seen = set()
    while name not in seen:
        seen.add(name)
        parent = next((b for b in bases.get(name, ()) if b in bases), None)
        if parent is None:
            return name
        name = parent
    return name


def _binds(func) -> dict[str, ast.Call]:
    """name or `self.attr` -> the `bind_tools(...)` call assigned to it in `func`."""
    out = {}
    for n in own_nodes(func):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.value, ast.Call) \
                and isinstance(n.value.func, ast.Attribute) and n.value.func.attr == "bind_tools" and n.value.args:
            out[ast.unparse(n.targets[0])] = n.value
    return out


def _state_params(func, classes) -> dict[str, str]:
    args = func.args
    return {a.arg: a.annotation.id for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]
            if isinstance(a.annotation, ast.Name) and a.annotation.id in classes}


def _sent_state(call, params) -> str | None:
    """The parameter whose conversation the call sends, or None."""
    if not call.args:
        return None
    sent = call.args[0]
    if isinstance(sent, ast.Attribute) and sent.attr in _CONVERSATION_KEYS and isinstance(sent.value, ast.Name):
        return sent.value.id if sent.value.id in params else None
    if isinstance(sent, ast.Subscript) and isinstance(sent.slice, ast.Constant) \
            and sent.slice.value in _CONVERSATION_KEYS and isinstance(sent.value, ast.Name):
        return sent.value.id if sent.value.id in params else None
    return None


def find_node_tools(module) -> list[NodeTools]:
    """Each node whose tools differ from those of the first node of the same state (see the
    module docstring), by line."""
    src = module.source
    if "bind_tools(" not in src or "messages" not in src:
        return []
    classes = {n.name: [b.id for b in n.bases if isinstance(b, ast.Name)]
               for n in statements(module.tree) if isinstance(n, ast.ClassDef)}
    nodes = []  # (root state, bind call, name)
    for owner in statements(module.tree):
        if isinstance(owner, ast.ClassDef):
            init = next((f for f in owner.body if isinstance(f, _FUNCS) and f.name == "__init__"), None)
            kept = _binds(init) if init is not None else {}
            funcs = [(f, kept, owner.name) for f in owner.body if isinstance(f, _FUNCS) and f.name != "__init__"]
        elif isinstance(owner, _FUNCS):
            funcs = [(owner, {}, owner.name)]
        else:
            continue
        for func, kept, name in funcs:
            params = _state_params(func, classes)
            if not params:
                continue
            local = _binds(func)
            for call in (n for n in own_nodes(func) if isinstance(n, ast.Call)):
                if not (isinstance(call.func, ast.Attribute) and call.func.attr in _SENDS):
                    continue
                param = _sent_state(call, params)
                if param is None:
                    continue
                receiver = ast.unparse(call.func.value)
                bound = local.get(receiver) or kept.get(receiver)
                if bound is None and isinstance(call.func.value, ast.Call) and isinstance(
                        call.func.value.func, ast.Attribute) and call.func.value.func.attr == "bind_tools":
                    bound = call.func.value
                if bound is not None and bound.args:
                    nodes.append((_root(params[param], classes), params[param], bound, name))
                    break
    out, seen = [], set()
    nodes.sort(key=lambda n: (n[2].lineno, n[2].col_offset))
    for i, (root, state, bound, name) in enumerate(nodes):
        tools = ast.unparse(bound.args[0])
        first = next((n for n in nodes[:i] if n[0] == root and n[3] != name
                      and ast.unparse(n[2].args[0]) != tools), None)
        if first is not None and id(bound) not in seen:
            seen.add(id(bound))
            out.append(NodeTools(bound, name, first[2], first[3], state))
    return out
