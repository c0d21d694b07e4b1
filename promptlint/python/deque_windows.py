"""A conversation kept in a bounded deque (PRM105): `self.history = deque(maxlen=10)`,
`self.memory[session] = collections.deque(maxlen=self.window)`. Once full, each new turn pushes
the oldest one out, so the conversation rendered from it differs from the previous request's
from its first turn on: a sliding window chosen where the deque is made.

The deque is the conversation by its name (`history`, `messages`, `turns`: the words of
`history_cuts.CONVERSATION_WORDS`) or by what the module does with its items: a loop over it
writes each item as a user turn and an assistant turn (`f"User: {q}\\nAssistant: {a}"`) or as a
message with a role. Reported at the bound, with no send call linked (info).
"""
from __future__ import annotations

import ast

from .candidates import words
from .flow.turn_text import labels_turn
from .history_cuts import CONVERSATION_WORDS
from .walk import subtree


def deque_windows(module) -> list[tuple[ast.AST, str, str]]:
    """(the bound's value, the deque's source text, why it is the conversation) for each bounded
    deque the module keeps a conversation in."""
    if "maxlen" not in module.source:
        return []
    out = []
    for node in subtree(module.tree):
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else \
            node.target if isinstance(node, ast.AnnAssign) else None
        if not (target is not None and isinstance(node.value, ast.Call)
                and module.qualified_name(node.value.func) == "collections.deque"):
            continue
        bound = next((k.value for k in node.value.keywords if k.arg == "maxlen"), None)
        if bound is None and len(node.value.args) == 2:
            bound = node.value.args[1]
        if bound is None or isinstance(bound, ast.Constant) and bound.value is None:
            continue
        name = _held_as(target)
        if name is None:
            continue
        why = _why_conversation(module, name)
        if why is not None:
            out.append((bound, module.code(target), why))
    return out


def _held_as(target) -> str | None:
    """The attribute or name a deque is kept under: `self.history` -> "history",
    `self.memory[session]` -> "memory", `history` -> "history"."""
    if isinstance(target, ast.Subscript):
        target = target.value
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
        return target.attr
    return target.id if isinstance(target, ast.Name) else None


def _why_conversation(module, name: str) -> str | None:
    """Why the deque kept under `name` is the conversation, or None."""
    if words(name) & CONVERSATION_WORDS:
        return f"`{name}`, named as the conversation"
    for loop in subtree(module.tree):
        if isinstance(loop, (ast.For, ast.AsyncFor)) and _reads(loop.iter, name) and _writes_turns(loop.body):
            return f"each item of `{name}` is written as a user turn and an assistant turn (line {loop.lineno})"
    return None


def _reads(expr, name: str) -> bool:
    """True when a loop's iterable is the deque kept under `name` (`self.memory[session]`,
    `self.memory.get(session)`, `history`)."""
    for n in subtree(expr):
        if isinstance(n, ast.Attribute) and n.attr == name and isinstance(n.value, ast.Name) and n.value.id == "self":
            return True
        if isinstance(n, ast.Name) and n.id == name:
            return True
    return False


def _writes_turns(body) -> bool:
    """True when a loop body writes a user side and an assistant side of a turn into text, or
    a message with a `role`."""
    texts = []
    for stmt in body:
        for n in subtree(stmt):
            if isinstance(n, ast.Constant) and isinstance(n.value, str):
                texts.append(n.value)
            elif isinstance(n, ast.Dict) and any(isinstance(k, ast.Constant) and k.value == "role" for k in n.keys):
                return True
    return labels_turn("\n".join(texts))
