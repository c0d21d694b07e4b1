"""Stored messages replayed without part of what they said: facts for PRM105 (the rule judges them).

A function that rebuilds the conversation from what it stored (a loop over stored messages or
turns: its iterable is named for them, `turn.input_messages`, `self.history`) copies each message
(`msg = m.model_copy()`, `m.copy()`, `copy.deepcopy(m)`, `dict(m)`), clears a field of the copy
that holds content (`msg.context = None`, `msg["images"] = []`, `del msg["attachments"]`: a
field named `content`, `context`, `attachments`, `images`, `documents`, `files`, `media`) and
adds the copy to the list it returns. A message sent with that field when it was the newest (the
retrieved context of its turn, its images) is re-sent without it from the next turn on: the
history differs from the previous request's from that message, and what a cache held of it ends
there. The first request of the message is not followed here (it may have been built the same
way, without the field): info, where the field is cleared.
"""
from __future__ import annotations

import ast

from .prompt_names import words
from .module import statements
from .walk import own_nodes, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: Fields of a message that hold what it says (beside its text).
_CONTENT_FIELDS = frozenset({"content", "context", "attachments", "images", "documents", "files", "media"})
#: Words of an iterable of stored messages or turns.
_STORED = frozenset({"messages", "turns", "history", "turn", "conversation", "transcript", "steps"})
_COPIES = frozenset({"copy", "model_copy", "deepcopy", "dict", "copy_with"})
#: The text test before the module's walk: a content field cleared (with a copy made: `copy(`);
#: `REMOVED` the other ways to clear one (also read by the walk).
TEXT = (".context = None", ".content = None", ".images = ", ".attachments = ", ".documents = ", ".files = ",
        ".media = ", '["images"] = ', '["attachments"] = ', '["context"] = None')
REMOVED = ("del ", ".pop(")


def replay_strips(module) -> list[tuple[ast.AST, ast.AST]]:
    """(the statement that clears a field of a copied stored message, the loop over the stored
    messages) for each function of the module that returns the copies, in source order; one per
    function."""
    out = []
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        a, b = module.offsets(func)
        if module.source.find("copy(", a, b) == -1:
            continue  # (its text copies nothing: not walked)
        own = own_nodes(func, body_only=True)
        returned = {r.value.id for r in own if isinstance(r, ast.Return) and isinstance(r.value, ast.Name)}
        if not returned:
            continue
        for loop in (n for n in own if isinstance(n, (ast.For, ast.AsyncFor))):
            found = _stripped(loop, returned, func)
            if found is not None:
                out.append((found, loop))
                break
    return sorted(out, key=lambda f: (f[0].lineno, f[0].col_offset))


def _stripped(loop, returned: set[str], func) -> ast.AST | None:
    """The statement of `loop` that clears a content field of a copy of the loop's item that the
    loop then appends to a returned list, or None."""
    if not isinstance(loop.target, ast.Name):
        return None
    item = loop.target.id
    body = [n for s in loop.body for n in subtree(s)]
    copies = {t.id for n in body if isinstance(n, ast.Assign) and _copy_of(n.value, item)
              for t in n.targets if isinstance(t, ast.Name)}
    if not copies or not words(ast.unparse(loop.iter)) & _STORED:
        return None
    appended = {a.id for n in body if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                and n.func.attr in ("append", "extend", "insert") and isinstance(n.func.value, ast.Name)
                and n.func.value.id in returned for a in n.args if isinstance(a, ast.Name)}
    for name in copies & appended:
        for n in body:
            if _clears(n, name):
                return n
    return None


def _copy_of(value, item: str) -> bool:
    """`item.copy()`, `item.model_copy()`, `copy.deepcopy(item)`, `dict(item)`."""
    if not isinstance(value, ast.Call):
        return False
    f = value.func
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    if name not in _COPIES:
        return False
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == item and not value.args:
        return True
    return len(value.args) == 1 and isinstance(value.args[0], ast.Name) and value.args[0].id == item


def _field(target, name: str) -> bool:
    """True for `name.<content field>` or `name["<content field>"]`."""
    if isinstance(target, ast.Attribute):
        return isinstance(target.value, ast.Name) and target.value.id == name and target.attr in _CONTENT_FIELDS
    return isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id == name \
        and isinstance(target.slice, ast.Constant) and target.slice.value in _CONTENT_FIELDS


def _clears(node, name: str) -> bool:
    """True when `node` empties a content field of `name`: assigns it None, "", [] or {}, deletes
    it, or pops it."""
    if isinstance(node, ast.Assign) and any(_field(t, name) for t in node.targets):
        v = node.value
        return (isinstance(v, ast.Constant) and v.value in (None, "")) or (
            isinstance(v, (ast.List, ast.Dict, ast.Tuple)) and not getattr(v, "elts", None) and not getattr(v, "keys", None))
    if isinstance(node, ast.Delete):
        return any(_field(t, name) for t in node.targets)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "pop" \
            and isinstance(node.func.value, ast.Name) and node.func.value.id == name and node.args:
        key = node.args[0]
        return isinstance(key, ast.Constant) and key.value in _CONTENT_FIELDS
    return False
