"""Tools chosen for each request by a method that selects them from its argument: facts for PRM204.

A request's tools (`tools=` / `functions=` of a call, `bind_tools(X)`) that are the value a
method of the class returns (`node_tools = self._tools_for_node(node)`, `tools =
self.get_tools(task.input)`, also through a comprehension over it), bound in the sending function
or in a method of the class that passes them to it (`self._reply(messages, node_tools)`, whose
`tools` parameter is sent), are reported when:

- the method selects by its argument: the list it returns is built by a filter that reads one of
  its parameters (a comprehension's `if`, an `append` under an `if`), or it returns a retrieval
  given one (`retriever.retrieve(query)`, also through a callable the instance keeps:
  `self._get_tools = lambda m: retriever.retrieve(m)`, then `return self._get_tools(text)`);
- the argument changes between the requests of one conversation: it reads state of the instance
  that a method other than `__init__` writes (`self.current_node_id`: the node a graph has moved
  to), or a name that says the turn's request (`query`, `user_message`, `task.input`); a
  retrieval given anything but a constant or the instance's settings;
- the function that sends the request sends a conversation (its text names messages or history).

A list built once per agent, or a filter over settings fixed for the conversation, is not read:
the same filter gives the same list on every turn. Whether two turns select different tools
depends on data not seen here, so the finding is info.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from .flow.binding_syntax import param_names
from .module import self_attr
from .tool_marks import tool_marks
from .tool_variants import PER_TURN, TOOL_KEYS, closure
from .walk import own_nodes, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_ONCE = {"__init__", "__post_init__", "model_post_init", "__new__", "setup", "_setup"}
#: Calls that retrieve items similar to a text (a tool retriever's search).
_RETRIEVE = {"retrieve", "aretrieve", "similarity_search", "asimilarity_search"}
#: The last name of an attribute read as the turn's own input (`task.input`, `turn.query`).
_TURN_ATTRS = re.compile(r"^(?:input|query|question|user_message|user_input|utterance)$")
_CONVERSATION_WORDS = ("messages", "history", "conversation", "chat")


@dataclass
class ToolSelection:
    """`node`: the call of the selecting method (reported); `send`: the request that sends its
    result as tools; `method`: the selecting method's name; `how`: "filter" or "retrieval";
    `evidence`: "state" (instance state a method writes), "name" (a per-turn name) or
    "argument" (a retrieval's argument); `condition`: the source text of what varies."""

    node: ast.Call
    send: ast.Call
    method: str
    how: str
    evidence: str
    condition: str


def _assigned(own) -> dict[str, list[ast.expr]]:
    """Local name -> the values assigned to it (plain and annotated assignments)."""
    out: dict[str, list] = {}
    for n in own:
        if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None:
            for t in n.targets if isinstance(n, ast.Assign) else [n.target]:
                if isinstance(t, ast.Name):
                    out.setdefault(t.id, []).append(n.value)
    return out


def _reads(expr) -> set[str]:
    return {n.id for n in subtree(expr) if isinstance(n, ast.Name)}


def _retrieving(expr, params: set[str]) -> bool:
    """True for a call `x.retrieve(p)` given one of `params`."""
    return any(isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr in _RETRIEVE
               and any(_reads(a) & params for a in [*c.args, *(k.value for k in c.keywords)]) for c in subtree(expr))


def _selects(method, kept_retrievers: set[str]) -> str | None:
    """"filter" or "retrieval" when the method's returned list depends on its parameters that way
    (see the module docstring), else None."""
    own = own_nodes(method)
    binds = _assigned(own)
    params = closure(set(param_names(method, receiver=False)), binds, _reads)
    returned = [r.value for r in own if isinstance(r, ast.Return) and r.value is not None]
    if not params or not returned:
        return None
    for value in returned:
        if _retrieving(value, params) or isinstance(value, ast.Call) and self_attr(value.func) in kept_retrievers \
                and any(_reads(a) & params for a in value.args):
            return "retrieval"
    out_names = {v.id for v in returned if isinstance(v, ast.Name)}
    built = [v for v in returned if isinstance(v, (ast.ListComp, ast.GeneratorExp))]
    built += [x for name in out_names for x in binds.get(name, ()) if isinstance(x, (ast.ListComp, ast.GeneratorExp))]
    if any(_reads(c) & params for comp in built for g in comp.generators for c in g.ifs):
        return "filter"
    parents = {id(c): n for n in own for c in ast.iter_child_nodes(n)}
    for n in own:  # `subset.append(tool)` under an `if` that reads a parameter, `subset` returned
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "append" \
                and isinstance(n.func.value, ast.Name) and n.func.value.id in out_names:
            at = parents.get(id(n))
            while at is not None and at is not method:
                if isinstance(at, ast.If) and _reads(at.test) & params:
                    return "filter"
                at = parents.get(id(at))
    return None


def _kept_retrievers(cls) -> set[str]:
    """Attributes of the instance assigned a lambda that retrieves by its argument
    (`self._get_tools = lambda message: retriever.retrieve(message)`)."""
    out = set()
    for n in subtree(cls):
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Lambda) and len(n.targets) == 1 \
                and (a := self_attr(n.targets[0])) is not None:
            args = {p.arg for p in n.value.args.args}
            if _retrieving(n.value.body, args):
                out.add(a)
    return out


