"""A conversation kept in a bounded deque (PRM105): `self.history = deque(maxlen=10)`,
`self.memory[session] = collections.deque(maxlen=self.window)`. Once full, each new turn pushes
the oldest one out, so the conversation rendered from it differs from the previous request's
from its first turn on: a sliding window chosen where the deque is made.

The deque is the conversation by its name (`history`, `messages`, `turns`: the words of
`history_cuts.CONVERSATION_WORDS`), unless its items are known not to be messages (`_not_messages`:
`deque[tuple[str, str]]`, numbers, the tuples it is appended), or by what the module does with its
items: a loop over it writes each item as a user turn and an assistant turn
(`f"User: {q}\\nAssistant: {a}"`) or as a message with a role. Reported at the bound, with no
send call linked (info).
"""
from __future__ import annotations

import ast

from .prompt_names import words
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
        why = _why_conversation(module, name, _not_messages(module, node, name))
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


def _why_conversation(module, name: str, not_messages: bool) -> str | None:
    """Why the deque kept under `name` is the conversation, or None; `not_messages`: its items are
    known not to be messages, so its name alone is no evidence (a tool-call log named `_history`)."""
    if words(name) & CONVERSATION_WORDS and not not_messages:
        return f"`{name}`, named as the conversation"
    for loop in subtree(module.tree):
        if isinstance(loop, (ast.For, ast.AsyncFor)) and _reads(loop.iter, name) and _writes_turns(loop.body):
            return f"each item of `{name}` is written as a user turn and an assistant turn (line {loop.lineno})"
        if isinstance(loop, (ast.ListComp, ast.GeneratorExp)) and any(_reads(g.iter, name) for g in loop.generators) \
                and _writes_turns([loop.elt]):  # `"\\n".join(f"User: {q}\\nAssistant: {a}" for q, a in history)`
            return f"each item of `{name}` is written as a user turn and an assistant turn (line {loop.lineno})"
    return None


#: Element types of a deque's annotation that are no message: a record of names, numbers, flags.
_NOT_MESSAGE_TYPES = {"tuple", "Tuple", "int", "float", "bool", "bytes", "set", "frozenset", "complex"}


def _not_messages(module, node, name: str) -> bool:
    """True when the items of the deque kept under `name` are known not to be messages: its
    annotation gives them a type of `_NOT_MESSAGE_TYPES` (`deque[tuple[str, str]]`, `deque[float]`),
    or every value the module appends to it is a tuple or a number, written there or bound to a
    name in the function that appends it (`key = (event.name, event.arguments)`). A pair a loop
    writes as turns is still the conversation by that loop (`_why_conversation`)."""
    ann = node.annotation if isinstance(node, ast.AnnAssign) else None
    if isinstance(ann, ast.Subscript):
        item = ann.slice.elts[0] if isinstance(ann.slice, ast.Tuple) and ann.slice.elts else ann.slice
        head = item.value if isinstance(item, ast.Subscript) else item
        head_name = head.attr if isinstance(head, ast.Attribute) else head.id if isinstance(head, ast.Name) else None
        if head_name in _NOT_MESSAGE_TYPES:
            return True
    added = []
    for func in subtree(module.tree):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for call in subtree(func):
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) \
                    and call.func.attr in ("append", "appendleft") and len(call.args) == 1 \
                    and _is_held(call.func.value, name):
                added.append(_record(func, call.args[0]))
    return bool(added) and all(added)


def _is_held(expr, name: str) -> bool:
    """True for the deque kept under `name` (`self.name`, `self.name[key]`, `name`)."""
    if isinstance(expr, ast.Subscript):
        expr = expr.value
    if isinstance(expr, ast.Attribute):
        return expr.attr == name and isinstance(expr.value, ast.Name) and expr.value.id == "self"
    return isinstance(expr, ast.Name) and expr.id == name


def _record(func, value) -> bool:
    """True for a tuple or a number, written as it is or bound to a name only to one in `func`."""
    if isinstance(value, ast.Name):
        bound = [n.value for n in subtree(func) if isinstance(n, ast.Assign)
                 and any(isinstance(t, ast.Name) and t.id == value.id for t in n.targets)]
        return bool(bound) and all(not isinstance(v, ast.Name) and _record(func, v) for v in bound)
    return isinstance(value, ast.Tuple) or isinstance(value, ast.Constant) \
        and isinstance(value.value, (int, float)) and not isinstance(value.value, bool)


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
