"""Tool sources handed off by a tool call: facts for PRM204 (the rule judges them).

A class that takes its requests' tools from an object it holds (`await self.agent.list_tools()`:
the attribute is the tool source by its use, whatever its name) and replaces that object in a
method that runs after a tool call (`post_tool_call(self, tool_call_id, request, result)`:
`await self.set_agent(content.agent)`, then `self.agent = agent`), directly or through `self.`
calls, sends the next request of the same conversation with the new object's tools: a handoff
(a swarm passing the conversation to another agent). When the method also sets an attribute
named for the system prompt (`self.instruction = agent.instruction`), that changes too.

A hook is a method named for what follows a tool call: a tools word with a word of the call's
end or result and a word that says after it (`post_tool_call`, `after_tool_call`,
`on_tool_result`, `on_tool_end`, `handle_tool_result`). `__init__` (the first object) and an empty
value (`self.agent = None`: the conversation ends) are no handoff. Names are the evidence of the
hook (docs/policies.md, Policy 7): the rule reports it as info.
"""
from __future__ import annotations

import ast

from .prompt_names import prompt_named, words
from .module import Module, statements
from .module import self_attr
from .toolsets import ToolChange, no_tool_set, own_nodes

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_AFTER = {"post", "after", "on", "handle"}
_END = {"call", "calls", "result", "results", "end", "output", "response"}
_LISTS = ("list_tools", "get_tools")


def _hook(name: str) -> bool:
    """True for a method named for what follows a tool call (`post_tool_call`, `on_tool_end`)."""
    w = words(name)
    return bool("tool" in w or "tools" in w) and bool(w & _AFTER) and bool(w & _END)


def _sources(nodes) -> dict[str, ast.AST]:
    """attribute -> the first call that lists its tools (`self.agent.list_tools()`)."""
    out: dict[str, ast.AST] = {}
    for n in nodes:
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _LISTS:
            attr = self_attr(n.func.value)
            if attr is not None:
                out.setdefault(attr, n)
    return out


def _empty(value) -> bool:
    """True for `None` (no system prompt: the conversation ends)."""
    return isinstance(value, ast.Constant) and value.value is None


def _class_handoffs(cls: ast.ClassDef, memo: dict) -> list[ToolChange]:
    methods = {n.name: n for n in cls.body if isinstance(n, _FUNCS)}
    own = {name: own_nodes(func, memo) for name, func in methods.items()}
    sources: dict[str, ast.AST] = {}
    for nodes in own.values():
        for attr, node in _sources(nodes).items():
            sources.setdefault(attr, node)
    hooks = [name for name in methods if _hook(name)]
    if not sources or not hooks:
        return []
    out = []
    for hook in hooks:
        seen, todo = set(), [hook]
        while todo:
            name = todo.pop()
            if name in seen or name.startswith("__"):
                continue
            seen.add(name)
            nodes = own[name]
            todo.extend(n.func.attr for n in nodes if isinstance(n, ast.Call) and self_attr(n.func) in methods)
            for n in nodes:
                if not (isinstance(n, ast.Assign) and not no_tool_set(n.value)):
                    continue
                attr = next((self_attr(t) for t in n.targets if self_attr(t) in sources), None)
                if attr is None:
                    continue
                prompt = next((m for m in nodes if isinstance(m, ast.Assign) and not _empty(m.value) and any(
                    (a := self_attr(t)) is not None and prompt_named(a) for t in m.targets)), None)
                out.append(ToolChange(n, f"self.{attr}", hook, "handoff", before=sources[attr],
                                      after=prompt))
                break
            if out:
                return out
    return out


def find_tool_handoffs(module: Module, memo: dict | None = None) -> list[ToolChange]:
    """Tool sources a class replaces after a tool call (see the module docstring): one change per
    class, `before` the call that lists the source's tools, `after` the system prompt set with it
    (or None), `function` the hook that runs the method that replaces it."""
    if "tool" not in module.source or not any(w in module.source for w in _LISTS):
        return []
    memo = {} if memo is None else memo
    return [change for cls in statements(module.tree) if isinstance(cls, ast.ClassDef)
            for change in _class_handoffs(cls, memo)]
