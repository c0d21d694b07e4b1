"""Tools registries filled by coroutines run concurrently: `await asyncio.gather(*(self.load_server(n)
for n in self.server_names))` (or `tasks = [...]`, then `gather(*tasks)`; or `tg.create_task(
self.load_server(n))` in a loop of a TaskGroup), where `load_server` awaits a fetch and only then sets
`self._tool_map[f"{n}_{tool.name}"] = tool` (or appends to `self._tools`). Each call fills the
registry when its own fetch completes, so the registry's order is the calls' completion order,
which differs from one run to the next (docs/policies.md, Policy 9: a tools list is judged where
it is built). A candidate with one tools part, reported by PRM203 at the gather call, with the
fill as the related location.

Not when the fill comes before the coroutine's first `await` (the calls start in the order
they are listed and run to their first `await` in that order), nor when the module never iterates
the registry (a map only looked up by name: its order reaches no list) or sorts it where it does
(`sorted(self._tool_map.items())`: the order is made stable where it is read).
"""
from __future__ import annotations

import ast

from ..classify import GATHERED_LISTING, GATHERED_MCP
from ..model import Kind, Part, Segment, Volatility
from .prompt_names import tools_named
from .module import attribute_chain
from .walk import own_nodes, subtree

_GATHERS = ("gather",)
_FILLS = ("append", "extend", "insert", "update", "setdefault")
_WRAPS = ("create_task", "ensure_future")  # `gather(*(asyncio.create_task(f(x)) for x in xs))`
_VIEWS = ("items", "values", "keys")
_LISTS = ("list", "tuple", "enumerate")


def _unwrapped(inner: ast.Call) -> ast.Call:
    """The coroutine call inside `asyncio.create_task(f(x))` / `ensure_future(f(x))`, else `inner`."""
    wrap = inner.func.attr if isinstance(inner.func, ast.Attribute) else getattr(inner.func, "id", None)
    if wrap in _WRAPS and len(inner.args) == 1 and isinstance(inner.args[0], ast.Call):
        return inner.args[0]
    return inner


def _comprehension(node, func):
    """The comprehension `node` is, or that the local name `node` is assigned once in `func`
    (`tasks = [self.load(n) for n in names]`), else None."""
    if isinstance(node, ast.Name) and func is not None:
        values = [n.value for n in own_nodes(func, body_only=True) if isinstance(n, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == node.id for t in n.targets)]
        node = values[0] if len(values) == 1 else None
    return node if isinstance(node, (ast.GeneratorExp, ast.ListComp)) else None


def _in_loop(call: ast.Call, func):
    """True when `call` is in the body of a `for` loop of `func` that awaits nothing itself (the
    tasks it makes run at once: `async with TaskGroup() as tg: for n in names:
    tg.create_task(self.load(n))`)."""
    for loop in (n for n in own_nodes(func, body_only=True) if isinstance(n, (ast.For, ast.AsyncFor))):
        body = [n for stmt in loop.body for n in subtree(stmt)]
        if any(n is call for n in body):
            return not any(isinstance(n, ast.Await) for n in body)
    return False


def _spawned(call: ast.Call, func) -> ast.Call | None:
    """The call made once per element in `gather(*(f(x) for x in xs))` / `gather(*[f(x) for x in
    xs])` / `gather(*tasks)` with `tasks` such a list (each also wrapped in `create_task(...)`), or
    by `create_task(f(x))` in a loop that awaits nothing, or None: one coroutine run for each
    element of a list, all at once."""
    f = call.func
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
    if name in _WRAPS:
        inner = _unwrapped(call)
        return inner if inner is not call and func is not None and _in_loop(call, func) else None
    if name not in _GATHERS or len(call.args) != 1 or not isinstance(call.args[0], ast.Starred):
        return None
    comp = _comprehension(call.args[0].value, func)
    if comp is None or not isinstance(comp.elt, ast.Call):
        return None
    return _unwrapped(comp.elt)


def _coroutine(finder, inner: ast.Call):
    """The `async def` that `inner` calls: a method of the class around the gather
    (`self.load(x)`), or a function of the module (`load(x)`); else None."""
    func = inner.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
        cls = next((n for n in reversed(finder.stack) if isinstance(n, ast.ClassDef)), None)
        body = cls.body if cls is not None else []
        name = func.attr
    elif isinstance(func, ast.Name):
        # a function of the module, or one defined in a function around the call (a closure)
        outers = [n for n in reversed(finder.stack) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        body, name = [s for f in outers for s in f.body] + finder.m.tree.body, func.id
    else:
        return None
    return next((n for n in body if isinstance(n, ast.AsyncFunctionDef) and n.name == name), None)


def _registry(node, globals_: set[str]) -> tuple[str, ...] | None:
    """The registry a statement fills, as its dotted name (`("self", "_tool_map")`), when its last
    name says tools: an item set (`self._tool_map[key] = tool`) or a grow call
    (`self._tools.append(tool)`) on an attribute of the instance or a module-level name."""
    target = None
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript):
        target = node.targets[0].value
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _FILLS:
        target = node.func.value
    if not isinstance(target, (ast.Name, ast.Attribute)):
        return None
    chain = tuple(attribute_chain(target))
    shared = (len(chain) == 2 and chain[0] in ("self", "cls")) or (len(chain) == 1 and chain[0] in globals_)
    return chain if shared and tools_named(chain[-1]) else None


