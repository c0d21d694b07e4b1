"""The follow-up request after a tool call sent without the tools: facts for PRM204.

A function sends a request with tools, runs the tool calls of its answer, and sends the
conversation again for the final answer, this time without the tools:

    api_params = {"model": model, "messages": messages}
    if tools:
        api_params["tools"] = tools
    res = client.chat(**api_params)
    if res["message"].get("tool_calls"):
        ...                                     # the tools run, the results are appended
        final = api_params.copy()
        final["messages"] = clean_messages
        del final["tools"]
        client.chat(**final)

The tool definitions come first in the cached prefix (OpenAI, Anthropic; the rendered prompt of a
local engine), so the follow-up shares no prefix with the request it continues and reads the
whole conversation uncached, once per turn that calls a tool.

Read in one function: two requests of the same callee (`sent_calls.is_send`), the earlier sending
tools (a non-empty `tools=` / `functions=` keyword, or a `**payload` dict of the function that
gets a `"tools"` / `"functions"` key), the later one inside an `if` whose test reads the tool
calls of an answer (its text names `tool_calls`) that the earlier one is not in, able to follow
it in one pass (`sent_calls.exclusive`), and sent with no tools: no such keyword (or `None` /
`[]`) and no `**` of keys not read here (the function's own `**kwargs`), a payload whose keys are
all known (a display, a copy of a known payload, keys written or deleted by statements of the
function) without a tools key. A mapping of keys not read that the earlier request unpacks
beside the tool list it writes as a keyword (`complete(messages=m, tools=T, **CONFIG)`) holds no
such key (Python rejects a keyword given twice), so the follow-up that unpacks it unchanged
(`complete(messages=m, **CONFIG)`) is sent without tools. The later request's message list is a name the function grows
(`clean_messages.append(...)`) or the earlier request's own list: the conversation, not a new
one-off prompt.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from .module import statements
from .sent_calls import branch_paths, exclusive, is_send, sending_functions
from .walk import subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_TOOL_KEYS = ("tools", "functions")
_CONVERSATION_KEYS = ("messages", "input", "contents")
_GROW = {"append", "extend", "insert"}
_COPIES = {"copy", "deepcopy"}
#: Methods that change a dict in place.
_MUTATORS = {"update", "setdefault", "pop", "popitem", "clear", "__setitem__"}


@dataclass
class ToolFollowup:
    """`node`: where it is reported (the statement that leaves the tools out of the follow-up's
    `**payload`: the deletion of its tools key, else its binding; the follow-up request itself when
    it is sent with keywords); `request`: the follow-up request sent without tools; `earlier`: the
    request sent with them; `test`: the `if` test that reads the tool calls; `function`: the
    function's name."""

    node: ast.AST
    request: ast.Call
    earlier: ast.Call
    test: ast.expr
    function: str


def _pos(node) -> tuple[int, int]:
    return node.lineno, node.col_offset


