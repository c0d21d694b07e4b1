"""One conversation sent through runnables bound to different tools: facts for PRM204.

A loop that re-sends the conversation it grows (`messages.append(reply)` in the loop, the list
passed as the first argument of every request) through model runnables bound to different tool
lists changes the tool definitions, the first block of the cached prefix, between two requests
of that conversation: the whole prefix (tools, system prompt, every earlier turn) is processed
uncached again at each switch. Shapes:

- one request whose receiver is chosen in the loop (`chain = self.final_chain if last else
  self.any_chain`, or assignments in the branches of an `if`), then `chain.invoke(messages)`;
- two requests of the loop with different receivers (`chain.ainvoke(messages)` on most steps,
  `final_chain.ainvoke(messages)` on the last).

A receiver's tools are read where it is made: a call with a `tools=[...]` keyword
(`create_extractor(model, tools=[think, critique])`), `llm.bind_tools([...])` or
`llm.with_structured_output(Schema)` (one tool), assigned to a local name, to an attribute of
the class (`self.final_chain = ...` in any method) or returned in a tuple by a method of the
class (`any_chain, final_chain = self._get_extractors(...)`). Receivers whose tools are not read
there are left out; only two different known lists are a switch.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from .anchored import found
from .module import self_attr
from .module import statements
from .sent_calls import branch_paths, exclusive, is_send, sending_functions
from .text_gates import holds_any
from .walk import block_statements, own_nodes as _own, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SENDS = {"invoke", "ainvoke", "stream", "astream"}
_GROW = {"append", "extend", "insert"}


@dataclass
class ToolSwitch:
    """`node`: the first request of the loop that sends the conversation (its line is reported);
    `others`: the other requests or the assignments that choose a receiver; `lists`: the
    different tool lists (source text of their items), in order of first use; `function`: the
    function's name."""

    node: ast.Call
    others: list[ast.AST]
    lists: list[tuple[str, ...]]
    function: str



def _tools_of(call) -> tuple[str, ...] | None:
    """The tool list a call binds (its items' source text), or None when it binds none we read."""
    if not isinstance(call, ast.Call):
        return None
    for kw in call.keywords:
        if kw.arg == "tools" and isinstance(kw.value, (ast.List, ast.Tuple)):
            return tuple(ast.unparse(e) for e in kw.value.elts)
    f = call.func
    if isinstance(f, ast.Attribute) and f.attr == "bind_tools" and call.args \
            and isinstance(call.args[0], (ast.List, ast.Tuple)):
        return tuple(ast.unparse(e) for e in call.args[0].elts)
    if isinstance(f, ast.Attribute) and f.attr == "with_structured_output" and call.args:
        return (ast.unparse(call.args[0]),)
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Call):
        return _tools_of(f.value)  # `llm.bind_tools([...]).with_config(...)`
    return None


class _Class:
    """What the methods of one class bind: attribute -> tool list, method -> returned tool lists."""

    def __init__(self, cls: ast.ClassDef | None):
        self.attrs: dict[str, tuple[str, ...]] = {}
        self.returns: dict[str, list[tuple[str, ...] | None]] = {}
        if cls is None:
            return
        for method in (n for n in cls.body if isinstance(n, _FUNCS)):
            own = _own(method)
            local = _locals(own)
            for n in own:
                if isinstance(n, ast.Assign):
                    tools = _tools_of(n.value)
                    for t in n.targets:
                        attr = self_attr(t)
                        if attr is not None and tools is not None:
                            self.attrs.setdefault(attr, tools)
                if isinstance(n, ast.Return) and isinstance(n.value, ast.Tuple):
                    self.returns[method.name] = [_value_tools(e, local, self) for e in n.value.elts]


def _locals(own) -> dict[str, list[ast.AST]]:
    """name -> the values assigned to it (plain and tuple targets: the tuple's value, its index)."""
    out: dict[str, list] = {}
    for n in own:
        if isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Name):
                    out.setdefault(t.id, []).append(n.value)
                elif isinstance(t, ast.Tuple):
                    for i, el in enumerate(t.elts):
                        if isinstance(el, ast.Name):
                            out.setdefault(el.id, []).append((n.value, i))
    return out


def _value_tools(value, local: dict, cls: _Class, depth: int = 0) -> tuple[str, ...] | None:
    """The tool list bound by a value: a call that binds tools, a `self.` attribute that one
    method of the class binds, a local name assigned once, an item of a tuple a method returns."""
    if depth > 3:
        return None
    if isinstance(value, tuple):  # (a call returning a tuple, the index unpacked)
        call, i = value
        name = self_attr(call.func) if isinstance(call, ast.Call) else None
        found = cls.returns.get(name or "")
        return found[i] if found and i < len(found) else None
    tools = _tools_of(value)
    if tools is not None:
        return tools
    attr = self_attr(value)
    if attr is not None:
        return cls.attrs.get(attr)
    if isinstance(value, ast.Name) and len(local.get(value.id, ())) == 1:
        return _value_tools(local[value.id][0], local, cls, depth + 1)
    return None


