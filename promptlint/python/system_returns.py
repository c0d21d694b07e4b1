"""A system message returned by a builder and put at the head of the conversation by its callers.

A function named for the system prompt often builds its text piecewise and returns it as one
message object (`return Message(role=self.system_role, content=text)`); the function that calls it
puts that message first in a list and then adds the conversation (docs/policies.md, Policy 2):

    system = self.build_system_message(user)
    if system is not None:
        request.messages.append(system)
    ...
    request.messages += history_copy          # the history after the system message

    messages = [build_system_message(user), *history, user_message]

Whatever changes in the builder's text then sits before the whole history (`system_content`:
the returned message's text, when its role is the system's). The callers read are
those of the builder's own module (a method's calls through `self` or any receiver, a function's
calls by its name); only when that module makes none, the modules of its package tree that call
the name (at most `MAX_CALLER_MODULES`: a name called from more places is not followed). The list
the history is added to must be the one the message was put in, and what is added must be named
as the conversation (`chat_history`, `past_messages`, a word of its name: `history_copy`,
`stored_turns`); a list named only as messages (`messages`, `msgs`) may be the input of a
one-shot call, never re-sent. A hand-off in other
words (the message given to a call, kept on an attribute) links nothing.
"""
from __future__ import annotations

import ast
import re

from .. import classify
from ..model import Kind, Segment, Volatility
from .flow.values import Mapping, Obj
from .walk import subtree

MAX_CALLER_MODULES = 8
#: Names of any list of messages (the input of a one-shot call as well as a conversation): not
#: enough to say that what follows the system message is re-sent on the next request.
_ANY_MESSAGES = {"messages", "msgs", "all_messages"}
#: Words of a name that say the conversation so far (`history_copy`, `past_turns`).
_PAST_WORDS = {"history", "conversation", "transcript", "turns", "dialog", "dialogue"}


def system_content(finder, message, frame):
    """The content of one system message a function named for the system prompt returns
    (`return Message(role=self.system_role, content=text)`, `{"role": "system", "content": text}`):
    its role written as "system" / "developer", or read from a value the analysis cannot resolve
    (a field of the instance: the function's name says which message it builds), never a role
    known to be another one. None for anything else."""
    if isinstance(message, Mapping):
        role, content = message.items.get("role"), message.items.get("content")
    elif isinstance(message, Obj) and "role" in message.kwargs:
        role, content = message.kwargs.get("role"), message.kwargs.get("content")
    else:
        return None
    if content is None:
        return None
    written = finder.b.static_text(role, frame)
    return content if written is None or written in ("system", "developer") else None


def history_after(finder, func) -> Segment | None:
    """The history segment that a caller of `func` (a function returning one system message) puts
    after the message it returns, else None."""
    own = [(finder.m, call) for call in _calls_of(finder.m.tree, func.name)]
    pairs = own
    if not own:
        path = getattr(finder.m, "path", None)
        modules = finder.ev.project.callers_of(func.name, path, MAX_CALLER_MODULES) if path is not None else None
        pairs = [(m, call) for m in modules or [] for call in _calls_of(m.tree, func.name)]
    for module, call in pairs:
        caller = _enclosing(module.tree, call)
        if caller is None:
            continue
        found = _history_after_call(module, caller, call)
        if found is not None:
            return found
    return None


def _calls_of(tree, name: str):
    for node in subtree(tree):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id == name or isinstance(f, ast.Attribute) and f.attr == name:
                yield node