def _calls_with_tests(func) -> list[tuple[ast.Call, tuple[ast.If, ...]]]:
    """The calls of a function's own body (nested functions and classes left out), each with the
    `if` statements whose body or else holds it, outermost first."""
    out: list = []
    todo: list = [(s, ()) for s in func.body]
    while todo:
        node, ifs = todo.pop()
        if isinstance(node, (*_FUNCS, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Call):
            out.append((node, ifs))
        if isinstance(node, ast.If):
            todo.append((node.test, ifs))
            todo.extend((c, ifs + (node,)) for c in [*node.body, *node.orelse])
            continue
        todo.extend((c, ifs) for c in ast.iter_child_nodes(node))
    return sorted(out, key=lambda pair: _pos(pair[0]))


class _Payloads:
    """The keys of the function's dicts as its statements write them, read in source order up to
    a position: `None` when not all are known."""

    def __init__(self, func):
        self.events: list[tuple[tuple[int, int], str, str, object, ast.AST]] = []
        for node in ast.walk(func):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                t = node.targets[0]
                if isinstance(t, ast.Name):
                    self.events.append((_pos(node), t.id, "bind", node.value, node))
                elif isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) \
                        and isinstance(t.slice, ast.Constant) and isinstance(t.slice.value, str):
                    self.events.append((_pos(node), t.value.id, "set", (t.slice.value, node.value), node))
            elif isinstance(node, ast.Delete):
                for t in node.targets:
                    if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) \
                            and isinstance(t.slice, ast.Constant):
                        self.events.append((_pos(node), t.value.id, "del", t.slice.value, node))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and isinstance(node.func.value, ast.Name):
                name, attr = node.func.value.id, node.func.attr
                if attr == "pop" and node.args and isinstance(node.args[0], ast.Constant):
                    self.events.append((_pos(node), name, "del", node.args[0].value, node))
                elif attr in ("update", "setdefault"):
                    self.events.append((_pos(node), name, "unknown", None, node))
        self.events.sort(key=lambda e: e[0])

    def keys(self, name: str, before: tuple[int, int], depth: int = 0) -> dict[str, ast.expr] | None:
        """The keys of the dict named `name` just before `before`, each with its value's
        expression, or None when they are not all known."""
        if depth > 4:
            return None
        keys: dict | None = None
        for pos, target, what, value, _ in self.events:
            if pos >= before:
                break
            if target != name:
                continue
            if what == "bind":
                keys = self._value(value, pos, depth)
            elif keys is None:
                continue
            elif what == "set":
                keys[value[0]] = value[1]
            elif what == "del":
                keys.pop(value, None)
            else:
                keys = None
        return keys

    def left_out(self, name: str, before: tuple[int, int]) -> ast.AST | None:
        """The statement that leaves the tools out of the dict named `name` as it is just before
        `before`: the last that deletes a tools key, else the one that binds the dict."""
        where = None
        for pos, target, what, value, node in self.events:
            if pos >= before:
                break
            if target == name and (what == "bind" or what == "del" and value in _TOOL_KEYS):
                where = node
        return where

    def _value(self, value, pos, depth) -> dict | None:
        if isinstance(value, ast.Dict):
            out: dict = {}
            for k, v in zip(value.keys, value.values):
                if k is None:
                    inner = self.keys(v.id, pos, depth + 1) if isinstance(v, ast.Name) else None
                    if inner is None:
                        return None
                    out.update(inner)
                elif isinstance(k, ast.Constant) and isinstance(k.value, str):
                    out[k.value] = v
                else:
                    return None
            return out
        if isinstance(value, ast.Call):
            f = value.func
            if isinstance(f, ast.Attribute) and f.attr in _COPIES and isinstance(f.value, ast.Name) \
                    and not value.args:
                known = self.keys(f.value.id, pos, depth + 1)
                return dict(known) if known is not None else None
            if isinstance(f, ast.Name) and f.id == "dict" and not value.keywords and len(value.args) == 1 \
                    and isinstance(value.args[0], ast.Name):
                known = self.keys(value.args[0].id, pos, depth + 1)
                return dict(known) if known is not None else None
        return None


def _empty(value) -> bool:
    return isinstance(value, ast.Constant) and value.value is None or \
        isinstance(value, (ast.List, ast.Tuple, ast.Dict)) and not (value.elts if hasattr(value, "elts")
                                                                     else value.keys)


def _options(call: ast.Call, payloads: _Payloads, toolless: frozenset = frozenset()) -> dict[str, ast.expr] | None:
    """The options a call is sent with (its keywords and the keys of the `**` dicts it unpacks),
    or None when a `**` dict's keys are not all known. `toolless`: names of `**` dicts whose keys
    are not known but are known to hold no tools (`_toolless_spreads`): they add nothing here."""
    out: dict = {}
    for k in call.keywords:
        if k.arg is not None:
            out[k.arg] = k.value
            continue
        if not isinstance(k.value, ast.Name):
            return None
        if k.value.id in toolless:
            continue
        keys = payloads.keys(k.value.id, _pos(call))
        if keys is None:
            return None
        out.update(keys)
    return out


