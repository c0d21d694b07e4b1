"""A request's tool list changed only when an optional parameter is given: facts for PRM204.

A function that builds the request of a conversation (a dict or a call with `messages=` /
`contents=` / `input=` given the conversation, not a list written in place) from a tool list it
fills first, and that, under an `if` reading only an optional parameter of the function (one
whose default is `None` or `False`: `data_model`, `response_schema`), appends a tool to that list
or removes the tools from the request:

    tool_schemas = [schema(t) for t in tools.values()]
    if data_model is not None:
        tool_schemas.append(schema(data_model_tool))    # or: del kwargs_full["tools"]
    kwargs_full = {"messages": as_messages(turns), "tools": tool_schemas}

The requests that pass the parameter (a structured answer asked for within a chat) go out with
other tool definitions than the rest of the conversation; the next request without it differs
again. A parameter that is itself a tool set (`tools=None`, `extra_tools`) is the caller's tools,
not a switch, and is left out.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from . import anchored
from .module import statements
from .toolsets import no_tool_set, tool_set_named
from .walk import own_nodes, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: Keys and keywords of a request that carry its conversation.
_CONVERSATION_KEYS = ("messages", "contents", "input")
#: The cheap test: a tool list grown, or a request's tools removed, somewhere in the text.
_TEXT = re.compile(r"(?i)tool\w*\.(?:append|extend)\(|\bdel\s+[\w.]+\[\s*[\"']tools[\"']\s*\]"
                   r"|\.pop\(\s*[\"']tools[\"']")


def _holds_text(source: str) -> bool:
    """True when `_TEXT` matches in `source`: each match of its first alternative ends with
    `.append(` or `.extend(` (a name holding "tool" before it, on its line), each of the others
    starts with `del` or `.pop(` and holds a quoted `tool` (`anchored.found`, in lower case)."""
    low = source.lower()
    quoted = '"tool' in low or "'tool" in low
    return anchored.found(_TEXT, source, ("del", ".pop(") if quoted else (), (".append(", ".extend("), None, fold=True)


@dataclass
class OptionTools:
    """`node`: the statement or call that changes the tools (the append, the `del`, the `pop`);
    `option`: the optional parameter the `if` reads; `test`: that `if`'s test; `request`: the dict
    or call that sends the conversation; `target`: the tool list's name, or the request's name
    whose tools are removed; `removed`: True when the tools are removed rather than one added;
    `function`: the function's name."""

    node: ast.AST
    option: str
    test: ast.expr
    request: ast.AST
    target: str
    removed: bool
    function: str


def _optional_params(func) -> set[str]:
    """The parameters of `func` whose default is `None` or `False`, tool sets left out."""
    a = func.args
    pos = a.posonlyargs + a.args
    pairs = list(zip(pos[len(pos) - len(a.defaults):], a.defaults)) + \
        [(p, d) for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
    return {p.arg for p, d in pairs if isinstance(d, ast.Constant) and d.value in (None, False)
            and not tool_set_named(p.arg)}


def _reads_only(test, names: set[str]) -> str | None:
    """The one parameter of `names` a test reads when it reads no other name (`data_model is not
    None`, `if schema`), else None."""
    read = {n.id for n in subtree(test) if isinstance(n, ast.Name)}
    return next(iter(read)) if len(read) == 1 and read <= names else None


def _conversation_request(own) -> ast.AST | None:
    """The first (`own` in source order) dict display or call of the function that is given a conversation under a
    conversation key, not as a list written in place (a one-shot request)."""
    for n in own:
        if isinstance(n, ast.Dict):
            pairs = [(k.value, v) for k, v in zip(n.keys, n.values) if isinstance(k, ast.Constant)]
        elif isinstance(n, ast.Call):
            pairs = [(k.arg, k.value) for k in n.keywords]
        else:
            continue
        if any(k in _CONVERSATION_KEYS and not isinstance(v, (ast.List, ast.Tuple, ast.Constant, ast.JoinedStr))
               for k, v in pairs):
            return n
    return None


def _sent_as_tools(own) -> tuple[set[str], set[str]]:
    """The local names sent as a request's tools (`{"tools": tool_specs}`, `d["tools"] = x`,
    `tools=x`), and the names of the dicts that are given tools (`kwargs_full`)."""
    lists, holders = set(), set()
    for n in own:
        if isinstance(n, ast.Dict):
            for k, v in zip(n.keys, n.values):
                if isinstance(k, ast.Constant) and k.value == "tools" and isinstance(v, ast.Name):
                    lists.add(v.id)
        elif isinstance(n, ast.Call):
            lists.update(k.value.id for k in n.keywords if k.arg == "tools" and isinstance(k.value, ast.Name))
        elif isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) and t.slice.value == "tools" \
                        and isinstance(t.value, ast.Name):
                    holders.add(t.value.id)
                    if isinstance(n.value, ast.Name):
                        lists.add(n.value.id)
    for n in own:  # a dict display with a "tools" key assigned to a name
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Dict) and any(
                isinstance(k, ast.Constant) and k.value == "tools" for k in n.value.keys):
            holders.update(t.id for t in n.targets if isinstance(t, ast.Name))
        if isinstance(n, ast.AnnAssign) and isinstance(n.value, ast.Dict) and isinstance(n.target, ast.Name) \
                and any(isinstance(k, ast.Constant) and k.value == "tools" for k in n.value.keys):
            holders.add(n.target.id)
    return lists, holders


