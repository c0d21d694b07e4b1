"""Tool sets changed while a conversation runs: facts for PRM204 (the rule judges them).

A request's tool definitions come first in the cached prefix (before the system prompt and the
history). A tool set held beyond one call (an attribute, `self._discovered_tools`,
`agent.tools_list_dictionary`, or a module-level list) that code grows or replaces between two
requests of one conversation changes that first block, and the whole prefix with it. Two shapes
say from the code that the change happens between requests:

- **a tool result**: the change is made by a function that returns text (`return f"Loaded {n}
  tools"`): the shape of a tool the model calls, whose result is shown to it; the next request of
  the same conversation goes out with the changed set (tool search, loading an MCP server).
- **between requests**: in one function, a request is sent before the change and another after it
  (a planning phase, then the execution phase with more tools), or the change and a request are in
  one loop (a tool set updated on every step).

A change is a call of `append`, `extend`, `insert`, `update` or `setdefault` on the set, an item
set (`tools[name] = tool`), an assignment (not of an empty value: `self.tools = []` makes a set)
or `+=` to an attribute or a global named for tools, or a call named for loading tools (`load_dynamic_tool_specs(...)`, `register_tools(...)`). A request is
a call named for a model call (`call_llm`, `chat`, `completion`; not `_refresh_llm`) or `invoke` / `create` / `generate`
on a receiver named for a model or client (`self.llm.invoke`, `client.chat.completions.create`).
Names are the evidence (docs/policies.md, Policy 7): the rule reports these as info, once per
function (its first change).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from .candidates import words
from .module import Module, callee_name

_TOOL_WORDS = {"tool", "tools"}
_GROW = {"append", "extend", "insert", "update", "setdefault"}
_LOAD_VERBS = {"load", "add", "extend", "register", "append", "insert"}
_SEND_WORDS = {"completion", "acompletion", "chat", "achat"}
_SEND_VERBS = {"call", "run", "ask", "query", "invoke", "send", "prompt"}  # `call_llm`, not `refresh_llm`
_SEND_METHODS = {"invoke", "ainvoke", "create", "acreate", "generate", "agenerate", "complete", "acomplete"}
_MODEL_WORDS = {"llm", "client", "model", "completions", "messages", "chat"}
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


@dataclass
class ToolChange:
    """A change of a tool set held beyond a call: `node` (the statement or call that changes it),
    `target` (its source text: `self._discovered_tools`, or the loading call's name), `function`
    (the function it is in), `shape` ("tool-result" or "between-requests"), `before` / `after`
    (the requests around it, for "between-requests"; `after` is None when they share a loop)."""

    node: ast.AST
    target: str
    function: str
    shape: str
    before: ast.Call | None = None
    after: ast.Call | None = None


def _tools_named(name: str) -> bool:
    return bool(words(name) & _TOOL_WORDS)


def _own_nodes(func) -> list[ast.AST]:
    """The nodes of a function's body, not those of functions or classes defined in it."""
    out, stack = [], list(reversed(func.body))
    while stack:
        node = stack.pop()
        out.append(node)
        if isinstance(node, (*_FUNCS, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))
    return out


def _held(expr: ast.AST, module: Module, local: set[str], declared: set[str]) -> str | None:
    """The source text of `expr` when it is a tool set held beyond the call: an attribute named
    for tools, or a name named for tools that is global (declared so, or set at module level and
    not a local of the function)."""
    if isinstance(expr, ast.Subscript):
        expr = expr.value
    if isinstance(expr, ast.Attribute) and _tools_named(expr.attr):
        return module.code(expr)
    if isinstance(expr, ast.Name) and _tools_named(expr.id) and (
            expr.id in declared or (expr.id in module.assigns and expr.id not in local)):
        return expr.id
    return None


def _locals(func, nodes) -> tuple[set[str], set[str]]:
    """(names bound in the function, names it declares global or nonlocal)."""
    args = func.args
    local = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    local |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    declared: set[str] = set()
    for node in nodes:
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            local.add(node.id)
    return local - declared, declared


def _changes(func, nodes, module: Module) -> list[tuple[ast.AST, str]]:
    local, declared = _locals(func, nodes)
    out = []
    for node in nodes:
        if isinstance(node, ast.Call):
            name = callee_name(node)
            if isinstance(node.func, ast.Attribute) and name in _GROW:
                held = _held(node.func.value, module, local, declared)
                if held is not None:
                    out.append((node, held))
            elif name and _tools_named(name) and (name.split("_")[0].lower() in _LOAD_VERBS):
                out.append((node, f"{name}(...)"))  # a call: the rule says it calls it
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            if isinstance(node, ast.Assign) and _empty(node.value):
                continue  # `self.tools = []`: a set made (or emptied), not one that grows
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                held = _held(target, module, local, declared)
                if held is not None:
                    out.append((node, held))
                    break
    return out


def _empty(value: ast.AST) -> bool:
    """True for `[]`, `{}`, `None`, `list()`, `dict()` and the like."""
    if isinstance(value, (ast.List, ast.Dict, ast.Set, ast.Tuple)):
        return not getattr(value, "elts", None) and not getattr(value, "keys", None)
    if isinstance(value, ast.Constant):
        return value.value is None
    return isinstance(value, ast.Call) and not value.args and not value.keywords and \
        isinstance(value.func, ast.Name) and value.func.id in ("list", "dict", "set", "tuple", "OrderedDict")


def _sends(nodes) -> list[ast.Call]:
    out = []
    for node in nodes:
        if not isinstance(node, ast.Call):
            continue
        name = callee_name(node)
        named = [w.lower() for w in name.split("_") if w]
        if (words(name) & _SEND_WORDS or ("llm" in named and named[0] in _SEND_VERBS)) and not _tools_named(name):
            out.append(node)
        elif name in _SEND_METHODS and isinstance(node.func, ast.Attribute) and \
                words(ast.unparse(node.func.value)) & _MODEL_WORDS:
            out.append(node)
    return out


def _returns_text(nodes) -> bool:
    """True when the function returns text it writes (an f-string or a string literal)."""
    for node in nodes:
        if isinstance(node, ast.Return) and isinstance(node.value, ast.JoinedStr):
            return True
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Constant) and \
                isinstance(node.value.value, str) and node.value.value.strip():
            return True
    return False


