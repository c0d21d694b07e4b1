"""Tool sets a class changes while a conversation runs: facts for PRM204 (the rule judges them;
the shapes of one function are in toolsets.py, whose module docstring describes them all).

- **on each step**: an attribute that a call of the class passes as a request's tools or response
  schema (`output_format=self.AgentOutput`, `{"tools": self.tools}`: known by its use, whatever
  its name) is replaced or grown by a method (not `__init__`) that a loop of the class reaches
  through `self.` calls, together with a method that passes it.
- **a temporary tool** (`temporary`): a tool added to another object's tool set by one method and
  removed by another (`registry.register_dynamic_tool(tool)`, `del registry.dynamic_tools[name]`).
"""
from __future__ import annotations

import ast
from bisect import bisect_left

from .module import Module, callee_name, self_attr, statements
from .toolsets import (REMOVERS, TOOL_SET_GROWS, ToolChange, mentions, mentions_in, no_tool_set, own_nodes,
                       tool_set_changes, tool_set_removals)
from .walk import subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)

# ------------------------------------------------------------------------ one class, on each step
_SCHEMA_ARGS = {"tools", "functions", "response_format", "output_format", "text_format", "response_model",
                "output_type", "output_schema"}

_SCHEMA_WORDS = tuple(sorted(_SCHEMA_ARGS))


def _uses(nodes) -> dict[str, ast.AST]:
    """attribute -> the first place it is passed as a request's tools or response schema."""
    out: dict[str, ast.AST] = {}
    for node in nodes:
        pairs = []
        if isinstance(node, ast.Call):
            pairs = [(k.arg, k.value) for k in node.keywords]
        elif isinstance(node, ast.Dict):
            pairs = [(k.value, v) for k, v in zip(node.keys, node.values)
                     if isinstance(k, ast.Constant) and isinstance(k.value, str)]
        for key, value in pairs:
            attr = self_attr(value)
            if key in _SCHEMA_ARGS and attr is not None:
                out.setdefault(attr, node)
    return out


def _self_calls(nodes, methods) -> set[str]:
    return {n.func.attr for n in nodes if isinstance(n, ast.Call) and self_attr(n.func) in methods}


def _class_changes(cls: ast.ClassDef, memo: dict, lines: list[str]) -> list[ToolChange]:
    """The `each-step` changes of a class (`lines`: its module's source lines)."""
    methods = {n.name: n for n in cls.body if isinstance(n, _FUNCS)}
    held = {}
    for name, func in methods.items():
        # (a use is a keyword or a dict key of `_SCHEMA_ARGS`, written in the method's text: a
        # method whose text holds none of them has none, and is not walked for one)
        if mentions_in(lines, func, _SCHEMA_WORDS):
            for attr, node in _uses(own_nodes(func, memo)).items():
                held.setdefault(attr, (name, node))
    if not held:
        return []
    own = {name: own_nodes(func, memo) for name, func in methods.items()}
    changed: dict[str, tuple[ast.AST, str]] = {}
    for name, nodes in own.items():
        if name.startswith("__"):
            continue
        for node in nodes:
            target = None
            if isinstance(node, ast.Assign) and not no_tool_set(node.value):
                target = next((self_attr(t) for t in node.targets if self_attr(t) in held), None)
            elif isinstance(node, ast.AugAssign):
                target = self_attr(node.target)
            elif isinstance(node, ast.Call) and callee_name(node) in TOOL_SET_GROWS and isinstance(node.func, ast.Attribute):
                target = self_attr(node.func.value)
            if target in held:
                changed[name] = (node, target)
                break
    if not changed:
        return []
    calls = {name: _self_calls(nodes, methods) for name, nodes in own.items()}
    reach: dict[str, set[str]] = {}

    def reached(start: set[str]) -> set[str]:
        seen, stack = set(), list(start)
        while stack:
            name = stack.pop()
            if name in seen:
                continue
            seen.add(name)
            stack.extend(calls.get(name, ()))
        return seen

    out = []
    for name, nodes in own.items():
        for loop in (n for n in nodes if isinstance(n, _LOOPS)):
            body = [n for n in subtree(loop) if not isinstance(n, _FUNCS)]
            key = id(loop)
            if key not in reach:
                reach[key] = reached(_self_calls(body, methods))
            hit = reach[key]
            for changer, (node, attr) in list(changed.items()):
                sender = held[attr][0]
                if changer in hit and (sender in hit or any(self_attr(n) == attr for n in _uses(body))):
                    out.append(ToolChange(node, f"self.{attr}", changer, "each-step", loop, held[attr][1]))
                    del changed[changer]
    return out


