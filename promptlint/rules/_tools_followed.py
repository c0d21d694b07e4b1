"""PRM204's messages for tool changes followed across functions and statements: tools made of
the conversation's state (`python/state_tools.py`), a helper whose tools its callers switch over
one conversation (`python/switched_helpers.py`), the nodes of one graph state bound to
different tools (`python/node_tools.py`), a tool choice rebound in a loop
(`python/tool_rebinds.py`), the follow-up after a tool call sent without the tools
(`python/tool_followups.py`). Each returns (message, span, the keywords of `Rule.diagnostic`:
severity and related locations).
"""
from __future__ import annotations

import ast

from ..model import Related, Severity

#: The phrase every PRM204 message shares: why a change of tools costs the whole prefix.
FRONT = "the tool definitions, which come before the system prompt and the history,"


def state_tools(module, s, span):
    """A warning at the tools: the state's entry is written after a model's request, so between
    two requests of the conversation."""
    message = (f"The tools of this request are made of `{s.key}` of the conversation's state (line "
               f"{s.read.lineno}), which `{s.writer_function}` writes after a model's request together with "
               f"the conversation `{s.conversation}` (line {s.writer.lineno}): the next request of the "
               f"conversation goes out with other tool definitions, and {FRONT} differ, so it reads none of "
               "the cached prefix; send every tool the conversation may use from its first request, in a "
               "fixed order, and choose which may be called with `tool_choice` (or `allowed_tools`)")
    related = [Related(module.span(s.read), f"`{s.key}` read here"),
               Related(module.span(s.writer), f"`{s.key}` written with the conversation here")]
    return message, span, {"severity": Severity.WARNING, "related": related}


def _given(param: str, value: str) -> str:
    """`use_tools=False`, or `selected_tool` set to an item of `X` (a loop's item, not a constant)."""
    return f"`{param}` set to {value}" if value.startswith("an item") else f"`{param}={value}`"


def switched_helper(module, sw, span):
    """A warning where the helper's tools are chosen."""
    first, second = _given(sw.param, sw.first_value), _given(sw.param, sw.second_value)
    message = (f"The tools of `{sw.helper}`'s request (line {sw.send.lineno}) are chosen here by `{sw.param}`, "
               f"and `{sw.caller}` sends one conversation through it with {first} (line "
               f"{sw.first.lineno}), then with {second} (line {sw.second.lineno}): the two "
               f"requests carry other tool definitions, and {FRONT} differ, so the second reads none of the "
               "conversation from the cache, and the next request with tools misses again; send the same tools "
               "on both and choose with `tool_choice=\"none\"` that none is called")
    related = [Related(module.span(sw.first), f"sent with {first} here"),
               Related(module.span(sw.second), f"the same conversation sent with {second} here")]
    return message, span, {"severity": Severity.WARNING, "related": related}


def choice_rebound(module, stmt, request, function):
    """Info at the rebinding: Anthropic drops the cached messages once per conversation."""
    if isinstance(stmt, ast.IfExp):
        where = (f"The tool choice is chosen here by `{ast.unparse(stmt.test)}`, which changes from one pass of "
                 f"the loop of `{function}` to the next, and the loop sends one conversation (line {request.lineno})")
        span = module.span(stmt)
    else:
        name = stmt.targets[0].id
        where = (f"`{name}` is given another value here, in the loop of `{function}` whose requests send one "
                 f"conversation with `tool_choice={name}` (line {request.lineno})")
        span = module.span(stmt)
    message = (f"{where}: on Anthropic a change of "
               "`tool_choice` invalidates the cached messages, so the next request reads none of the "
               "conversation's history from the cache (the tools and the system prompt stay cached), once "
               "per conversation that takes this step; force the first tool by asking for it in the "
               "message, or keep one tool choice for the conversation")
    return message, span, {"severity": Severity.INFO, "related": [Related(module.span(request), "sent here")]}