def filled_tool_list(own, name: str) -> bool:
    """True when the function assigns `name` a tool list that is not empty (a comprehension, a
    call, a display with items), or grows one it started empty in a loop."""
    values = [n.value for n in own if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None
              and any(isinstance(t, ast.Name) and t.id == name for t in
                      (n.targets if isinstance(n, ast.Assign) else [n.target]))]
    if any(not no_tool_set(v) for v in values):
        return True
    return any(isinstance(n, (ast.For, ast.AsyncFor)) and any(
        _change(c, {name}, set()) for c in subtree(n)) for n in own)


def _change(node, lists: set[str], holders: set[str]) -> tuple[str, bool] | None:
    """(target, removed) when `node` grows a tool list (`tool_schemas.append(...)`) or removes
    the tools of a request dict (`del kwargs["tools"]`, `kwargs.pop("tools")`)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
        name, verb = node.func.value.id, node.func.attr
        if verb in ("append", "extend") and name in lists:
            return name, False
        if verb == "pop" and name in holders and node.args and isinstance(node.args[0], ast.Constant) \
                and node.args[0].value == "tools":
            return name, True
    if isinstance(node, ast.Delete):
        for t in node.targets:
            if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in holders \
                    and isinstance(t.slice, ast.Constant) and t.slice.value == "tools":
                return t.value.id, True
    return None


def find_option_tools(module) -> list[OptionTools]:
    """The functions that change the tools of a conversation's request only when an optional
    parameter is given (see the module docstring), one per function (its first change), in
    source order."""
    out: list[OptionTools] = []
    if not _holds_text(module.source):
        return out
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        options = _optional_params(func)
        if not options:
            continue
        own = sorted(own_nodes(func, body_only=True), key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))
        request = _conversation_request(own)
        if request is None:
            continue
        lists, holders = _sent_as_tools(own)
        lists = {name for name in lists if tool_set_named(name) and filled_tool_list(own, name)}
        if not lists and not holders:
            continue
        found = None
        for node in (n for n in own if isinstance(n, ast.If)):
            option = _reads_only(node.test, options)
            if option is None:
                continue
            inside = [c for s in node.body for c in subtree(s) if not isinstance(c, _FUNCS)]
            for c in inside:
                hit = _change(c, lists, holders)
                if hit is not None and (found is None or (c.lineno, c.col_offset) < (found.node.lineno, found.node.col_offset)):
                    found = OptionTools(c, option, node.test, request, hit[0], hit[1], func.name)
                    break
        if found is not None:
            out.append(found)
    return sorted(out, key=lambda f: (f.node.lineno, f.node.col_offset))
