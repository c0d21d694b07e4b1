"""Tools lists filled by a loop over an unordered source, outside a send call: `for name in
set(self.config.tools): self._tools.append(make(name))` (docs/policies.md, Policy 9: a tools
list is judged where it is built). The list is grown in place (an attribute, or a local list
handed on by a call the analysis does not follow), so no assignment of the list shows its order:
the loop does. A candidate with one tools part, reported by PRM203 at the loop's iterable.

A tools list is known by its name (`self._tools`, `tool_specs`; also a list of the functions a
model may call, `functions`) or by its class: a class named for tools (`ToolRegistry`,
`ToolManager`) whose method appends to a list attribute of definitions (`self._schemas`,
`self._specs`) registers a tool with each call. The items may also be applied to such a method
by a call rather than a loop (`map(self.register, paths)`, a toolz `pipe(paths, ...,
map(partial(self.register, strict=False)), list)`): the order of the iterable handed to the call
is the tools' order (`applied_in_call`). A function named for tools (`async def list_tools(self)`)
that returns the list its loop grows gives that list as its tools, whatever the list's name."""
from __future__ import annotations

import ast
import re

from ..classify import MCP_LISTING
from ..model import Kind, Part, Segment, Volatility
from .flow.values import Alt, Text
from .candidates import span_within
from .prompt_names import name_parts, tools_named
from .module import attribute_chain
from .sorted_returns import sorted_by_callers
from .walk import child_nodes, subtree

_GROW = ("append", "extend", "insert")
#: What the source text of a name that says tools holds, in any case (`tools_named`: a tools word;
#: `tool_list_named`: also `functions`): a loop or class without it grows no tools list by name.
_TOOL_TEXT = re.compile("tool|function", re.IGNORECASE)
#: Last words of a list attribute that holds what a class named for tools registers (`self._schemas`).
_DEFINITION_WORDS = frozenset({"schemas", "schema", "specs", "spec", "definitions", "defs", "declarations",
                               "functions", "entries", "list"})
#: Calls that apply a function to each item of an iterable they are handed (builtins, toolz).
APPLIERS = frozenset({"map", "pipe", "thread_first", "thread_last", "starmap"})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _mentions_tools(module, node) -> bool:
    """True when the source text of `node` holds `_TOOL_TEXT`: else no name in it says tools."""
    a, b = module.offsets(node)
    return _TOOL_TEXT.search(module.source, a, b) is not None


def _adders(cls, module) -> dict[str, str]:
    """The methods of `cls` that add a tool by appending to a tools list of the instance
    (`def add_tool(self, tool): ... self.tools.append(tool)`): method name -> the list's dotted
    name (`self.tools`). None of them when a method of the class sorts that list (`sorted(self.tools)`,
    `self.tools.sort()`): the class then decides the order it gives. Read once per class (kept on
    its node, `_tool_adders`): every loop of its methods asks."""
    if cls is None:
        return {}
    known = getattr(cls, "_tool_adders", None)
    if known is None:
        # (an adder appends to a list named for tools, or is a method of a class named for tools:
        # a class whose text says neither has none, and its methods are not walked)
        known = cls._tool_adders = _read_adders(cls) if _mentions_tools(module, cls) else {}
    return known


