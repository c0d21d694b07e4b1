"""A system prompt set on another object, then the conversation handed to that object
(docs/policies.md, Policies 2 and 9).

    self.lead_agent.set_system_prompt(self.template.replace("{AGENTS_MEMORY}", memory))
    return await self.lead_agent.process_request(input_text, user_id, session_id, chat_history)

A setter of another object (a method whose name says it sets, updates, adds or appends the system
prompt or the instructions: `set_system_prompt`, `append_instructions`, `add_system_message`) is
given text built in place; a later call of the same function on the same receiver hands that
object the conversation (an argument that is the conversation by its value or by its name:
`handoff.conversation_of`). The object's requests then hold the text as their system part, and the
conversation after it: what changes in the text sits before the whole history. Judged as the system
message followed by that conversation, where the text is set.

Not a hand-off: a setter of `self` (the class's own bookkeeping), a call on the receiver made
before the setter, a receiver rebound between the two calls, a later call that takes no
conversation, text not built in the argument (`agent.set_system_prompt(prompt)`: its value is
judged where it is built), a keeper's head writer (python/kept_conversations.py judges those).

Facts only: `set_then_handed` adds a candidate layout; the rules judge it.
"""
from __future__ import annotations

import ast
import re

from ..model import Kind, Segment, Volatility
from .flow.values import Mapping, Seq, Spread, Text
from .handoff import conversation_of
from .text_shapes import builds_text

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: A setter of the system prompt or of the instructions, by its name (a cost gate and the fact the
#: name states: `set_system_prompt`, `update_system_message`, `append_instructions`).
_SETTER = re.compile(r"^_?(set|update|add|append|prepend|extend)_(\w+_)?(system|instructions?)(_\w+)?$", re.I)


def might_set(node: ast.Call) -> bool:
    """True for a call worth resolving as a setter of another object's system prompt: a method of
    an object other than `self` / `cls` named as one (`_SETTER`), whose first argument builds text
    in place."""
    f = node.func
    if not isinstance(f, ast.Attribute) or isinstance(f.value, ast.Name) and f.value.id in ("self", "cls"):
        return False
    return bool(_SETTER.match(f.attr)) and _text_argument(node) is not None


def _text_argument(node: ast.Call):
    """The text a setter is given: its first positional argument (the one element of a list
    display, `append_instructions([text])`) when it builds text in place (an f-string, a `.format`,
    a `+` of text, a template's `.replace(...)`), else None."""
    if not node.args:
        return None
    arg = node.args[0]
    if isinstance(arg, (ast.List, ast.Tuple)) and len(arg.elts) == 1:
        arg = arg.elts[0]
    return arg if _builds(arg) else None


def _builds(node) -> bool:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "replace" \
            and len(node.args) == 2:
        return True
    return builds_text(node)


def set_then_handed(finder, node: ast.Call, frame) -> bool:
    """The setter call `node` (`might_set`) followed in its function by a call on the same receiver
    that takes the conversation: a candidate of the system message holding the text, followed by
    that conversation. True when a layout was added."""
    from .message_candidates import message_list
    func = frame.func
    text_node = _text_argument(node)
    if not isinstance(func, _FUNCS) or text_node is None:
        return False
    receiver = ast.unparse(node.func.value)
    handed = _handed_after(finder, func, node, receiver, frame)
    if handed is None:
        return False
    call, history = handed
    span = finder.m.span(node)
    history = Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, expr=history.expr, span=history.span,
                      evidence=f"the conversation handed to `{receiver}` after its system prompt is set",
                      origin=finder.m.span(call), origin_note="the conversation handed to the same object here")
    message = Mapping({"role": Text([Segment(text="system", span=span)]), "content": finder.ev.eval(text_node, frame)},
                      span=span)
    return message_list(finder, node, Seq([message, Spread(Text([history]), span, history.expr)]), frame)


def _handed_after(finder, func, node: ast.Call, receiver: str, frame):
    """(the call, its conversation segment) of the first call after `node` in `func` of a method
    of `receiver` that takes a conversation; None when there is none, or when `receiver` (or the
    name it is read from) is bound again in between."""
    root = _root(node.func.value)
    end = (node.end_lineno, node.end_col_offset)
    nodes = sorted((n for n in ast.walk(func) if hasattr(n, "lineno") and (n.lineno, n.col_offset) > end),
                   key=lambda n: (n.lineno, n.col_offset))
    for n in nodes:
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            if any(ast.unparse(t) in (receiver, root) for t in targets):
                return None
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and ast.unparse(n.func.value) == receiver \
                and not _SETTER.match(n.func.attr):
            for arg in [*n.args, *(k.value for k in n.keywords)]:
                arg = arg.value if isinstance(arg, ast.Starred) else arg
                history = conversation_of(finder, arg, frame)
                if history is not None:
                    return n, history
    return None


def _root(node) -> str:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.value if not isinstance(node, ast.Call) else node.func
    return ast.unparse(node)