def _written_state(methods) -> set[str]:
    """Attributes of `self` that a method other than `__init__` assigns: state that moves while
    the instance runs."""
    out = set()
    for m in methods:
        if m.name in _ONCE:
            continue
        for n in own_nodes(m):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, (ast.AugAssign, ast.AnnAssign)) else []
            out.update(a for t in targets if (a := self_attr(t)) is not None)
    return out


def _varies(args, binds, state: set[str], how: str) -> tuple[str, str] | None:
    """(evidence, source text) when an argument of the selecting call changes between the requests
    of one conversation (see the module docstring), else None."""
    for arg in args:
        todo, seen = [arg], set()
        while todo:
            expr = todo.pop()
            for n in subtree(expr):
                if (a := self_attr(n)) is not None and a in state:
                    return "state", ast.unparse(arg)
                if isinstance(n, ast.Name) and PER_TURN.search(n.id) or isinstance(n, ast.Attribute) \
                        and _TURN_ATTRS.match(n.attr) and self_attr(n) is None:
                    return "name", ast.unparse(arg)
                if isinstance(n, ast.Name) and n.id in binds and n.id not in seen:
                    seen.add(n.id)
                    todo.extend(binds[n.id])
        if how == "retrieval" and not isinstance(arg, ast.Constant) and self_attr(arg) is None:
            return "argument", ast.unparse(arg)
    return None


def _sent_tools(func):
    """(the tools value, the request) of each request of `func` that sends tools."""
    for n in own_nodes(func):
        if isinstance(n, ast.Call):
            value = next((k.value for k in n.keywords if k.arg in TOOL_KEYS), None)
            if value is None and isinstance(n.func, ast.Attribute) and n.func.attr == "bind_tools" and n.args:
                value = n.args[0]
            if value is not None:
                yield value, n


def _origins(value, func, methods, depth=0, hopped=False):
    """(selecting call, the function it is in) for each `self.m(...)` call the sent value is made
    of: itself, through locals and comprehensions, or through the argument each caller in the class
    passes for a parameter of `func` (one step)."""
    if isinstance(value, ast.Call) and self_attr(value.func) is not None:
        yield value, func
    elif isinstance(value, (ast.ListComp, ast.GeneratorExp)):
        for g in value.generators:
            yield from _origins(g.iter, func, methods, depth, hopped)
    elif isinstance(value, ast.Name):
        binds = _assigned(own_nodes(func))
        for v in binds.get(value.id, ()) if depth < 4 else ():
            yield from _origins(v, func, methods, depth + 1, hopped)
        params = param_names(func, receiver=False)
        if value.id in params and value.id not in binds and not hopped:
            at = params.index(value.id)
            for caller in methods:
                for c in own_nodes(caller):
                    if isinstance(c, ast.Call) and self_attr(c.func) == func.name:
                        arg = next((k.value for k in c.keywords if k.arg == value.id), None)
                        if arg is None and at < len(c.args) and not any(isinstance(a, ast.Starred) for a in c.args[:at + 1]):
                            arg = c.args[at]
                        if arg is not None:
                            yield from _origins(arg, caller, methods, 0, True)


def find_tool_selections(module) -> list[ToolSelection]:
    """Every call of a selecting method whose result a request of one conversation sends as its
    tools (see the module docstring), once per call, by line."""
    sites, _ = tool_marks(module)
    if not sites or "self." not in module.source:
        return []
    out: dict[int, ToolSelection] = {}
    for cls in (n for n in subtree(module.tree) if isinstance(n, ast.ClassDef)):
        methods = [m for m in cls.body if isinstance(m, _FUNCS)]
        by_name = {m.name: m for m in methods}
        kept, state, judged = None, None, {}  # (`kept`: read at the first method judged)
        for func in methods:
            text = ast.unparse(func) if any(func.lineno <= s <= func.end_lineno for s in sites) else ""
            if not any(w in text for w in _CONVERSATION_WORDS):
                continue
            for value, send in _sent_tools(func):
                for call, where in _origins(value, func, methods):
                    name = self_attr(call.func)
                    if name not in by_name or id(call) in out:
                        continue
                    if name not in judged:
                        kept = _kept_retrievers(cls) if kept is None else kept
                        judged[name] = _selects(by_name[name], kept)
                    how = judged[name]
                    if how is None:
                        continue
                    state = _written_state(methods) if state is None else state
                    varies = _varies([*call.args, *(k.value for k in call.keywords)],
                                     _assigned(own_nodes(where)), state, how)
                    if varies is not None:
                        out[id(call)] = ToolSelection(call, send, name, how, *varies)
    return sorted(out.values(), key=lambda s: (s.node.lineno, s.node.col_offset))