def _read_adders(cls) -> dict[str, str]:
    """`_adders` of a class, read from its methods."""
    methods = [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    out = {}
    tool_class = tools_named(cls.name)
    for method in methods:
        for node in subtree(method):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _GROW \
                    and isinstance(node.func.value, ast.Attribute):
                chain = attribute_chain(node.func.value)
                if len(chain) == 2 and chain[0] == "self" and (
                        tool_list_named(chain[1]) or tool_class and _definitions_named(chain[1])):
                    out[method.name] = "self." + chain[1]
                    break
    sorted_lists = {name for name in set(out.values()) if any(_sorted_later(m, {name}) for m in methods)}
    return {m: name for m, name in out.items() if name not in sorted_lists}


def tool_list_named(name: str) -> bool:
    """True when the name says a list of tool definitions (`prompt_names.tools_named`) or of the
    functions a model may call (`functions`, `self._functions`, `kernel_functions`; not
    `function_calls`, `use_functions`)."""
    if tools_named(name):
        return True
    parts = name_parts(name)
    return bool(parts) and parts[-1] == "functions" and parts[0] not in ("use", "has", "is", "enable", "allow", "no")


def _definitions_named(name: str) -> bool:
    """True for a list attribute named for definitions (`_schemas`, `specs`, `_functions`)."""
    parts = name_parts(name)
    return bool(parts) and parts[-1] in _DEFINITION_WORDS


def _grown(loop, adders: dict[str, str] | None = None) -> set[str]:
    """The dotted names of the tools lists the loop's body grows (`self._tools`, `tools`): a
    `.append` / `.extend` / `.insert` on a name or attribute whose last name says tools, or an
    item set on one (`self._adapter.builtin_tools[name] = schema`: a dict keeps insertion order;
    not the class's own registry, `self._tools[name] = tool`, whose methods decide the order they
    give), not assigned in the body (`tools = []` per item: each item's list keeps its own order);
    also a call of a method of the class that appends to its tools list (`self.add_tool(tool)`:
    `adders`, see `_adders`)."""
    found, fresh, todo = set(), set(), list(loop.body)
    while todo:
        node = todo.pop()
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, ast.Assign):  # a list made anew per item keeps its own order
            fresh.update(".".join(attribute_chain(t)) for t in node.targets if isinstance(t, (ast.Name, ast.Attribute)))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _GROW
                and isinstance(node.func.value, (ast.Name, ast.Attribute))):
            chain = attribute_chain(node.func.value)
            if chain and tool_list_named(chain[-1]):
                found.add(".".join(chain))
        if adders and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "self" and node.func.attr in adders:
            found.add(adders[node.func.attr])
        if isinstance(node, ast.Assign):  # a registry filled by key: `self._adapter.builtin_tools[name] = schema`
            for t in node.targets:
                if isinstance(t, ast.Subscript) and isinstance(t.value, (ast.Name, ast.Attribute)):
                    chain = attribute_chain(t.value)
                    own = len(chain) == 2 and chain[0] in ("self", "cls")  # its class's API decides the order
                    if chain and tools_named(chain[-1]) and not own:
                        found.add(".".join(chain))
        todo.extend(child_nodes(node))
    return found - fresh


def _returned_grown(loop, func) -> set[str]:
    """The local lists the loop's body grows (`schema.append(...)`) that `func` returns (`return
    schema`), whatever their names: of a function named for tools (`async def list_tools(self)`),
    the tools list it gives its callers."""
    returned = {n.value.id for n in subtree(func) if isinstance(n, ast.Return) and isinstance(n.value, ast.Name)}
    grown = set()
    for node in subtree(loop):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _GROW \
                and isinstance(node.func.value, ast.Name) and node.func.value.id in returned:
            grown.add(node.func.value.id)
    fresh = {t.id for n in subtree(loop) if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    return grown - fresh


def _sorted_later(func, names: set[str]) -> bool:
    """True when the function sorts one of the lists (`tools.sort(...)`, `sorted(self._tools)`):
    its order is then made stable after the loop."""
    for node in subtree(func):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Attribute) and node.func.attr == "sort":
            target = node.func.value
        elif isinstance(node.func, ast.Name) and node.func.id == "sorted" and node.args:
            target = node.args[0]
        else:
            continue
        if isinstance(target, (ast.Name, ast.Attribute)) and ".".join(attribute_chain(target)) in names:
            return True
    return False


def filled_in_loop(finder, loop, func, frame) -> bool:
    """A `for` loop in `func` whose own iterable is unordered (`set(...)`, a listing) and whose
    body grows a tools list that the function never sorts: a tools candidate at the iterable.
    True when one was added."""
    cls = next((n for n in reversed(finder.stack) if isinstance(n, ast.ClassDef)), None)
    adders = _adders(cls, finder.m) if cls is not None and "self." in finder.m.code(loop) else None
    if not adders and not _mentions_tools(finder.m, loop):
        return False  # (no adder is called, and no name of the loop says tools: it grows no tools list)
    names = _grown(loop, adders) or (_returned_grown(loop, func) if tools_named(func.name) else set())
    if not names or _sorted_later(func, names) or _sorted_by_receivers(finder, func, names):
        return False
    return _ordered_by(finder, loop, loop.iter, func, frame)


def _sorted_by_receivers(finder, func, names: set[str]) -> bool:
    """True when the lists are local names the function returns (`return tools`) and every caller
    of the function sorts what it returns (python/sorted_returns.py)."""
    if func is None or any("." in n for n in names):
        return False
    returned = {n.value.id for n in subtree(func) if isinstance(n, ast.Return) and isinstance(n.value, ast.Name)}
    return names <= returned and sorted_by_callers(finder.ev, finder.m, func)