def _enclosing(tree, target):
    """The innermost function of `tree` whose body holds `target`."""
    best = None
    for node in subtree(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno <= target.lineno \
                and (node.end_lineno or 0) >= (target.end_lineno or 0):
            if best is None or node.lineno >= best.lineno:
                best = node
    return best


def _unwrap(node):
    return node.value if isinstance(node, ast.Await) else node


def _history_after_call(module, caller, call) -> Segment | None:
    """The conversation `caller` puts after the message `call` returns: in the same list display
    (`[call(...), *history]`, `[call(...)] + history`), or in the list the message (or the name
    it is kept in) is put at the head of, extended later (`L.append(system); ...; L += history`)."""
    found = _displayed_before(module, caller, lambda first: _unwrap(first) is call)
    if found is not None:
        return found
    held = next((node.targets[0].id for node in subtree(caller) if isinstance(node, ast.Assign)
                 and _unwrap(node.value) is call and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)),
                None)
    if held is None:
        return None
    found = _displayed_before(module, caller, lambda first: _is(first, held))
    if found is not None:
        return found
    start = (call.lineno, call.col_offset)
    for node in subtree(caller):
        target = _head_of(node, held)
        if target is not None and (node.lineno, node.col_offset) > start:
            at = (node.lineno, node.col_offset)
            if isinstance(node, ast.Call) and _grown_before(caller, target, at):
                return None  # appended after other messages: not the head of the list
            return _extended_after(module, caller, target, at)
    return None


def _displayed_before(module, caller, is_message) -> Segment | None:
    """The conversation a list display of `caller` puts after its first item, when `is_message`
    says that item is the system message (`[system, *history]`, `[system] + history`)."""
    for node in subtree(caller):
        if isinstance(node, (ast.List, ast.Tuple)) and node.elts and is_message(node.elts[0]):
            found = next((_named(module, e.value) for e in node.elts[1:] if isinstance(e, ast.Starred)), None)
            if found is not None:
                return found
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and isinstance(node.left, ast.List) \
                and node.left.elts and is_message(node.left.elts[0]):
            found = _named(module, node.right)
            if found is not None:
                return found
    return None


def _grown_before(caller, target, at) -> bool:
    """True when `caller` adds to the list `target` before the position `at`."""
    key = ast.unparse(target)
    for node in subtree(caller):
        if (getattr(node, "lineno", 0), getattr(node, "col_offset", 0)) >= at:
            continue
        if isinstance(node, ast.AugAssign) and ast.unparse(node.target) == key:
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("append", "extend", "insert") and ast.unparse(node.func.value) == key:
            return True
    return False


def _head_of(node, name: str):
    """The list `node` puts the local `name` at the head of (`L.insert(0, name)`, `L = [name]`, or
    `L.append(name)`: the first thing a caller puts in its request list), else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        args = node.args
        if node.func.attr == "append" and len(args) == 1 and _is(args[0], name) \
                or node.func.attr == "insert" and len(args) == 2 and isinstance(args[0], ast.Constant) \
                and args[0].value == 0 and _is(args[1], name):
            return node.func.value
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.List) \
            and node.value.elts and _is(node.value.elts[0], name):
        return node.targets[0]
    return None


def _extended_after(module, caller, target, after) -> Segment | None:
    """The conversation added to the list `target` after the position `after` in `caller`
    (`target += history`, `target.extend(history)`), else None."""
    key = ast.unparse(target)
    for node in subtree(caller):
        if (getattr(node, "lineno", 0), getattr(node, "col_offset", 0)) <= after:
            continue
        added = None
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and ast.unparse(node.target) == key:
            added = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "extend" \
                and len(node.args) == 1 and ast.unparse(node.func.value) == key:
            added = node.args[0]
        found = _named(module, added) if added is not None else None
        if found is not None:
            return found
    return None


def _named(module, node) -> Segment | None:
    """The history segment of an expression named as the conversation (`history_copy`,
    `self.past_messages`, `session.chat_history()`), else None."""
    base = node.func if isinstance(node, ast.Call) else node
    name = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else ""
    if not (name.lower() in classify.HISTORY_NAMES - _ANY_MESSAGES
            or {w.lower() for w in re.split(r"[^A-Za-z0-9]+", name) if w} & _PAST_WORDS):
        return None
    return Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, expr=module.code(node), span=module.span(node),
                   evidence="the conversation the caller puts after the system message")


def _is(node, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name
