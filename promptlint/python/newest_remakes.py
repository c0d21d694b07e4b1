"""The newest message of a kept conversation re-made for the request on a copy: facts for PRM105
(the rule judges them).

A function that copies the conversation an instance keeps (`out = []`, then `out.append({"role":
..., "content": m["content"]})` in a loop over `self.conversation_history`; `out =
list(self.history)`, `self.messages.copy()`, a comprehension over it) and re-makes the copy's
newest message by a call given its text (`req = fmt(out[-1]["content"])`, then `del out[-1]` /
`out.pop()` and `out += req.messages`; or `out[-1]["content"] = wrap(out[-1]["content"])` on a
copy whose messages are new objects: `[dict(m) for m in ...]`, `deepcopy`; a shallow copy's message
is the kept one, written too) sends
that message as the call makes it, while the kept conversation keeps it as it was: on the next
turn it is re-sent as kept, so the history differs from the previous request's from that message
on (the message and the answer after it are read uncached every turn; older turns still hit). A
function that writes the copy back to the instance keeps what it sent: not one. Whether the call
changes the text is not followed here: info, at the call, with the copy as a related place.

Read in the modules the prefilter lets through (`prefilter.might_hold_prompt`), which the
modules that send or build a prompt do; the text test below adds none.

Shape: `newest_remakes(module) -> [(the call that re-makes the newest message, the copy of the
conversation)]` (ast nodes), in source order.
"""
from __future__ import annotations

import ast
import re

from .prompt_names import words
from .walk import statements, subtree

_HISTORY = frozenset({"history", "messages", "conversation", "transcript", "dialog", "dialogue", "turns"})
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_COPIES = ("copy", "deepcopy", "list")


#: An instance's conversation read (`self.conversation_history`).
_KEPT_TEXT = re.compile(r"self\.\w{0,40}(?i:history|messages|conversation|transcript|dialog|turns)")


def might_remake(source: str) -> bool:
    """The text test before the module's walk: the newest item removed or written, and an
    instance's conversation (`_KEPT_TEXT`)."""
    return "[-1]" in source and ("del " in source or ".pop()" in source or '[-1]["content"] =' in source
                                 or "[-1]['content'] =" in source) and _KEPT_TEXT.search(source) is not None


def newest_remakes(module) -> list[tuple[ast.AST, ast.AST]]:
    """(the re-making call, the copy) for each function that re-makes a kept conversation's newest
    message on a copy (module docstring)."""
    out = []
    for f in statements(module.tree):
        if not isinstance(f, _FUNCS) or "[-1]" not in module.code(f):
            continue
        nodes = list(subtree(f))
        copies = _copies(nodes)
        if not copies or _written_back(nodes):
            continue
        for name, (copied, deep) in copies.items():
            for call in _remade(nodes, name, deep):
                out.append((call, copied))
    return sorted({id(c): (c, k) for c, k in out}.values(), key=lambda p: (p[0].lineno, p[0].col_offset))


def _kept(node) -> bool:
    """True for `self.X` with X named as a conversation."""
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self" \
        and bool(words(node.attr) & _HISTORY)


def _copies(nodes) -> dict[str, tuple[ast.AST, bool]]:
    """local name -> (the node that makes it a copy of a kept conversation, whether its messages
    are new objects: `[dict(m) for m in ...]`, `deepcopy(...)`, a loop appending new dicts)."""
    out = {}
    for n in nodes:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            v, name = n.value, n.targets[0].id
            if isinstance(v, (ast.ListComp, ast.GeneratorExp)) and _kept(v.generators[0].iter):
                out[name] = (n, not isinstance(v.elt, ast.Name))
            elif isinstance(v, ast.Call) and (_kept(v.func.value) if isinstance(v.func, ast.Attribute)
                                              and v.func.attr == "copy" else
                                              _call_name(v) in _COPIES and v.args and _kept(v.args[0])):
                out[name] = (n, _call_name(v) == "deepcopy")
        if isinstance(n, ast.For) and _kept(n.iter):
            for m in subtree(n):
                if isinstance(m, ast.Call) and isinstance(m.func, ast.Attribute) and m.func.attr == "append" \
                        and isinstance(m.func.value, ast.Name) and m.args:
                    out.setdefault(m.func.value.id, (n, not isinstance(m.args[0], ast.Name)))
    return out


def _call_name(call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _written_back(nodes) -> bool:
    """True when the function assigns a kept conversation (`self.history = out`)."""
    return any(isinstance(n, ast.Assign) and any(_kept(t) for t in n.targets) for n in nodes)


def _newest(node, name: str) -> bool:
    """True for `name[-1]` (and what reads it: `name[-1]["content"]`)."""
    return any(isinstance(m, ast.Subscript) and isinstance(m.value, ast.Name) and m.value.id == name
               and isinstance(m.slice, ast.UnaryOp) and isinstance(m.slice.op, ast.USub)
               and isinstance(m.slice.operand, ast.Constant) and m.slice.operand.value == 1 for m in ast.walk(node))


def _remade(nodes, name: str, deep: bool):
    """The calls given the newest item's text whose result replaces it: written to its content (of
    a message that is a new object, `deep`: else the kept message is written too), or bound to a
    name added to the copy after the newest item is removed."""
    removed = any(isinstance(n, ast.Delete) and any(_newest(t, name) for t in n.targets)
                  or isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "pop"
                  and not n.args and isinstance(n.func.value, ast.Name) and n.func.value.id == name for n in nodes)
    bound = {}  # name -> the call given the newest item, bound to it
    for n in nodes:
        if not (isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
                and any(_newest(a, name) for a in (*n.value.args, *(k.value for k in n.value.keywords)))):
            continue
        t = n.targets[0]
        if _newest(t, name):
            if deep:
                yield n.value  # `out[-1]["content"] = wrap(out[-1]["content"])`
        elif isinstance(t, ast.Name) and removed:
            bound[t.id] = n.value
    for n in nodes:
        added = n.value if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id == name \
            else n.args[0] if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
            and n.func.attr in ("extend", "append") and isinstance(n.func.value, ast.Name) \
            and n.func.value.id == name and n.args else None
        if added is not None:
            for m in ast.walk(added):
                if isinstance(m, ast.Name) and m.id in bound:
                    yield bound[m.id]
