"""A message of the conversation changed after the request that sent it: facts for PRM105 (the
rule judges them).

A function that sends a conversation it does not own (a parameter named for it, `messages`, or
a list the instance keeps, `self.history`) in a call (under a keyword named for it, `messages=`,
`contents=`, or as the first argument of a call named for a request, `chat(history)`) and, after
that call, clears or replaces a field of one of its messages that holds what it says
(`messages[-1]["images"] = None`, `self.history[i].content = "[omitted]"`, `del
messages[-1]["images"]`, `messages[-1].pop("attachments")`: the value a constant or an empty
container) changes a message the request has just sent: the next request re-sends it changed, so
the history differs from the previous request's from that message on, and what a cache held of it
(a provider's or a local server's) ends there. A message added after the send and before the
write (`messages.append(reply)`, then `messages[-1]["content"] = ""`) is not a sent one; a list
the function rebinds first (`messages = list(messages)`) is its own copy. The write is reported
(info: how much follows the message is not known here), with the send as a related place.

Shape: `sent_rewrites(module) -> [(the write, the call that sent the list)]` (ast nodes), in
source order.
"""
from __future__ import annotations

import ast
import re

from .module import statements
from .prompt_names import words
from .walk import subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: Fields of a message that hold what it says.
_FIELDS = frozenset({"content", "images", "image", "image_url", "attachments", "files", "media", "documents",
                     "parts", "audio", "video"})
#: Words of a list that is the conversation.
_CONVERSATION = frozenset({"messages", "msgs", "history", "conversation", "contents", "transcript", "dialog",
                           "dialogue", "chat"})
#: Keywords a call takes the conversation by.
_KEYWORDS = frozenset({"messages", "contents", "history", "conversation", "chat_history"})
#: Last names of calls that send their first argument as the conversation.
_SENDS = frozenset({"chat", "achat", "create", "acreate", "completion", "acompletion", "generate", "agenerate",
                    "invoke", "ainvoke", "stream", "astream", "generate_content", "generate_content_async",
                    "send", "complete", "acomplete"})
#: The text test before the module's walk: a field of an indexed message written, cleared or popped.
TEXT = re.compile(r"\]\s{0,2}(?:\[[\"'](?:" + "|".join(sorted(_FIELDS)) + r")[\"']\]|\.(?:"
                  + "|".join(sorted(_FIELDS)) + r"))\s{0,2}=[^=]|\]\.pop\([\"'](?:" + "|".join(sorted(_FIELDS)) + r")")


def might_rewrite_sent(source: str) -> bool:
    """True when the text may hold such a write (`TEXT`)."""
    return TEXT.search(source) is not None


def sent_rewrites(module) -> list[tuple[ast.AST, ast.AST]]:
    """(the write of a sent message's field, the call that sent the list) for every function of
    the module, in source order."""
    out = []
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        nodes = list(subtree(func))
        params = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)}
        rebound = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        sends = {}  # the list's key -> the calls that send it
        for n in nodes:
            if isinstance(n, ast.Call):
                for value in _sent(n):
                    key = _owned(value, params - rebound)
                    if key is not None:
                        sends.setdefault(key, []).append(n)
        if not sends:
            continue
        grows = [(n, k) for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                 and n.func.attr in ("append", "extend", "insert") and (k := _key(n.func.value)) in sends]
        for n in nodes:
            target = _written(n)
            if target is None:
                continue
            key = _key(target)
            for call in sends.get(key, ()):
                if _after(call, n) and not any(k == key and _after(call, g) and _after(g, n) for g, k in grows):
                    out.append((n, call))
                    break
    return sorted({id(w): (w, c) for w, c in out}.values(), key=lambda p: (p[0].lineno, p[0].col_offset))


def _sent(call: ast.Call):
    """The values a call takes as the conversation (`messages=x`, or `x` of `model.chat(x)`)."""
    for k in call.keywords:
        if k.arg in _KEYWORDS:
            yield k.value
    f = call.func
    if call.args and isinstance(f, ast.Attribute) and f.attr in _SENDS:
        yield call.args[0]


def _key(node) -> str | None:
    """`name` or `self.a.b` as text, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _owned(value, params: set[str]) -> str | None:
    """The key of a list the function does not own, named for the conversation: a parameter it
    never rebinds, or an attribute chain of `self`."""
    key = _key(value)
    if key is None or not words(key.rpartition(".")[2]) & _CONVERSATION:
        return None
    head = key.split(".")[0]
    if "." not in key:
        return key if key in params else None
    return key if head == "self" else None


def _written(n) -> ast.expr | None:
    """The list L of a write that clears or replaces a content field of one of its messages
    (`L[i][field] = constant`, `L[i].field = constant`, `del L[i][field]`, `L[i].pop(field)`)."""
    if isinstance(n, ast.Assign) and len(n.targets) == 1 and _cleared(n.value):
        return _field_of(n.targets[0])
    if isinstance(n, ast.Delete) and len(n.targets) == 1:
        return _field_of(n.targets[0])
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "pop" and n.args \
            and isinstance(n.args[0], ast.Constant) and n.args[0].value in _FIELDS \
            and isinstance(n.func.value, ast.Subscript) and not isinstance(n.func.value.slice, ast.Slice):
        return n.func.value.value
    return None


def _field_of(t) -> ast.expr | None:
    if isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) and t.slice.value in _FIELDS:
        inner = t.value
    elif isinstance(t, ast.Attribute) and t.attr in _FIELDS:
        inner = t.value
    else:
        return None
    if isinstance(inner, ast.Subscript) and not isinstance(inner.slice, ast.Slice):
        return inner.value
    return None


def _cleared(v) -> bool:
    """A constant, or an empty list, dict or tuple."""
    return isinstance(v, ast.Constant) or isinstance(v, (ast.List, ast.Tuple)) and not v.elts \
        or isinstance(v, ast.Dict) and not v.keys


def _after(a, b) -> bool:
    """True when node `b` starts after node `a` ends."""
    return (b.lineno, b.col_offset) > (a.end_lineno, a.end_col_offset)