def _fills(func, globals_: set[str], cls: ast.ClassDef | None = None) -> list:
    """The statements of `func` that fill a tools registry after an `await` of the function (an
    awaited call, an `async for`), in their order: (the statement, its registry) each; a call of
    a method of `cls` that fills one (`self.add(tool)`, `add` setting `self._tool_dict[name]`) is
    such a statement too."""
    nodes = own_nodes(func, body_only=True)
    waits = [(n.lineno, n.col_offset) for n in nodes if isinstance(n, (ast.Await, ast.AsyncFor))]
    if not waits:
        return []
    first = min(waits)
    setters = {}  # method name -> the registry it fills
    for m in (cls.body if cls is not None else ()):
        if isinstance(m, ast.FunctionDef):
            chain = next((c for n in own_nodes(m, body_only=True) if isinstance(n, (ast.Assign, ast.Call))
                          and (c := _registry(n, globals_)) is not None), None)
            if chain is not None:
                setters[m.name] = chain
    fills = [(n, chain) for n in nodes if isinstance(n, (ast.Assign, ast.Call))
             and (chain := _registry(n, globals_) or _setter(n, setters)) is not None and (n.lineno, n.col_offset) > first]
    return sorted(fills, key=lambda f: (f[0].lineno, f[0].col_offset))


def _setter(node, setters: dict):
    """The registry that `self.M(...)` fills when `M` is one of `setters`, else None."""
    f = getattr(node, "func", None)
    if isinstance(node, ast.Call) and isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) \
            and f.value.id == "self":
        return setters.get(f.attr)
    return None


def _names(node, name: str) -> bool:
    """True when `node` is the registry or a view of it (`self._tool_map`, `self._tool_map.items()`)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _VIEWS:
        node = node.func.value
    return isinstance(node, (ast.Name, ast.Attribute)) and (attribute_chain(node) or [""])[-1] == name


def _read_in_order(tree, name: str) -> bool:
    """True when the module iterates the registry `name` (a `for` or a comprehension over it or
    one of its views, `list(...)` of it) and never sorts it (`sorted(...)` of it, `.sort()`)."""
    iterated = False
    for node in subtree(tree):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) and _names(node.iter, name):
            iterated = True
        elif isinstance(node, ast.Call) and node.args and isinstance(node.func, ast.Name):
            if node.func.id == "sorted" and any(_names(n, name) for n in subtree(node.args[0])):
                return False
            if node.func.id in _LISTS and _names(node.args[0], name):
                iterated = True
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "sort" \
                and _names(node.func.value, name):
            return False
    return iterated


def _lists_mcp_tools(finder, func, depth: int = 3) -> bool:
    """True when `func`, or a function of its class or module it calls (`self._fetch(...)`,
    `fetch(...)`, up to `depth` calls deep), lists an MCP server's tools (`client.list_tools()`
    on another object than the instance, in a module that imports `mcp`): the registry holds tool
    definitions whatever its name."""
    if not finder.m.imports_from("mcp"):
        return False
    cls = next((n for n in reversed(finder.stack) if isinstance(n, ast.ClassDef)), None)
    defs = {n.name: n for n in [*finder.m.tree.body, *(cls.body if cls is not None else [])]
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    seen, todo = {func.name}, [(func, 0)]
    while todo:
        node, level = todo.pop()
        for n in own_nodes(node, body_only=True):
            if not isinstance(n, ast.Call) or not isinstance(n.func, (ast.Attribute, ast.Name)):
                continue
            if isinstance(n.func, ast.Attribute) and n.func.attr == "list_tools" \
                    and not (isinstance(n.func.value, ast.Name) and n.func.value.id in ("self", "cls")):
                return True
            own = isinstance(n.func, ast.Name) or isinstance(n.func.value, ast.Name) and n.func.value.id == "self"
            name = n.func.id if isinstance(n.func, ast.Name) else n.func.attr
            if own and level < depth and name in defs and name not in seen:
                seen.add(name)
                todo.append((defs[name], level + 1))
    return False


def gathered(finder, call: ast.Call) -> bool:
    """A `gather` call (or a `create_task` in a loop) that runs a coroutine of this module once
    per element of a list, the coroutine filling a tools registry after an `await`, which the
    module iterates unsorted: a tools candidate at that call (PRM203). True when one was added."""
    outer = next((n for n in reversed(finder.stack) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    inner = _spawned(call, outer)
    if inner is None:
        return False
    func = _coroutine(finder, inner)
    if func is None:
        return False
    globals_ = {t.id for n in finder.m.tree.body if isinstance(n, (ast.Assign, ast.AnnAssign))
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
    cls = next((n for n in reversed(finder.stack) if isinstance(n, ast.ClassDef)), None)
    found = next(((fill, chain) for fill, chain in _fills(func, globals_, cls)
                  if _read_in_order(finder.m.tree, chain[-1])), None)
    if found is None:
        return False
    fill, chain = found
    m = finder.m
    span = m.span(call)
    why = GATHERED_MCP if _lists_mcp_tools(finder, func) else GATHERED_LISTING
    seg = Segment(span=span, kind=Kind.UNORDERED_ITERATION, volatility=Volatility.UNKNOWN, expr=m.code(call),
                  evidence=why + f": `{'.'.join(chain)}` filled by `{func.name}` as each call completes",
                  origin=m.span(fill))
    finder.b.add(call, "python-constant", None, None, None, [Part("tools", [seg], span=span)])
    return True
