"""The conversation of an agent's run re-sent by a request of its own without the agent's tools:
facts for PRM204.

A function runs an agent built with tools (`self._agent = agent_type(model=..., tools=tools,
prompt=...)` in any method of its class, `agent = create_react_agent(model, tools=[search])` at
the top of the module or in the function) and then sends the messages of that run
(`result = await self._agent.ainvoke(inputs)`, then `[convert(m) for m in result["messages"]]`)
in a request it makes itself with no tools: a structured-output follow-up (`response_format=`),
a summary, a check. The agent's requests carried the tool definitions, which come first in the
cached prefix (and its system prompt, which it puts before the messages at call time, is not among
them either), so this request shares no prefix with the run's last request and re-reads the
whole conversation uncached: each run that takes the follow-up pays for its conversation twice.

The request is a call named for sending (`sent_calls.is_send`: `acompletion(...)`,
`self.call_model(**params)`) given the messages by a `messages=` keyword or in a dict of options
it is handed as `**params`, `params["messages"] = [...]`; it sends no tools when neither the call
nor the dict names `tools` / `functions` (a `**options` of unknown keys may carry them: left out).

The fact: (the request, the run, the agent's construction with its tools).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from .sent_calls import is_send, sending_functions
from .walk import subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: Methods that run an agent to its end and return its result.
_RUNS = frozenset({"invoke", "ainvoke", "run", "arun"})
_TOOL_KEYS = ("tools", "functions")


@dataclass
class AgentFollowup:
    """`send`: the request; `run`: the agent's run whose messages it sends; `built`: the call that
    builds the agent with tools."""

    send: ast.Call
    run: ast.Call
    built: ast.Call


def might_hold(source: str) -> bool:
    """The cheap test: a run's messages read and tools given somewhere in the module."""
    return "tools=" in source and "messages" in source and ("invoke(" in source or "run(" in source)


def find_agent_followups(module) -> list[AgentFollowup]:
    """The follow-up requests of the module (see the module docstring), in source order."""
    if not might_hold(module.source):
        return []
    senders = sending_functions(module)
    top = _agents(module.tree.body, "")
    out = []
    for node in subtree(module.tree):
        if isinstance(node, ast.ClassDef):
            held = {**top, **_agents(subtree(node), "self.")}
            out.extend(f for func in node.body if isinstance(func, _FUNCS)
                       for f in _followups(func, {**held, **_agents(subtree(func), "")}, senders))
        elif isinstance(node, _FUNCS) and node in module.tree.body:
            out.extend(_followups(node, {**top, **_agents(subtree(node), "")}, senders))
    return sorted(out, key=lambda f: (f.send.lineno, f.send.col_offset))


def _agents(nodes, prefix: str) -> dict[str, ast.Call]:
    """The agents built with tools among the assignments of `nodes`: a call given `tools=` assigned to
    an attribute of `self` (`prefix` "self.": the key `self.agent`) or to a name (`prefix` "": the
    key `agent`), each with that call."""
    out = {}
    for node in nodes:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call) \
                and any(k.arg in _TOOL_KEYS and not _none(k.value) for k in node.value.keywords):
            t = node.targets[0]
            if prefix and isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                out.setdefault(prefix + t.attr, node.value)
            elif not prefix and isinstance(t, ast.Name):
                out.setdefault(t.id, node.value)
    return out


def _none(value) -> bool:
    return isinstance(value, ast.Constant) and not value.value or isinstance(value, ast.List) and not value.elts


def _followups(func, agents: dict, senders: set) -> list[AgentFollowup]:
    """The requests of `func` that send the messages of a run of one of `agents` with no tools."""
    runs = {}  # name of the result -> (run call, agent construction)
    for node in subtree(func):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(getattr(node, "value", None), (ast.Await, ast.Call)):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            call = node.value.value if isinstance(node.value, ast.Await) else node.value
            f = call.func if isinstance(call, ast.Call) else None
            receiver = _receiver(f.value) if isinstance(f, ast.Attribute) and f.attr in _RUNS else None
            if isinstance(target, ast.Name) and receiver in agents:
                runs[target.id] = (call, agents[receiver])
    if not runs:
        return []
    derived = _derived(func, set(runs))
    out = []
    for node in subtree(func):
        if not (isinstance(node, ast.Call) and is_send(node, senders)) or any(r[0] is node for r in runs.values()):
            continue
        sent = _sent_messages(func, node)
        if sent is None or sent is False:  # (no messages found, or tools that may be sent)
            continue
        source = _whole_read(sent, set(runs), derived)
        if source is not None:
            out.append(AgentFollowup(node, *runs[source]))
    return out


def _receiver(node) -> str | None:
    """`agent` or `self.agent` for a run's receiver of that form, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return "self." + node.attr
    return None


def _derived(func, results: set[str]) -> dict[str, str]:
    """The names whose value reads the messages of a run's result (`result["messages"]`,
    `result.messages`), directly or through names bound from them, each with the result's name."""
    out: dict[str, str] = {}
    for node in subtree(func):  # (assignments in source order: a name is bound after what it reads)
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        base = _whole_read(node.value, results, out)
        if base is not None:
            out[node.targets[0].id] = base
    return out


def _whole_read(value, results: set[str], derived: dict[str, str]) -> str | None:
    """The result whose messages `value` reads as a list (`[f(m) for m in r["messages"]]`,
    `[*r.messages, x]`, a name in `derived`), not one message picked out of them
    (`r["messages"][-1].content`), else None."""
    picked = {id(n.value) for n in subtree(value) if isinstance(n, (ast.Subscript, ast.Attribute))}
    for n in subtree(value):
        if id(n) in picked:
            continue
        base = _messages_of(n)
        if base in results:
            return base
        if isinstance(n, ast.Name) and n.id in derived:
            return derived[n.id]
    return None


def _messages_of(node) -> str | None:
    """`r` of `r["messages"]` or `r.messages`, else None."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Constant) \
            and node.slice.value == "messages":
        return node.value.id
    if isinstance(node, ast.Attribute) and node.attr == "messages" and isinstance(node.value, ast.Name):
        return node.value.id
    return None


def _sent_messages(func, call: ast.Call):
    """The messages `call` sends with no tools: its `messages=` value, or the value its `**params` dict
    gets under "messages" in `func`; False when the call or the dict names tools (or hands on
    options of unknown keys), None when no messages are found."""
    kw = {k.arg: k.value for k in call.keywords}
    if any(k in kw for k in _TOOL_KEYS):
        return False
    if "messages" in kw:
        return False if None in kw else kw["messages"]
    spread = [v for k, v in kw.items() if k is None]
    if len(spread) != 1 or not isinstance(spread[0], ast.Name):
        return None
    params = spread[0].id
    messages = None
    for node in subtree(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            t = node.targets[0]
            if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == params \
                    and isinstance(t.slice, ast.Constant):
                if t.slice.value in _TOOL_KEYS:
                    return False
                if t.slice.value == "messages":
                    messages = node.value
            elif isinstance(t, ast.Name) and t.id == params and not _plain_dict(node.value):
                return False  # options of keys not read here (`params = self.config.model_args`)
    return messages


def _plain_dict(value) -> bool:
    """True for a dict display with no `**spread` and no tool key (`{}`, `{"model": m}`)."""
    return isinstance(value, ast.Dict) and None not in value.keys and not any(
        isinstance(k, ast.Constant) and k.value in _TOOL_KEYS for k in value.keys)
