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
- **on each step** (one class, class_toolsets.py): an attribute that a call of the class passes
  as a request's tools or response schema (`output_format=self.AgentOutput`, `{"tools": self.tools}`: known by its use,
  whatever its name) is replaced or grown by a method (not `__init__`) that a loop of the class
  reaches through `self.` calls, together with a method that passes it (a step filtering the
  actions by the page, a last step that keeps only the `done` action).
- **a refresh** (`reinserted`): one function removes entries of the set (`del tool_map[old]`,
  `tools.pop(name)`) and inserts tools after it: they go to the end, so the order changes even
  when the tools are the same (a server's tools reloaded on a list-changed notification).
- **a temporary tool** (`temporary`, one class, class_toolsets.py): a tool added to another object's tool set by one
  method and removed by another (`registry.register_dynamic_tool(tool)`, `del
  registry.dynamic_tools[name]`): a tool for some invocations only. A class's own set
  (`self._tools`: a registry's API) is not one.

A change is a call of `append`, `extend`, `insert`, `update` or `setdefault` on the set, an item
set (`tools[name] = tool`), an assignment (not of an empty value: `self.tools = []` makes a set)
or `+=` to an attribute or a global named for tools, or a call named for loading or replacing tools (`load_dynamic_tool_specs(...)`, `register_tools(...)`, `update_tools(...)`, `set_tools(...)`). A request is
a call named for a model call (`call_llm`, `chat`, `completion`; not `_refresh_llm`) or `invoke` / `create` / `generate`
/ `stream` / `astream` on a receiver named for a model, a client or an agent (`self.llm.invoke`,
`client.chat.completions.create`, `self._agent_executor.astream(inputs)`).
Names are the evidence (docs/policies.md, Policy 7): the rule reports these as info, once per
function (its first change).
"""
from __future__ import annotations

import ast
import re
from functools import lru_cache
from dataclasses import dataclass

from .prompt_names import words
from .module import Module, callee_name, statements
from .walk import subtree

_TOOL_WORDS = {"tool", "tools"}
_CONTAINER_WORDS = {"list", "lists", "dict", "dictionary", "map", "registry", "spec", "specs", "schema", "schemas",
                    "set", "cache", "definitions", "defs", "catalog", "by", "name"}
_FLAG_WORDS = {"use", "has", "have", "is", "enable", "enabled", "disable", "allow", "should", "can", "with", "no",
               "num", "n", "max", "min", "count"}
#: Calls that grow a tool set held beyond one call (also read by class_toolsets.py).
TOOL_SET_GROWS = {"append", "extend", "insert", "update", "setdefault"}
_LOAD_VERBS = {"load", "add", "extend", "register", "append", "insert"}
#: Verbs that replace a whole tool set: only with the plural (`update_tools`, `set_tools`; not
#: `set_tool(task_id, tool)`, which records the tool chosen for one item).
_REPLACE_VERBS = {"update", "set", "replace"}
_SEND_WORDS = {"completion", "acompletion", "chat", "achat"}
_SEND_VERBS = {"call", "run", "ask", "query", "invoke", "send", "prompt"}  # `call_llm`, not `refresh_llm`
_SEND_METHODS = {"invoke", "ainvoke", "create", "acreate", "generate", "agenerate", "complete", "acomplete", "stream",
                 "astream"}
_MODEL_WORDS = {"llm", "client", "model", "completions", "messages", "chat", "agent", "executor"}
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


@dataclass
class ToolChange:
    """A change of a tool set held beyond a call: `node` (the statement or call that changes it),
    `target` (its source text: `self._discovered_tools`, or the loading call's name), `function`
    (the function it is in), `shape` ("tool-result", "between-requests" or "each-step"),
    `before` / `after` (the requests around it, for "between-requests", `after` None when they
    share a loop; for "each-step", the loop and the place that passes the set as tools or schema)."""

    node: ast.AST
    target: str
    function: str
    shape: str
    before: ast.AST | None = None
    after: ast.AST | None = None


@lru_cache(maxsize=65536)
def tool_set_named(name: str) -> bool:
    """True when the name says a set of tools: a tools word followed only by words of a container
    (`_discovered_tools`, `tools_list_dictionary`, `tool_specs`; not `tool_calls`,
    `tool_rounds_over`, nor a flag such as `use_native_tools`)."""
    parts = [w.lower() for w in re.split(r"[^A-Za-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)) if w]
    at = max((i for i, w in enumerate(parts) if w in _TOOL_WORDS), default=None)
    if at is None or (parts[0] in _FLAG_WORDS):
        return False
    return set(parts[at + 1:]) <= _CONTAINER_WORDS


def mentions(text: str, words: tuple[str, ...]) -> bool:
    """True when `text` holds one of `words` (lowercase), in any case."""
    low = text.lower()
    return any(w in low for w in words)


def mentions_in(lines: list[str], node: ast.AST, words: tuple[str, ...]) -> bool:
    """`mentions` over the source lines of `node` (1-based, inclusive): a cheap test that
    spares walking a function or class that cannot hold what is looked for."""
    return mentions("\n".join(lines[node.lineno - 1:node.end_lineno or node.lineno]), words)


def own_nodes(func, memo: dict | None = None) -> list[ast.AST]:
    """The nodes of a function's body, not those of functions or classes defined in it, in
    pre-order (expression contexts and operators left out: nothing here looks for them).
    `memo`: id(func) -> (func, nodes) of the functions read before (one module's check)."""
    if memo is not None:
        known = memo.get(id(func))
        if known is not None:
            return known[1]
    out, stack = [], list(reversed(func.body))
    skip = (*_FUNCS, ast.ClassDef, ast.Lambda)
    AST = ast.AST
    while stack:
        node = stack.pop()
        out.append(node)
        if isinstance(node, skip):
            continue
        fields = _FIELDS.get(type(node))
        if fields is None:
            fields = _FIELDS[type(node)] = tuple(f for f in node._fields if f not in ("ctx", "op", "ops"))
        kids = []
        for name in fields:
            value = getattr(node, name, None)
            if type(value) is list:
                kids.extend([v for v in value if isinstance(v, AST)])
            elif isinstance(value, AST):
                kids.append(value)
        kids.reverse()
        stack.extend(kids)
    if memo is not None:
        memo[id(func)] = (func, out)
    return out


_FIELDS: dict = {}  # node type -> the fields that may hold child nodes (`own_nodes`)


class _Scope:
    """The names of one function that `_held` asks about, read from its own nodes on first need
    (most statements name no tool set, and most functions then need none of them): `_locals`
    and `_fresh`."""

    __slots__ = ("func", "nodes", "_names")

    def __init__(self, func, nodes):
        self.func, self.nodes, self._names = func, nodes, None

    def names(self) -> tuple[set[str], set[str], set[str]]:
        """(names bound in the function, names it declares global or nonlocal, fresh names)."""
        if self._names is None:
            local, declared = _locals(self.func, self.nodes)
            self._names = (local, declared, _fresh(self.nodes))
        return self._names


def _held(expr: ast.AST, module: Module, scope: _Scope) -> str | None:
    """The source text of `expr` when it is a tool set held beyond the call: an attribute named
    for tools (not of an object made in the function: `fresh`), or a name named for tools that is
    global (declared so, or set at module level and not a local of the function)."""
    if isinstance(expr, ast.Subscript):
        expr = expr.value
    if isinstance(expr, ast.Attribute) and tool_set_named(expr.attr):
        base = expr.value
        while isinstance(base, ast.Attribute):
            base = base.value
        if isinstance(base, ast.Name) and base.id in scope.names()[2]:
            return None  # an attribute of an object made in this call (a request's config)
        return module.code(expr)
    if isinstance(expr, ast.Name) and tool_set_named(expr.id):
        local, declared, _ = scope.names()
        if expr.id in declared or (expr.id in module.assigns and expr.id not in local):
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


def _fresh(nodes) -> set[str]:
    """Local names assigned a value made in the function (a call, a display), not an alias of a
    held object (`agent = self.agent`)."""
    out = set()
    for node in nodes:
        if isinstance(node, ast.Assign) and not isinstance(node.value, (ast.Attribute, ast.Name)):
            out.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return out


def tool_set_changes(func, nodes, module: Module, memo: dict | None = None) -> list[tuple[ast.AST, str]]:
    """(node, the held tool set's source text or `name(...)` of a loading call) of each change
    of a held tool set in `func`; `memo` keeps them per function (one module's check)."""
    if memo is not None:
        known = memo.get(("changes", id(func)))
        if known is not None:
            return known
    scope = _Scope(func, nodes)
    out = []
    for node in nodes:
        if isinstance(node, ast.Call):
            name = callee_name(node)
            if isinstance(node.func, ast.Attribute) and name in TOOL_SET_GROWS:
                held = _held(node.func.value, module, scope)
                if held is not None:
                    out.append((node, held))
            elif name and tool_set_named(name) and _loads(name):
                out.append((node, f"{name}(...)"))  # a call: the rule says it calls it
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            if isinstance(node, ast.Assign) and no_tool_set(node.value):
                continue  # `self.tools = []`: a set made (or emptied), not one that grows
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                held = _held(target, module, scope)
                if held is not None:
                    out.append((node, held))
                    break
    if memo is not None:
        memo[("changes", id(func))] = out  # (the memo holds the function's nodes: the id stays unique)
    return out


def _loads(name: str) -> bool:
    """True for a call named for loading tools (`load_tools`, `register_tool`) or for replacing the
    tool set (`update_tools`, `set_tools`)."""
    verb = name.split("_")[0].lower()
    return verb in _LOAD_VERBS or verb in _REPLACE_VERBS and "tools" in words(name)


def no_tool_set(value: ast.AST) -> bool:
    """True for `[]`, `{}`, `None`, `list()`, `dict()` and the like, and for a constant (a flag, a
    number, a string: no tool set)."""
    if isinstance(value, (ast.List, ast.Dict, ast.Set, ast.Tuple)):
        return not getattr(value, "elts", None) and not getattr(value, "keys", None)
    if isinstance(value, ast.Constant):
        return True
    return isinstance(value, ast.Call) and not value.args and not value.keywords and \
        isinstance(value.func, ast.Name) and value.func.id in ("list", "dict", "set", "tuple", "OrderedDict")


def request_calls(nodes) -> list[ast.Call]:
    out = []
    for node in nodes:
        if not isinstance(node, ast.Call):
            continue
        name = callee_name(node)
        named = [w.lower() for w in name.split("_") if w]
        if (words(name) & _SEND_WORDS or ("llm" in named and named[0] in _SEND_VERBS)) and not tool_set_named(name):
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
            out.append({id(n) for n in own_nodes(node)} | {id(n) for n in subtree(node)
                                                              if not isinstance(n, _FUNCS)})
    return out


def _key(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.col_offset


def find_tool_changes(module: Module, memo: dict | None = None) -> list[ToolChange]:
    """Every change of a held tool set made by a tool result, between two requests, or by a
    refresh that removes entries and inserts them again (`reinserted`). `memo`: the functions'
    own nodes, shared with `find_class_tool_changes` of the same module (`own_nodes`)."""
    out = []
    if not mentions(module.source, ("tool",)):
        return out
    lines = module.source.splitlines()
    for func in statements(module.tree):
        if not isinstance(func, _FUNCS) or func.name.startswith("__") or not mentions_in(lines, func, ("tool",)):
            continue  # a change names a tool set or a tool-loading call: a function that never says "tool" has none
        nodes = own_nodes(func, memo)
        changes = tool_set_changes(func, nodes, module, memo)
        if not changes:
            continue
        found = _between(func, nodes, changes)
        if found is None:
            found = _reinserted(func, nodes, module, changes)
        if found is not None:
            out.append(found)
    return out


def _between(func, nodes, changes) -> ToolChange | None:
    """The first change made by a tool result or between two requests of `func`, or None."""
    if _returns_text(nodes):
        node, target = changes[0]  # one root cause per function: its first change
        return ToolChange(node, target, func.name, "tool-result")
    sends = request_calls(nodes)
    if not sends:
        return None
    loops = _loops(func, nodes)
    for node, target in changes:
        before = [s for s in sends if _key(s) < _key(node)]
        after = [s for s in sends if _key(s) > _key(node)]
        shared = next((s for loop in loops if id(node) in loop for s in sends if id(s) in loop), None)
        if before and after:
            return ToolChange(node, target, func.name, "between-requests", before[-1], after[0])
        if shared is not None:
            return ToolChange(node, target, func.name, "between-requests", shared, None)
    return None  # one root cause per function: its first change between requests


#: Methods that remove an entry of a held tool set (`tool_set_removals`).
REMOVERS = frozenset({"pop", "remove", "discard"})


def tool_set_removals(func, nodes, module: Module) -> list[tuple[ast.AST, str]]:
    """Entries removed from a held tool set by a tool or its name (`del self._tool_map[name]`,
    `tools.pop(old.tool_name)`, `tools.remove(tool)`): (the statement or call, the set's source
    text). Not `clear()`: a set emptied and filled again in the same order keeps its order; not a
    key that is no tool (`pending_tools.discard(item["call_id"])`: ids of tool calls)."""
    scope = _Scope(func, nodes)
    out = []
    for node in nodes:
        if isinstance(node, ast.Delete):
            for target in node.targets:
                if isinstance(target, ast.Subscript) and _tool_key(target.slice, module):
                    held = _held(target, module, scope)
                    if held is not None:
                        out.append((node, held))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                callee_name(node) in REMOVERS and node.args and _tool_key(node.args[0], module):
            held = _held(node.func.value, module, scope)
            if held is not None:
                out.append((node, held))
    return out


def _tool_key(key: ast.AST, module: Module) -> bool:
    """True when a removed key or item names a tool: a word `name` or `tool` in it and no `id`."""
    named = words(module.code(key))
    return bool(named & {"name", "names", "tool"}) and "id" not in named


def _reinserted(func, nodes, module: Module, changes) -> ToolChange | None:
    """A refresh of a held tool set (`del tool_map[old.name]` for a server's old tools, then
    `tool_map[new.name] = tool`): the entries inserted after a removal go to the end of the map or
    list, so the tool order (and the set, when it changed) differs from what earlier requests sent,
    even when the refreshed tools are the same. Reported at the first insertion after a removal."""
    removals = tool_set_removals(func, nodes, module)
    for node, target in changes:
        removed = next((r for r, t in removals if t == target and _key(r) < _key(node)), None)
        if removed is not None:
            return ToolChange(node, target, func.name, "reinserted", removed, None)
    return None