def _options(value) -> list:
    """The values an assignment may bind: both branches of `a if test else b`, else the value."""
    if isinstance(value, ast.IfExp):
        return [*_options(value.body), *_options(value.orelse)]
    return [value]


def _sends(body) -> list[tuple[ast.Call, str]]:
    """The requests of a loop body: `receiver.invoke(msgs)` with a name as first argument."""
    out = []
    for n in body:
        if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _SENDS
                and n.args and isinstance(n.args[0], ast.Name)):
            out.append((n, n.args[0].id))
    return out


def _grown(body, name: str) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _GROW
               and isinstance(n.func.value, ast.Name) and n.func.value.id == name for n in body) or any(
        isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id == name for n in body)


def _text_sends(module, func) -> bool:
    """True when the source text of `func` names a runnable's request (`.invoke(`, ...): the
    cheap test before its loops are read."""
    a, b = module.offsets(func)
    return any(module.source.find(f".{verb}(", a, b) != -1 for verb in _SENDS)


def find_tool_switches(module) -> list[ToolSwitch]:
    """The loops of the module's functions that re-send a conversation through runnables bound
    to different tool lists (see the module docstring), one per loop, in source order."""
    out: list[ToolSwitch] = []
    if not any(f".{verb}(" in module.source for verb in _SENDS):
        return out  # no request of a runnable in the module's text
    todo: list = [(module.tree, None)]
    while todo:  # (statements only: a function is one, in a block; each with the class around it)
        node, cls = todo.pop()
        for child in block_statements(node):
            todo.append((child, child if isinstance(child, ast.ClassDef) else cls))
        if not isinstance(node, _FUNCS) or not _text_sends(module, node):
            continue
        info = None
        own = _own(node)
        for loop in (n for n in own if isinstance(n, _LOOPS)):
            body = _own(loop)
            sends = [(c, m) for c, m in _sends(body) if _grown(body, m)]
            if not sends:
                continue
            info = info or _Class(cls)
            local = _locals(own)
            seen: dict[tuple[str, ...], ast.AST] = {}
            for call, _ in sends:
                recv = call.func.value
                inside = {id(x) for x in body}
                picks = [o for v in local.get(recv.id, []) if id(v) in inside for o in _options(v)] \
                    if isinstance(recv, ast.Name) else []  # chosen on each pass of the loop
                choices = [(_value_tools(v, local, info), v) for v in picks] or [
                    (_value_tools(recv, local, info), call)]
                for tools, where in choices:
                    if tools is not None:
                        seen.setdefault(tools, where)
            if len(seen) > 1 and len({m for _, m in sends}) == 1:
                first = min((c for c, _ in sends), key=lambda c: (c.lineno, c.col_offset))
                others = [w for w in seen.values() if w is not first]
                out.append(ToolSwitch(first, others, list(seen), node.name))
    # a loop nested in another is found once, by its outermost loop
    unique = {id(s.node): s for s in out}
    return sorted(unique.values(), key=lambda s: (s.node.lineno, s.node.col_offset))


#: Words of the value a tool list is filtered by that say it is the tool a call forces.
_FORCED_WORDS = ("tool_choice", "forced", "force_tool")


def _tool_list_name(node) -> bool:
    """True for the iterated value of a tool list: a name or attribute named for tools
    (`tools`, `ctx.tool_specs`, `self.tool_schemas`)."""
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
    return name.lower().startswith("tool") or name.lower().endswith("tools")