def node_tools(module, n):
    """Info at the later node's tools: which node follows which is the graph's, not read here."""
    message = (f"`{n.node_name}` sends the conversation of its state (`{n.state}`) with the tools bound here, other "
               f"than those `{n.other_name}` sends the same state's conversation with (line {n.other.lineno}): a "
               f"conversation that passes from one node to the other sends its next request with other tool "
               f"definitions, and {FRONT} differ, so it reads none of the cached prefix (which node follows which "
               "is decided by the graph, not read here); bind every node of the conversation to the same tools "
               "and choose with `tool_choice` which one is called")
    related = [Related(module.span(n.other), f"the tools of `{n.other_name}`")]
    return message, module.span(n.node), {"severity": Severity.INFO, "related": related}


def tool_followup(module, f):
    """Info at the follow-up request: one request's prefix per turn that calls a tool."""
    where = "here" if f.node is f.request else f"(line {f.request.lineno}) with the options built here, and so"
    message = (f"`{f.function}` sends the follow-up after the tool calls {where} without the tools that the "
               f"request at line {f.earlier.lineno} sent the conversation with: {FRONT} differ, so this request reads "
               "none of the conversation from the cache and writes it again, once per turn that calls a tool; "
               "send the same tools on the follow-up (with `tool_choice=\"none\"` if no tool may be called)")
    related = [Related(module.span(f.earlier), "sent with the tools here"),
               Related(module.span(f.test), "the tool calls read here")]
    if f.node is not f.request:
        related.append(Related(module.span(f.request), "the follow-up sent here"))
    return message, module.span(f.node), {"severity": Severity.INFO, "related": related}


def tool_selection(module, s):
    """Info at the call of the selecting method (`python/tool_selectors.py`): whether two turns
    select other tools depends on data not seen."""
    how = ("filters the tool list by its argument" if s.how == "filter"
           else "retrieves the tools by its argument")
    why = {"state": f"`{s.condition}` reads state of the instance that a method writes while it runs",
           "name": f"`{s.condition}` is the turn's own input (only its name says so)",
           "argument": f"`{s.condition}` is what the tools are retrieved for"}[s.evidence]
    message = (f"The tools of the request (line {s.send.lineno}) are chosen here by `{s.method}`, which {how}, "
               f"for each request: {why}, so the requests of one conversation may carry other tools. When "
               f"they differ, {FRONT} change, and the next request reads none of the conversation from the "
               "cache; send the same tools on every request and choose with `tool_choice` (or "
               "`allowed_tools`) which may be called")
    return message, module.span(s.node), {"severity": Severity.INFO, "related": [Related(module.span(s.send), "sent here")],
                                          "name_only": s.evidence == "name"}


def choice_write(module, w):
    """Info at the write of a tool choice into the options of a loop's requests
    (`python/choice_writes.py`): Anthropic drops the cached messages at the next request."""
    where = "in the loop, before its next request" if w.later is None else f"before the request at line {w.later.lineno}"
    by = "" if w.via is None else f", through the call at line {w.via.lineno} in `{w.function}`"
    message = (f"`tool_choice` is set to {w.value} here in the options `{w.options}` that the requests of "
               f"`{w.function}` send one conversation with (line {w.request.lineno}){by}, after a request and "
               f"{where}: on Anthropic a change of `tool_choice` invalidates the cached messages, so that request "
               "reads none of the conversation's history from the cache (the tools and the system prompt stay "
               "cached); keep one tool choice for the conversation (ask for the tool in the message, or end "
               "the loop with a request that keeps it)")
    related = [Related(module.span(w.request), "the loop's request")]
    if w.later is not None:
        related.append(Related(module.span(w.later), "the request after the change"))
    if w.via is not None:
        related.append(Related(module.span(w.via), "called here with the options"))
    return message, module.span(w.node), {"severity": Severity.INFO, "related": related}


def phase_tools(module, f):
    """Info at the request without tools: the size of the conversation is not known here."""
    message = (f"`{f.function}` sends the conversation `{f.conversation}` with tools through its call at line "
               f"{f.first.lineno}, then sends it again here without tools (called at line {f.later.lineno}): "
               f"{FRONT} differ from those of the earlier requests, so this request reads none of the "
               "conversation from the cache (and writes it again); send the same tools and choose with "
               "`tool_choice=\"none\"` that none is called")
    related = [Related(module.span(f.first), "sent with tools here")]
    if f.later is not f.node:
        related.append(Related(module.span(f.later), "the phase without tools called here"))
    return message, module.span(f.node), {"severity": Severity.INFO, "related": related}