def _loops(func, nodes) -> list[set[int]]:
    """The node ids of each loop of the function (its own nodes only)."""
    out = []
    for node in nodes:
        if isinstance(node, _LOOPS):
            out.append({id(n) for n in _own_nodes(node)} | {id(n) for n in ast.walk(node)
                                                              if not isinstance(n, _FUNCS)})
    return out


def _key(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.col_offset


def find_tool_changes(module: Module) -> list[ToolChange]:
    """Every change of a held tool set made by a tool result or between two requests."""
    out = []
    for func in ast.walk(module.tree):
        if not isinstance(func, _FUNCS) or func.name.startswith("__"):
            continue
        nodes = _own_nodes(func)
        changes = _changes(func, nodes, module)
        if not changes:
            continue
        if _returns_text(nodes):
            node, target = changes[0]  # one root cause per function: its first change
            out.append(ToolChange(node, target, func.name, "tool-result"))
            continue
        sends = _sends(nodes)
        if not sends:
            continue
        loops = _loops(func, nodes)
        for node, target in changes:
            before = [s for s in sends if _key(s) < _key(node)]
            after = [s for s in sends if _key(s) > _key(node)]
            shared = next((s for loop in loops if id(node) in loop for s in sends if id(s) in loop), None)
            if before and after:
                out.append(ToolChange(node, target, func.name, "between-requests", before[-1], after[0]))
            elif shared is not None:
                out.append(ToolChange(node, target, func.name, "between-requests", shared, None))
            else:
                continue
            break  # one root cause per function: its first change between requests
    return out
