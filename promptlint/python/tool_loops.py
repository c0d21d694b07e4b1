"""Tools lists filled by a loop over an unordered source, outside a send call: `for name in
set(self.config.tools): self._tools.append(make(name))` (docs/policies.md, Policy 9: a tools
list is judged where it is built). The list is grown in place (an attribute, or a local list
handed on by a call the analysis does not follow), so no assignment of the list shows its order:
the loop does. A candidate with one tools part, reported by PRM203 at the loop's iterable."""
from __future__ import annotations

import ast

from ..model import Part
from .candidates import _inside, tools_named
from .module import attribute_chain
from .walk import child_nodes, subtree

_GROW = ("append", "extend", "insert")
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _adders(cls) -> dict[str, str]:
    """The methods of `cls` that add a tool by appending to a tools list of the instance
    (`def add_tool(self, tool): ... self.tools.append(tool)`): method name -> the list's dotted
    name (`self.tools`). None of them when a method of the class sorts that list (`sorted(self.tools)`,
    `self.tools.sort()`): the class then decides the order it gives. Read once per class (kept on
    its node, `_tool_adders`): every loop of its methods asks."""
    if cls is None:
        return {}
    known = getattr(cls, "_tool_adders", None)
    if known is None:
        known = cls._tool_adders = _read_adders(cls)
    return known


def _read_adders(cls) -> dict[str, str]:
    """`_adders` of a class, read from its methods."""
    methods = [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    out = {}
    for method in methods:
        for node in subtree(method):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _GROW \
                    and isinstance(node.func.value, ast.Attribute):
                chain = attribute_chain(node.func.value)
                if len(chain) == 2 and chain[0] == "self" and tools_named(chain[1]):
                    out[method.name] = "self." + chain[1]
                    break
    sorted_lists = {name for name in set(out.values()) if any(_sorted_later(m, {name}) for m in methods)}
    return {m: name for m, name in out.items() if name not in sorted_lists}


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
            if chain and tools_named(chain[-1]):
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
    names = _grown(loop, _adders(cls) if cls is not None and "self." in finder.m.code(loop) else None)
    if not names or _sorted_later(func, names):
        return False
    ev = finder.ev
    span = finder.m.span(loop.iter)
    seg = ev._order_of(ev.eval(loop.iter, frame), loop.iter, frame)
    if seg is None or seg.anchor is None:
        return False  # the order was lost elsewhere (reported there), or not at all
    if not _inside(seg.anchor.span, span):
        # lost before the loop: in this function (`wanted = {f(n): n for n in self._names()}`,
        # `for k, v in wanted.items():`) the loop is what makes it the tools' order: reported
        # where it was lost; elsewhere, reported there
        if not _inside(seg.anchor.span, finder.m.span(func)):
            return False
        span = seg.anchor.span
    finder.b.add(loop, "python-constant", None, None, None, [Part("tools", [seg], span=span)])
    return True