def applied_in_call(finder, call: ast.Call, func, frame) -> bool:
    """A call of `APPLIERS` in a method of `func`'s class that hands an iterable and, uncalled, a
    method of the class that adds a tool (`_adders`; also wrapped, `partial(self.register, ...)`)
    to the call: `map(self.add_tool, os.listdir(d))`, `pipe(paths, map(get_module),
    map(partial(self.register, strict=False)), list)`. The iterable (the first argument of a
    `pipe`, the others of a `map`) is the tools' order: a tools candidate where it is unordered,
    unless the function sorts the list. True when one was added."""
    cls = next((n for n in reversed(finder.stack) if isinstance(n, ast.ClassDef)), None)
    adders = _adders(cls, finder.m)
    if not adders or not call.args:
        return False
    called = {id(n.func) for a in call.args for n in subtree(a) if isinstance(n, ast.Call)}
    lists = {adders[n.attr] for a in call.args for n in subtree(a)
             if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self"
             and n.attr in adders and id(n) not in called}
    if not lists or _sorted_later(func, lists):
        return False
    name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    handed = call.args[:1] if name in ("pipe", "thread_first", "thread_last") else call.args[1:]
    return any(_ordered_by(finder, call, arg, func, frame) for arg in handed)


def _ordered_by(finder, node, iter_node, func, frame) -> bool:
    """Add a tools candidate at `iter_node` (what orders the tools `node` registers) when its
    order is lost there, or before it in `func`. True when one was added."""
    ev = finder.ev
    span = finder.m.span(iter_node)
    value = ev.eval(iter_node, frame)
    # `paths = [p] if p.is_file() else p.glob("*.py")`: where the listing is made
    seg = _listing_option(finder, value, func, frame) if isinstance(value, Alt) else None
    seg = seg or ev._order_of(value, iter_node, frame)
    if seg is None and _checked_listing(finder.m, iter_node, func):
        seg = ev.unordered_at(Segment(span=span, kind=Kind.UNORDERED_ITERATION, volatility=Volatility.UNKNOWN,
                                      expr=finder.m.code(iter_node), evidence=MCP_LISTING), iter_node, frame)
    if seg is None or seg.anchor is None:
        return False  # the order was lost elsewhere (reported there), or not at all
    if not span_within(seg.anchor.span, span):
        # lost before the loop: in this function (`wanted = {f(n): n for n in self._names()}`,
        # `for k, v in wanted.items():`) the loop is what makes it the tools' order: reported
        # where it was lost; elsewhere, reported there
        if not span_within(seg.anchor.span, finder.m.span(func)):
            return False
        span = seg.anchor.span
    finder.b.add(node, "python-constant", None, None, None, [Part("tools", [seg], span=span)])
    return True


def _checked_listing(module, iter_node, func) -> bool:
    """True for `result.tools` where `func` checks that `result` is an MCP `ListToolsResult`
    (`assert isinstance(result, ListToolsResult)`, `if isinstance(...)`): a server's tool listing,
    whatever call gave it (`await self._actor.call("list_tools", None)`)."""
    if not (isinstance(iter_node, ast.Attribute) and iter_node.attr == "tools" and isinstance(iter_node.value, ast.Name)):
        return False
    name = iter_node.value.id
    for node in subtree(func):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance" \
                and len(node.args) == 2 and isinstance(node.args[0], ast.Name) and node.args[0].id == name:
            qual = module.qualified_name(node.args[1]) or ""
            if qual.startswith("mcp.") and qual.endswith(".ListToolsResult"):
                return True
    return False


def _listing_option(finder, value, func, frame):
    """The unordered source one option of `value` (several values a name may hold) is, made in
    `func` (a listing or a set, read as its iteration), anchored where it is made; else None."""
    m = finder.m
    for option in value.options:
        segs = option.segs if isinstance(option, Text) else []
        src = next((s for s in segs if s.kind is Kind.UNORDERED_ITERATION), None)
        if src is None or src.span is None or src.span.filename != m.span(func).filename \
                or not span_within(src.span, m.span(func)):
            continue
        node = next((n for n in subtree(func) if isinstance(n, ast.expr) and m.span(n) == src.span), None)
        if node is not None:
            return finder.ev.unordered_at(src, node, frame)
    return None