def find_class_tool_changes(module: Module, memo: dict | None = None) -> list[ToolChange]:
    """Changes of a request's tools or response schema kept on `self`, made on each step of a loop
    that also sends it (see the module docstring), and tools a class adds to another object's tool
    set and removes again (`temporary`). `memo` as `find_tool_changes` takes it."""
    out = []
    memo = {} if memo is None else memo
    words = ("tool", *_SCHEMA_ARGS)
    if not mentions(module.source, words):
        return out
    lines = module.source.splitlines()
    removals = None
    for cls in statements(module.tree):
        if isinstance(cls, ast.ClassDef) and mentions_in(lines, cls, words):
            out.extend(_class_changes(cls, memo, lines))
            if removals is None:
                removals = sorted(n.lineno for n in subtree(module.tree) if _removal_shaped(n))
            at = bisect_left(removals, cls.lineno)
            if at == len(removals) or removals[at] > (cls.end_lineno or cls.lineno):
                continue  # (no `del` or `.pop(...)`-like call in the class: `_temporary` finds no removal)
            found = _temporary(cls, module, memo)
            if found is not None:
                out.append(found)
    return out


def _removal_shaped(node) -> bool:
    """True for a node of a shape `toolsets.tool_set_removals` reads: a `del` statement, or a call
    `x.pop(...)` / `x.remove(...)` / `x.discard(...)` given an argument."""
    return type(node) is ast.Delete or type(node) is ast.Call and isinstance(node.func, ast.Attribute) \
        and bool(node.args) and node.func.attr in REMOVERS


def _owner(target: str) -> str | None:
    """The object whose tool set `target` is (`registry` of `registry.dynamic_tools`,
    `self.agent` of `self.agent.tools`), or None for the class's own (`self._tools`) or a global."""
    owner = target.rpartition(".")[0]
    return owner if owner and owner != "self" else None


def _temporary(cls: ast.ClassDef, module: Module, memo: dict) -> ToolChange | None:
    """A tool that a class adds to another object's tool set in one method and removes in another
    (`registry.register_dynamic_tool(tool)` for one invocation, `del registry.dynamic_tools[name]`
    after it): the requests sent while it is registered have other tool definitions than those
    before and after, so a conversation that mixes both loses its cached prefix at each switch. A
    registry's own methods (`self._tools`) are its API, not a temporary tool: not reported; nor is
    a method that adds to the tool set it removes from (a replacement: `tools[new] = adapted; del
    tools[old]`)."""
    methods = [n for n in cls.body if isinstance(n, _FUNCS) and not n.name.startswith("__")]
    added: dict[str, set[str]] = {}  # owner -> the methods that add to its tool set
    removed: list[tuple[ast.AST, str, str]] = []
    for func in methods:
        for node, target in tool_set_removals(func, own_nodes(func, memo), module):
            owner = _owner(target)
            if owner is not None:
                removed.append((node, target, func.name))
    if not removed:  # (the additions matter only to a removal: most classes remove none)
        return None
    for func in methods:
        nodes = own_nodes(func, memo)
        for node, target in tool_set_changes(func, nodes, module, memo):
            if target.endswith("(...)"):  # a loading call: its receiver's tool set grows
                called = node.func.value if isinstance(node.func, ast.Attribute) else None
                owner = module.code(called) if called is not None else None
                owner = None if owner == "self" else owner
            else:
                owner = _owner(target)
            if owner is not None:
                added.setdefault(owner, set()).add(func.name)
    for node, target, name in removed:
        # a method that adds to the same tool set and removes from it replaces a tool (an adapted
        # tool under a new name), the same on every call: no temporary tool
        adders = added.get(_owner(target), set())
        if adders and name not in adders:
            return ToolChange(node, target, name, "temporary")
    return None
