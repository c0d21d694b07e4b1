"""Requests of one conversation sent with other cache-key options than the requests before them:
facts for PRM204.

A tool loop often ends with a wrap-up request (the budget of steps is spent, a tool asked to
stop, the answer must be structured) that re-sends the whole conversation with other options
than its steps: without the tool definitions, with a tools-off switch, with another
`tool_choice`, with a response format added or removed. Two shapes are read, in one function:

- `sequence`: two requests of the same callee that send the same message list, a local name the
  function grows (`messages.append(...)`; the later one may send `messages + [...]`), the later
  able to follow the earlier in one pass (`sent_calls.exclusive`), where the later one
  leaves out the tools the earlier one passed (no `tools=` / `functions=` keyword and no
  `**options` that could carry one; explicit `tools=None` is `tool_switches.find_dropped_tools`),
  passes a switch named for tools as False (`tools_enabled=False`) that the earlier did not,
  adds or removes `response_format` (`text_format`, `output_format`), or passes another
  constant `tool_choice` with the same tools.
- `recursion`: a function that sends a request whose `tool_choice` / `tools` / `response_format`
  is one of its parameters, grows a conversation, and calls itself for the next step with that
  parameter bound to another constant (`prompt, tool_choice = final, 'none'`, then
  `self._call(prompt, ..., tool_choice)`; or the constant written in the call); or whose request
  spreads an options dict (`create(messages=chat_history, **parameters)`) into which it writes
  another constant `tool_choice` / `function_call` / tools / response format after the request
  (`parameters["function_call"] = "none"` once a limit is reached), then calls itself with it
  (`self.query(chat_history, **parameters)`).

The tools come first in the cached prefix (OpenAI, Anthropic), a structured-output schema is put
before the system message (OpenAI) and is part of the cache key (Anthropic), and a change of
`tool_choice` invalidates the cached messages on Anthropic: the changed request reads none of the
conversation's cached prefix (its messages, on Anthropic, for `tool_choice`).
"""
from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass

from .flow.binding_syntax import param_names
from .module import statements
from .sent_calls import branch_paths, exclusive, is_send, sending_functions
from .walk import own_nodes

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_GROW = {"append", "extend", "insert"}
_TOOL_KEYWORDS = ("tools", "functions")
_FORMAT_KEYWORDS = ("response_format", "text_format", "output_format")
_CONVERSATION_KEYWORDS = ("messages", "input", "contents")
#: A keyword (or assignment) whose name holds an option read here (`tools=`, `tool_choice=`,
#: `tools_enabled=`, `response_format=`, `functions=`): the finders read no module without one.
_GATE = re.compile(r"(?:tool|_format|functions)\w*\s*=[^=]|(?:function_call|tool_choice)[\"']\]\s*=[^=]")
#: Keys of an options dict written for the next step (`parameters["function_call"] = "none"`) -> the option.
_SPREAD_KEYS = {"tool_choice": "tool_choice", "function_call": "tool_choice", "tools": "tools",
                "functions": "tools", "response_format": "response_format"}


@dataclass
class OptionChange:
    """`node`: where it is reported (the later request, the keyword value that changes, or the
    assignment that binds the next step's option); `request`: the changed request (the recursive
    call for `recursion`); `earlier`: the request sent with the loop's options; `option`:
    "tools", "tool_choice" or "response_format"; `how`: "omitted" (tools left out), "off" (a
    switch named for tools given False), "added" / "removed" (a response format), "changed" (another
    constant); `shape`: "sequence" or "recursion"; `text`: the changed value's source text, or "";
    `function`: the function's name."""

    node: ast.AST
    request: ast.Call
    earlier: ast.Call
    option: str
    how: str
    shape: str
    text: str
    function: str


def _keyword(call: ast.Call, names) -> ast.keyword | None:
    return next((k for k in call.keywords if k.arg in names), None)


def _conversation(call: ast.Call) -> str | None:
    """The local name of the message list a request sends: its first argument or its `messages=`
    (`input=`, `contents=`) keyword, a plain name or that name plus more (`messages + [final]`)."""
    sent = call.args[0] if call.args else next((k.value for k in call.keywords
                                                 if k.arg in _CONVERSATION_KEYWORDS), None)
    if isinstance(sent, ast.BinOp) and isinstance(sent.op, ast.Add):
        sent = sent.left
    return sent.id if isinstance(sent, ast.Name) else None


