"""System text a step of a request pipeline writes into the request dict it is handed, while a
later step puts the conversation in front of the dict's messages (step_chains.py):
`kwargs["system"] = kwargs.get("system", "") + recall` in one step, then `kwargs["messages"] =
history + kwargs["messages"]` in the next. The request sent is the system text, then that
conversation: a prompt candidate of the two (message_candidates.message_list), so what changes in
the system text is judged with the history after it.
"""
from __future__ import annotations

import ast

from ..model import Segment
from .flow.values import Mapping, Seq, Spread, Text
from .message_candidates import message_list
from .step_chains import history_of, later_prepends

#: The keys of a request dict that hold the system text (Anthropic `system`, OpenAI Responses
#: `instructions`, Gemini `system_instruction`) and those that hold the conversation.
SYSTEM_KEYS = frozenset({"system", "instructions", "system_instruction"})
CONVERSATION_KEYS = ("messages", "input", "contents")


def may_write(node: ast.Assign) -> bool:
    """`name["system"] = ...` (a system key of a dict held in a name): worth `written`."""
    target = node.targets[0] if len(node.targets) == 1 else None
    return isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
        and isinstance(target.slice, ast.Constant) and target.slice.value in SYSTEM_KEYS


def written(finder, node: ast.Assign, frame) -> bool:
    """The candidate of a step's write of system text into the dict parameter it returns, with the
    conversation a later step prepends to the dict's messages; True when a layout was added."""
    func = getattr(frame, "func", None)
    target = node.targets[0]
    param = target.value.id
    if func is None or param not in {a.arg for a in func.args.args}:
        return False
    found = later_prepends(finder, func, param, CONVERSATION_KEYS)
    if not found:
        return False
    history = history_of(found[0], (param, found[0].key), "a later step puts the conversation after it here")
    system = Mapping({"role": Text([Segment(text="system", span=finder.m.span(target))]),
                      "content": finder.ev.eval(node.value, frame)}, span=finder.m.span(node))
    return message_list(finder, node, Seq([system, Spread(Text([history]), history.span, history.expr)]), frame)
