"""A helper whose request's tools are chosen by one of its parameters, called twice over one
conversation with different values of it: facts for PRM204.

    def _stream_response(messages, config, *, use_tools=True):
        tools = TOOLS if use_tools else None                      # chosen by `use_tools`
        return completion(model=config.llm, messages=messages, tools=tools)

    def rag(messages, config):
        working = list(messages)
        _stream_response(working, config)                           # with the tools
        working.extend(tool_results)
        follow_up = [*working, {"role": "system", "content": FOLLOW_UP}]
        _stream_response(follow_up, config, use_tools=False)        # the same conversation, none

The helper sends a request (`tools=` / `functions=` of a call, `bind_tools(X)`) whose tools
value is a conditional expression testing a parameter with a default (`X if use_tools else
None`), or a local assigned such an expression, or assigned in an `if` on that parameter. A
function of the module calls the helper (by name, or `self.` / `cls.` for a method) twice with
the same conversation as its first argument (one name, or a list display that spreads it, also
through a local: `follow_up = [*working, note]`) and a different value of the parameter (a
keyword constant, or the default when it is not given), the second call able to follow the first
(not the other branch of the same `if`). The two requests of that conversation are then sent
with other tool definitions.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from .module import statements
from .sent_calls import branch_paths, exclusive
from .walk import own_nodes, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_TOOL_KEYWORDS = ("tools", "functions")


@dataclass
class SwitchedHelper:
    """`node`: where the helper's tools are chosen by `param` (reported); `send`: the helper's
    request; `helper`: its name; `first`, `second`: the two calls of `caller` over one
    conversation, with `param` as `first_value` and `second_value` (source text)."""

    node: ast.AST
    send: ast.Call
    helper: str
    param: str
    first: ast.Call
    second: ast.Call
    first_value: str
    second_value: str
    caller: str


def _defaults(func) -> dict[str, str]:
    """parameter -> the source text of its constant default."""
    args = func.args
    out = {}
    positional = [*args.posonlyargs, *args.args]
    for a, d in zip(positional[len(positional) - len(args.defaults):], args.defaults):
        if isinstance(d, ast.Constant):
            out[a.arg] = ast.unparse(d)
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        if isinstance(d, ast.Constant):
            out[a.arg] = ast.unparse(d)
    return out


def _reads(expr, names) -> str | None:
    return next((n.id for n in subtree(expr) if isinstance(n, ast.Name) and n.id in names), None)


def _chooser(func, defaults) -> tuple[ast.AST, ast.Call, str] | None:
    """(where the tools are chosen, the request, the parameter) of the helper, or None."""
    own = own_nodes(func)
    parents = None  # (id of a node -> its parent: made when a name's assignment is looked at)
    for call in sorted((n for n in own if isinstance(n, ast.Call)), key=lambda c: (c.lineno, c.col_offset)):
        value = next((k.value for k in call.keywords if k.arg in _TOOL_KEYWORDS), None)
        if value is None and isinstance(call.func, ast.Attribute) and call.func.attr == "bind_tools" and call.args:
            value = call.args[0]
        if value is None:
            continue
        if isinstance(value, ast.IfExp) and (param := _reads(value.test, defaults)):
            return value, call, param
        if parents is None:
            parents = {id(c): p for p in own for c in ast.iter_child_nodes(p)}
        if (param := _branch_send(call, own, parents, defaults)) is not None:
            return value, call, param
        if not isinstance(value, ast.Name):
            continue
        for n in own:
            if not (isinstance(n, ast.Assign) and n.lineno <= call.lineno and any(
                    value.id in {x.id for x in subtree(t) if isinstance(x, ast.Name)} for t in n.targets)):
                continue
            if isinstance(n.value, ast.IfExp) and (param := _reads(n.value.test, defaults)):
                return n.value, call, param
            if parents is None:
                parents = {id(c): p for p in own for c in ast.iter_child_nodes(p)}
            at = parents.get(id(n))
            while at is not None:
                if isinstance(at, ast.If) and (param := _reads(at.test, defaults)):
                    return at.test, call, param
                at = parents.get(id(at))
    return None


def _branch_send(call, own, parents, defaults) -> str | None:
    """The parameter that an `if` tests (`if selected_tool is not None:`) when `call`, a request with
    tools, is in that `if`'s body and the function makes the same call (the same callee) outside
    it without those tools (`self.run_llm(messages=m, functions=[one])`, else `self.run_llm(
    messages=m)`); None otherwise."""
    at, inner = parents.get(id(call)), call
    while at is not None and not (isinstance(at, ast.If) and any(inner is b for b in at.body)):
        at, inner = parents.get(id(at)), at
    if at is None or (param := _reads(at.test, defaults)) is None:
        return None
    inside = {id(n) for b in at.body for n in ast.walk(b)}
    callee, tools = ast.unparse(call.func), _tools_text(call)
    if any(isinstance(n, ast.Call) and id(n) not in inside and ast.unparse(n.func) == callee
           and _tools_text(n) != tools for n in own):
        return param
    return None


def _tools_text(call) -> str | None:
    return next((ast.unparse(k.value) for k in call.keywords if k.arg in _TOOL_KEYWORDS), None)


def _item_of(name: str, func) -> str | None:
    """`an item of X` when `name` is the target of a `for` loop of `func` over `X` (never None
    itself when the list holds objects), else None."""
    for n in own_nodes(func):
        if isinstance(n, (ast.For, ast.AsyncFor)) and isinstance(n.target, ast.Name) and n.target.id == name:
            return f"an item of `{ast.unparse(n.iter)}`"
    return None


def _root(arg, binds: dict) -> str | None:
    """The conversation a call's first argument is: a name, or the name a list display spreads
    (directly or through a local assigned one; a local assigned a display that spreads none,
    `chat_history = [prompt]`, is itself)."""
    if isinstance(arg, ast.Name):
        spread = binds.get(arg.id)
        return (_root(spread, {}) or arg.id) if isinstance(spread, ast.List) else arg.id  # ([prompt]: itself)
    if isinstance(arg, ast.List):
        return next((e.value.id for e in arg.elts if isinstance(e, ast.Starred) and isinstance(e.value, ast.Name)),
                    None)
    return None


def _callee(call) -> str | None:
    f = call.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in ("self", "cls"):
        return f.attr
    return None


def find_switched_helpers(module) -> list[SwitchedHelper]:
    """Each helper whose tools a caller switches between two requests of one conversation (see
    the module docstring), one per helper, by line."""
    if "tools" not in module.source and "functions" not in module.source:
        return []
    helpers: dict[str, tuple] = {}
    funcs = [n for n in statements(module.tree) if isinstance(n, _FUNCS)]
    for func in funcs:
        defaults = _defaults(func)
        if defaults and func.name not in helpers:
            found = _chooser(func, defaults)
            if found is not None:
                helpers[func.name] = (func, *found, defaults)
    if not helpers:
        return []
    out, done = [], set()
    for func in funcs:
        own = own_nodes(func)
        calls = sorted((n for n in own if isinstance(n, ast.Call) and _callee(n) in helpers and n.args),
                       key=lambda c: (c.lineno, c.col_offset))
        if len(calls) < 2:
            continue
        binds = {n.targets[0].id: n.value for n in own if isinstance(n, ast.Assign) and len(n.targets) == 1
                 and isinstance(n.targets[0], ast.Name)}
        paths = None
        seen: dict[tuple[str, str], list] = {}
        for call in calls:
            name = _callee(call)
            helper, node, send, param, defaults = helpers[name]
            if helper is func or name in done:
                continue
            root = _root(call.args[0], binds)
            if root is None:
                continue
            given = next((k.value for k in call.keywords if k.arg == param), None)
            item = _item_of(given.id, func) if isinstance(given, ast.Name) and defaults[param] == "None" else None
            if given is not None and not isinstance(given, ast.Constant) and item is None:
                continue
            value = item or (ast.unparse(given) if given is not None else defaults[param])
            paths = paths if paths is not None else branch_paths(func)
            for earlier, earlier_value in seen.get((name, root), ()):
                if earlier_value != value and not exclusive(paths, earlier, call, root):
                    out.append(SwitchedHelper(node, send, name, param, earlier, call, earlier_value, value, func.name))
                    done.add(name)
                    break
            seen.setdefault((name, root), []).append((call, value))
    return sorted(out, key=lambda s: (s.node.lineno, s.node.col_offset))