def _empty(value) -> bool:
    """True for `None`, `[]` or `()`."""
    return isinstance(value, ast.Constant) and value.value is None or \
        isinstance(value, (ast.List, ast.Tuple)) and not value.elts


def _off_switch(call: ast.Call) -> ast.keyword | None:
    """A keyword named for tools (not the tool list itself) given False or None
    (`tools_enabled=False`, `use_tools=False`)."""
    return next((k for k in call.keywords if k.arg and "tool" in k.arg.lower() and k.arg not in _TOOL_KEYWORDS
                 and k.arg != "tool_choice" and isinstance(k.value, ast.Constant)
                 and k.value.value in (False, None)), None)


def _tools_default(module) -> set[str]:
    """The names of the module's functions that give a tools parameter a default other than
    `None` / `[]` (called without it, they still send tools)."""
    out = set()
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        a = func.args
        positional = [*a.posonlyargs, *a.args]
        pairs = list(zip(positional[len(positional) - len(a.defaults):], a.defaults))
        pairs += [(p, d) for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
        if any(p.arg in _TOOL_KEYWORDS and not _empty(d) for p, d in pairs):
            out.add(func.name)
    return out


def _last(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _compare(earlier: ast.Call, later: ast.Call, defaults: set[str]):
    """(option, how, reported node, text) of the first option the later request changes, or None."""
    starred = any(k.arg is None for k in later.keywords)
    tools_e, tools_l = _keyword(earlier, _TOOL_KEYWORDS), _keyword(later, _TOOL_KEYWORDS)
    if tools_e is not None and not _empty(tools_e.value) and tools_l is None and not starred \
            and _last(later) not in defaults:
        return "tools", "omitted", later, ""
    off = _off_switch(later)
    if off is not None and _off_switch(earlier) is None and (_keyword(earlier, (off.arg,)) is None
                                                             or _truthy(_keyword(earlier, (off.arg,)).value)):
        return "tools", "off", off.value, f"{off.arg}={ast.unparse(off.value)}"
    same_tools = (tools_e is None) == (tools_l is None) and (
        tools_e is None or ast.unparse(tools_e.value) == ast.unparse(tools_l.value))
    if not same_tools:
        return None
    format_e, format_l = _keyword(earlier, _FORMAT_KEYWORDS), _keyword(later, _FORMAT_KEYWORDS)
    if format_l is not None and format_e is None and not any(k.arg is None for k in earlier.keywords) \
            and not _empty(format_l.value):
        return "response_format", "added", format_l.value, f"{format_l.arg}={ast.unparse(format_l.value)}"
    if format_e is not None and format_l is None and not starred and not _empty(format_e.value):
        return "response_format", "removed", later, format_e.arg
    choice_e, choice_l = _keyword(earlier, ("tool_choice",)), _keyword(later, ("tool_choice",))
    if choice_e is not None and choice_l is not None and _constant(choice_e.value) and _constant(choice_l.value) \
            and ast.unparse(choice_e.value) != ast.unparse(choice_l.value):
        return "tool_choice", "changed", choice_l.value, f"tool_choice={ast.unparse(choice_l.value)}"
    return None


def _truthy(value) -> bool:
    return isinstance(value, ast.Constant) and bool(value.value)


def _constant(value) -> bool:
    """True for a literal: a constant, or a dict / list of literals (`{"type": "auto"}`)."""
    if isinstance(value, ast.Constant):
        return True
    if isinstance(value, ast.Dict):
        return all(k is not None and _constant(k) for k in value.keys) and all(_constant(v) for v in value.values)
    if isinstance(value, (ast.List, ast.Tuple)):
        return all(_constant(e) for e in value.elts)
    return False


def _read(own) -> tuple[set[str], bool, list[ast.Call]]:
    """One pass over a function's nodes: the local names it grows (`messages.append(...)`,
    `messages += [...]`), whether it grows any list (`self.hist += results` too), and its calls
    that pass an option read here (a keyword named for tools, `tool_choice`, a response format)."""
    grown, grew, calls = set(), False, []
    for n in own:
        t = type(n)
        if t is ast.Call:
            f = n.func
            if type(f) is ast.Attribute and f.attr in _GROW:
                grew = True
                if type(f.value) is ast.Name:
                    grown.add(f.value.id)
            if n.keywords and any(k.arg and ("tool" in k.arg or k.arg in _FORMAT_KEYWORDS or k.arg == "functions")
                                  for k in n.keywords):
                calls.append(n)
        elif t is ast.AugAssign and type(n.op) is ast.Add:
            grew = True
            if type(n.target) is ast.Name:
                grown.add(n.target.id)
    return grown, grew, calls


def _sequence(module, func, own, grown: set[str], state: dict) -> OptionChange | None:
    """The first `sequence` change of the function (module docstring), or None."""
    keyed: dict[tuple[str, str], list[ast.Call]] = {}
    for call in sorted((n for n in own if type(n) is ast.Call and (n.args or n.keywords)
                        and _conversation(n) in grown), key=_position):
        if not _last(call).lstrip("_")[:1].isupper():
            keyed.setdefault((ast.unparse(call.func), _conversation(call)), []).append(call)
    for key, calls in keyed.items():
        if len(calls) < 2:
            continue
        found = _first_change(module, func, calls, key[1], state)
        if found is None:
            continue
        if "senders" not in state:
            state["senders"] = sending_functions(module)
        if is_send(calls[0], state["senders"]) or any(_keyword(c, _TOOL_KEYWORDS) or _off_switch(c) for c in calls):
            return found  # named as a request, or given tools: known to send
    return None


def _first_change(module, func, calls: list[ast.Call], sent: str, state: dict) -> OptionChange | None:
    """The first call of `calls` (one callee, one conversation, in source order) that changes
    an option of an earlier one it can follow in one pass."""
    paths = None
    for i, call in enumerate(calls):
        for earlier in calls[:i]:
            if "defaults" not in state and _keyword(earlier, _TOOL_KEYWORDS) is not None:
                state["defaults"] = _tools_default(module)
            found = _compare(earlier, call, state.get("defaults", ()))
            if found is None:
                continue
            paths = paths if paths is not None else branch_paths(func)
            if exclusive(paths, earlier, call, sent):
                continue
            option, how, node, text = found
            return OptionChange(node, call, earlier, option, how, "sequence", text, func.name)
    return None


def _positional(func) -> list[ast.arg]:
    """The positional parameters of `func` (positional-only, then regular), as defaults pair with them."""
    return [*func.args.posonlyargs, *func.args.args]


def _default(func, name: str):
    """The default value of the parameter `name`, or None."""
    a = func.args
    positional = _positional(func)
    for p, d in zip(positional[len(positional) - len(a.defaults):], a.defaults):
        if p.arg == name:
            return d
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        if p.arg == name:
            return d
    return None


def _recursion(func, own, optioned: list[ast.Call]) -> OptionChange | None:
    """The first `recursion` change of a function that grows a list (module docstring), or None."""
    names = set(param_names(func))
    request = option = param = None
    for node in sorted((n for n in optioned if _keyword(n, _CONVERSATION_KEYWORDS) is not None), key=_position):
        if _last(node) == func.name:
            continue  # the recursive call itself: the next step, not the request that sent this one
        for k in node.keywords:
            if k.arg in (*_TOOL_KEYWORDS, "tool_choice", *_FORMAT_KEYWORDS) and isinstance(k.value, ast.Name) \
                    and k.value.id in names:
                request, option, param = node, k.arg, k.value.id
                break
        if request is not None:
            break
    if request is None:
        return None
    default = _default(func, param)
    default_text = ast.unparse(default) if default is not None else None
    positional = [p.arg for p in _positional(func)]
    for node in sorted((n for n in own if isinstance(n, ast.Call) and _last(n) == func.name), key=_position):
        f = node.func
        if isinstance(f, ast.Attribute):
            if not (isinstance(f.value, ast.Name) and f.value.id in ("self", "cls")):
                continue
            slots = positional[1:]
        elif isinstance(f, ast.Name):
            slots = positional
        else:
            continue
        value = next((k.value for k in node.keywords if k.arg == param), None)
        if value is None and param in slots and slots.index(param) < len(node.args):
            value = node.args[slots.index(param)]
            if isinstance(value, ast.Starred):
                continue
        if value is None:
            continue
        if _constant(value) and ast.unparse(value) != default_text:
            return OptionChange(value, node, request, _option(option), "changed", "recursion",
                                ast.unparse(value), func.name)
        if isinstance(value, ast.Name):
            bound = _bound_constant(own, value.id, default_text)
            if bound is not None and _position(bound[0]) > _position(request):
                # (bound before the request, it is this step's value too: every step is sent with it)
                stmt, constant = bound
                return OptionChange(stmt, node, request, _option(option), "changed", "recursion",
                                    f"{value.id}={ast.unparse(constant)}", func.name)
    return None


def _spread_recursion(func, own) -> OptionChange | None:
    """The `recursion` change of a function whose request spreads an options dict it then writes
    another constant option into before calling itself with it (module docstring), or None."""
    calls = sorted((n for n in own if isinstance(n, ast.Call)), key=_position)
    for request in calls:
        spread = {k.value.id for k in request.keywords if k.arg is None and isinstance(k.value, ast.Name)}
        if not spread or _last(request) == func.name or _keyword(request, _CONVERSATION_KEYWORDS) is None:
            continue
        for write in sorted((n for n in own if isinstance(n, ast.Assign) and len(n.targets) == 1), key=_position):
            t = write.targets[0]
            if not (isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in spread
                    and isinstance(t.slice, ast.Constant) and t.slice.value in _SPREAD_KEYS
                    and _constant(write.value) and _position(write) > _position(request)):
                continue
            again = next((c for c in calls if _last(c) == func.name and _position(c) > _position(write)
                          and (not isinstance(c.func, ast.Attribute) or isinstance(c.func.value, ast.Name)
                               and c.func.value.id in ("self", "cls"))
                          and any(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == t.value.id
                                  for k in c.keywords)), None)
            if again is not None:
                text = f"{t.value.id}[{ast.unparse(t.slice)}] = {ast.unparse(write.value)}"
                return OptionChange(write, again, request, _SPREAD_KEYS[t.slice.value], "changed", "recursion",
                                    text, func.name)
    return None


def _position(node) -> tuple[int, int]:
    return node.lineno, node.col_offset


def _option(keyword: str) -> str:
    return "tools" if keyword in _TOOL_KEYWORDS else "response_format" if keyword in _FORMAT_KEYWORDS else keyword


def _bound_constant(own, name: str, default_text: str | None):
    """The first assignment of the function that binds `name` to a literal other than
    `default_text` (`tool_choice = 'none'`, `prompt, tool_choice = final, 'none'`), as
    (statement, literal), or None."""
    for node in sorted((n for n in own if isinstance(n, ast.Assign)), key=_position):
        for target in node.targets:
            pairs = [(target, node.value)]
            if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple) \
                    and len(target.elts) == len(node.value.elts):
                pairs = list(zip(target.elts, node.value.elts))
            for t, v in pairs:
                if isinstance(t, ast.Name) and t.id == name and _constant(v) and ast.unparse(v) != default_text:
                    return node, v
    return None


def _gate_rows(source: str) -> list[int]:
    """The 1-based rows of the source text where an option read here is written (`_GATE`), in order."""
    rows, row, at = [], 1, 0
    if "tool" not in source and "_format" not in source and "function" not in source:
        return rows
    for match in _GATE.finditer(source):
        row += source.count("\n", at, match.start())
        at = match.start()
        if not rows or rows[-1] != row:
            rows.append(row)
    return rows


def find_option_changes(module) -> list[OptionChange]:
    """The requests of one conversation sent with other cache-key options than the requests
    before them (module docstring), at most one per function, in source order."""
    rows = _gate_rows(module.source)
    if not rows:
        return []
    out, state = [], {}
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        i = bisect.bisect_left(rows, func.lineno)
        if i == len(rows) or rows[i] > (func.end_lineno or func.lineno):
            continue  # no option read here written in the function's text: its nodes are not walked
        own = own_nodes(func)
        grown, grew, optioned = _read(own)
        if not grew:
            continue  # no conversation grown
        found = ((_sequence(module, func, own, grown, state) if grown else None) or _recursion(func, own, optioned)
                 if optioned else None) or _spread_recursion(func, own)
        if found is not None:
            out.append(found)
    return sorted(out, key=lambda c: (c.node.lineno, c.node.col_offset))