def _toolless_spreads(func, earlier: ast.Call) -> frozenset:
    """The names of the mappings the earlier request unpacks (`**TALK_CONFIG`) beside a tool list
    it writes as a keyword (`tools=[...]`), that no statement of `func` binds again or changes
    (an import or a parameter: not assigned, no `X[k] = ...`, no `X.update(...)`). Python
    rejects a keyword given twice (a `TypeError` at the call), so such a mapping holds no key of
    that tool list, and a later request that unpacks it unchanged gets no tools from it. Empty
    when the earlier request writes no tool keyword, or both `tools` and `functions`."""
    written = [k.arg for k in earlier.keywords if k.arg in _TOOL_KEYS]
    if len(written) != 1:
        return frozenset()
    spread = {k.value.id for k in earlier.keywords if k.arg is None and isinstance(k.value, ast.Name)}
    if not spread:
        return frozenset()
    changed: set[str] = set()
    for node in ast.walk(func):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Delete, ast.NamedExpr)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for t in targets:
                base = t.value if isinstance(t, (ast.Subscript, ast.Attribute)) else t
                if isinstance(base, ast.Name):
                    changed.add(base.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.attr in _MUTATORS:
            changed.add(node.func.value.id)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            changed.update(n.id for n in ast.walk(node.target) if isinstance(n, ast.Name))
    return frozenset(spread - changed)


def _sends_tools(call: ast.Call, payloads: _Payloads) -> bool:
    """True when a call passes a tool list that is not empty, as a keyword or a key of a `**` dict
    of the function (written in its display or by a statement, under a condition or not)."""
    if any(k.arg in _TOOL_KEYS and not _empty(k.value) for k in call.keywords):
        return True
    for k in call.keywords:
        if k.arg is None and isinstance(k.value, ast.Name):
            keys = payloads.keys(k.value.id, _pos(call))
            if keys and any(key in keys and not _empty(keys[key]) for key in _TOOL_KEYS):
                return True
    return False


def _grown(func) -> set[str]:
    return {n.func.value.id for n in ast.walk(func) if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute) and n.func.attr in _GROW and isinstance(n.func.value, ast.Name)} | \
        {n.target.id for n in ast.walk(func) if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)}


def _conversation(call: ast.Call, options: dict) -> str | None:
    """The source text of the message list a request sends (its first argument, or its
    `messages=` / `input=` / `contents=` option), or None."""
    sent = next((options[k] for k in _CONVERSATION_KEYS if k in options), None)
    if sent is None and call.args:
        sent = call.args[0]
    return ast.unparse(sent) if sent is not None else None


def _reads_tool_calls(test: ast.expr) -> bool:
    return "tool_call" in ast.unparse(test)


def _followup(func, senders: set[str]) -> ToolFollowup | None:
    calls = _calls_with_tests(func)
    if len(calls) < 2:
        return None
    sends = [(c, ifs) for c, ifs in calls if (c.args or c.keywords) and is_send(c, senders)]
    if not sends:
        return None
    payloads = _Payloads(func)
    earlier_ones = [c for c, _ in sends if _sends_tools(c, payloads)]
    if not earlier_ones:
        return None
    grown, paths = _grown(func), None
    for call, ifs in sends:
        gates = [i for i in ifs if _reads_tool_calls(i.test)]
        if not gates:
            continue
        callee = ast.unparse(call.func)
        for earlier in reversed(earlier_ones):
            if _pos(earlier) >= _pos(gates[0]) or ast.unparse(earlier.func) != callee:
                continue
            options = _options(call, payloads, _toolless_spreads(func, earlier))
            if options is None or any(k in options and not _empty(options[k]) for k in _TOOL_KEYS):
                continue
            sent = _conversation(call, options)
            earlier_sent = _conversation(earlier, _options(earlier, payloads) or {})
            if sent is None or sent not in grown and sent != earlier_sent:
                continue
            paths = paths if paths is not None else branch_paths(func)
            if exclusive(paths, earlier, call, sent):
                continue
            payload = next((k.value.id for k in call.keywords if k.arg is None), None)
            node = payloads.left_out(payload, _pos(call)) if payload is not None else None
            return ToolFollowup(node or call, call, earlier, gates[-1].test, func.name)
    return None


def find_tool_followups(module) -> list[ToolFollowup]:
    """The follow-up requests after a tool call sent without the tools of the request they
    continue (module docstring), at most one per function, in source order."""
    source = module.source
    if "tool_call" not in source or "tools" not in source and "functions" not in source:
        return []
    out, senders = [], None
    rows = [i + 1 for i, row in enumerate(source.splitlines()) if "tool_call" in row]
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        end = func.end_lineno or func.lineno
        if not any(func.lineno <= row <= end for row in rows):
            continue
        if not any(type(n) is ast.If and _reads_tool_calls(n.test) for n in subtree(func)):
            continue  # (no `if` of the function reads the tool calls: `_followup` finds no gate)
        if senders is None:
            senders = sending_functions(module)
        found = _followup(func, senders)
        if found is not None:
            out.append(found)
    return sorted(out, key=lambda f: _pos(f.node))