def _names_item(node, item: str) -> bool:
    """True for the name of the item a comprehension visits: `t["name"]`, `t["function"]["name"]`,
    `t.name`."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == "name":
        base = node.value
    elif isinstance(node, ast.Attribute) and node.attr == "name":
        base = node.value
    else:
        return False
    while isinstance(base, ast.Subscript):
        base = base.value
    return isinstance(base, ast.Name) and base.id == item


def _forced(node, local: dict, depth: int = 0) -> bool:
    """True for a value taken from the tool a call forces (`tool_choice.tools`, `forced_tool`),
    also through a local name assigned once from one."""
    text = ast.unparse(node)
    if any(w in text for w in _FORCED_WORDS):
        return True
    if isinstance(node, ast.Name) and depth < 2 and len(local.get(node.id, ())) == 1 \
            and not isinstance(local[node.id][0], tuple):
        return _forced(local[node.id][0], local, depth + 1)
    return False


def find_forced_filters(module) -> list[tuple[ast.ListComp, str]]:
    """The comprehensions that keep, of a tool list, only the tool a call forces (`[t for t in
    tools if t["name"] == forced_tool]`, `... if t["function"]["name"] in set(tool_choice.tools)`),
    with the function they are in: that request is sent with other tool definitions than the
    others of its conversation, instead of the whole list and a `tool_choice`."""
    out = []
    if not any(w in module.source for w in _FORCED_WORDS):
        return out  # `_forced` needs one of these words in the filter or in what a name is assigned
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        if not holds_any(module, func, _FORCED_WORDS) or not holds_any(module, func, ("for",)):
            continue  # (the words `_forced` needs, and a comprehension's `for`, in the function's text)
        own = _own(func)
        local = _locals(own)
        looked_up = {id(n.value) for n in own if isinstance(n, ast.Subscript)}  # `[...][0]`: a lookup
        for comp in (n for n in own if isinstance(n, ast.ListComp) and id(n) not in looked_up):
            gen = comp.generators[0]
            if len(comp.generators) != 1 or len(gen.ifs) != 1 or not isinstance(gen.target, ast.Name) \
                    or not _tool_list_name(gen.iter):
                continue
            test = gen.ifs[0]
            if not (isinstance(test, ast.Compare) and len(test.ops) == 1
                    and isinstance(test.ops[0], (ast.Eq, ast.In))):
                continue
            left, right = test.left, test.comparators[0]
            if _names_item(left, gen.target.id) and _forced(right, local):
                out.append((comp, func.name))
    return sorted(out, key=lambda f: (f[0].lineno, f[0].col_offset))


#: Keywords of a request that carry its tool definitions.
_TOOL_KEYWORDS = ("tools", "functions")
#: Keywords of a request that carry its conversation.
_CONVERSATION_KEYWORDS = ("messages", "input", "contents")


#: A tools keyword given no tools in the source text (`tools=None`, `functions=[]`).
_NO_TOOLS_TEXT = re.compile(r"(?:%s)\s*=\s*(?:None\b|\[\s*\]|\(\s*\))" % "|".join(
    rf"{k}(?<=\b{k})" for k in _TOOL_KEYWORDS))  # (each keyword at a word's start: the pattern starts with its words)


#: A name with a tools word given no tools (`tool_definitions = []`, `toolsList = None`).
_EMPTIED_TOOLS_TEXT = re.compile(r"(?i)tool\w*\s*=\s*(?:None\b|\[\s*\]|\(\s*\))")


def _no_tools(value) -> bool:
    """True for `None`, `[]` or `()`: a request sent without tool definitions."""
    return isinstance(value, ast.Constant) and value.value is None or \
        isinstance(value, (ast.List, ast.Tuple)) and not value.elts


def _conversation_of(call: ast.Call) -> str | None:
    """The local name of the message list a request sends: its first argument or its `messages=`
    (`input=`, `contents=`) keyword, when that is a plain name."""
    if call.args and isinstance(call.args[0], ast.Name):
        return call.args[0].id
    sent = next((k.value for k in call.keywords if k.arg in _CONVERSATION_KEYWORDS), None)
    return sent.id if isinstance(sent, ast.Name) else None


def find_dropped_tools(module) -> list[tuple[ast.expr, ast.Call, str]]:
    """Requests that re-send a conversation without the tools an earlier request of the same
    function sent it with (`self._chat_completion(messages, tools=tools)`, then after
    `messages.append(reflection)`, `self._chat_completion(messages, tools=None)`): the same
    callee, the same message list (a local name the function grows), one call passing a tool list
    and a later one `None` or `[]`. Both calls are requests (`sent_calls.is_send`: not a record's
    class), and the later one can follow the earlier in one pass (not the other branch of the
    same `if`, `sent_calls.exclusive`). The later request starts with other tool definitions than the
    earlier ones of its conversation, so it reads none of their cached prefix. Each as (the empty
    value, the earlier request, the function's name)."""
    out = []
    if not _NO_TOOLS_TEXT.search(module.source):
        return out  # no request written without tools (`tools=None`, `tools=[]`): the cheap test first
    senders = None
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        own = _own(func)
        grown = {n.func.value.id for n in own if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                 and n.func.attr in _GROW and isinstance(n.func.value, ast.Name)}
        if not grown:
            continue
        with_tools: dict[tuple[str, str], list[ast.Call]] = {}
        calls = sorted((n for n in own if isinstance(n, ast.Call)), key=lambda c: (c.lineno, c.col_offset))
        paths = None
        for call in calls:
            tools = next((k.value for k in call.keywords if k.arg in _TOOL_KEYWORDS), None)
            sent = _conversation_of(call) if tools is not None else None
            if sent is None or sent not in grown:
                continue
            if senders is None:
                senders = sending_functions(module)
            if not is_send(call, senders):
                continue  # a record made (`Messages(messages=m, tools=None)`), not a request
            key = (ast.unparse(call.func), sent)
            if not _no_tools(tools):
                with_tools.setdefault(key, []).append(call)
                continue
            paths = paths if paths is not None else branch_paths(func)
            earlier = next((c for c in with_tools.get(key, ()) if not exclusive(paths, c, call, sent)), None)
            if earlier is not None:
                out.append((tools, earlier, func.name))
                break  # one root cause per function
    return sorted(out, key=lambda f: (f[0].lineno, f[0].col_offset))


def _chain(node: ast.If) -> tuple[list[tuple[ast.expr | None, list[ast.stmt]]], list[ast.If]]:
    """The (test, body) of each branch of an if / elif / else chain (the else's test None), and its
    `elif` nodes."""
    out, elifs = [], []
    while True:
        out.append((node.test, node.body))
        if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
            node = node.orelse[0]
            elifs.append(node)
            continue
        if node.orelse:
            out.append((None, node.orelse))
        return out, elifs


def _reaches_limit(test) -> bool:
    """True for a test that orders a value against a bound that is not a constant
    (`self._tool_call_count >= self.tool_call_limit`): a count reaching its limit."""
    return any(isinstance(n, ast.Compare) and any(isinstance(op, (ast.Gt, ast.GtE, ast.Lt, ast.LtE))
                                                  and not isinstance(right, ast.Constant)
                                                  for op, right in zip(n.ops, n.comparators))
               for n in subtree(test))


def find_tools_emptied_at_limit(module) -> list[ast.Assign]:
    """A tool list emptied in a branch of an `if` chain whose test orders a count against a limit
    (`elif self._tool_call_count >= self.tool_call_limit: tool_definitions = []`) and filled in
    another branch of it: the request built after the limit goes out with no tool definitions,
    unlike the earlier requests of its conversation. The emptying statements."""
    from .toolsets import no_tool_set, tool_set_named
    out = []
    if not found(_EMPTIED_TOOLS_TEXT, module.source, ("tool",), fold=True):  # (every match starts with `tool`)
        return out  # no name of tools given no tools in the source text: the cheap test first
    inner: set[int] = set()
    for node in subtree(module.tree):
        if not isinstance(node, ast.If) or id(node) in inner:
            continue
        chain, elifs = _chain(node)
        inner.update(id(n) for n in elifs)
        assigned = [(test, s) for test, body in chain for s in body
                    if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
                    and tool_set_named(s.targets[0].id)]
        filled = {s.targets[0].id for _, s in assigned if not no_tool_set(s.value)}
        out.extend(next(([s] for test, s in assigned if test is not None and _reaches_limit(test)
                         and _no_tools(s.value) and s.targets[0].id in filled), []))
    return sorted(out, key=lambda s: (s.lineno, s.col_offset))


def find_pushed_tool_changes(module) -> list[tuple[ast.AST, str, ast.Call, str]]:
    """A tool set held beyond the call (`agent.tools.append(FileSearch)`: `toolsets`' changes)
    grown or replaced by a function that then writes it to an assistant the provider keeps
    (`client.beta.assistants.update(agent.id, tools=agent.get_oai_tools())`): the runs of the
    threads that assistant already answered start with other tool definitions from then on. Each
    as (the first change, the set's source, the update call, the function's name); an assistant
    set up without a change of a held set before its update (its tools computed) is not one."""
    from .module import callee_name
    from . import toolsets
    out = []
    if "assistants" not in module.source:
        return out
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        own = toolsets.own_nodes(func)
        updates = [n for n in own if isinstance(n, ast.Call) and callee_name(n) in ("update", "modify")
                   and isinstance(n.func, ast.Attribute) and "assistants" in ast.unparse(n.func.value).split(".")
                   and any(k.arg == "tools" for k in n.keywords)]
        if not updates:
            continue
        for node, target in toolsets.tool_set_changes(func, own, module):
            update = next((u for u in updates if (u.lineno, u.col_offset) > (node.lineno, node.col_offset)), None)
            if update is not None:
                out.append((node, target, update, func.name))
                break  # one root cause per function: its first change
    return sorted(out, key=lambda f: (f[0].lineno, f[0].col_offset))
