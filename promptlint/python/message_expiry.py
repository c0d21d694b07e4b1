"""A stored conversation whose messages expire one by one: facts for PRM105 (the rule judges them).

A class that keeps a conversation (its name says so: `RedisChatMessageHistory`, `ChatMemory`,
`ConversationStore`) whose method that adds messages (`add_message`, `add_messages`,
`save_message`) stores them with an expiry (`index.load(data=[data], keys=[key], ttl=self.ttl)`,
`client.set(key, value, ex=self.ttl)`, `client.expire(key, self.ttl)`) under keys the method
makes for them (local names: one record per message), not under the conversation's own key (an
attribute of the instance, `self.key`: the whole conversation expires at once, its expiry renewed
on each write). In a conversation that lasts longer than the expiry its oldest messages expire
one by one, so the history read back loses its head on every turn from then on and nothing
after the system prompt is read from the cache. Whether the expiry is set is the caller's
choice: info, where the messages are stored with it.

Shape: `message_expiry(module) -> [where a call that stores messages gives their own expiry: the
keyword's value, or the `expire` call]` (ast nodes), in source order.
"""
from __future__ import annotations

import ast
import re

from .module import statements
from .prompt_names import words
from .walk import subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: Words of a class that keeps a conversation.
_KEEPS = frozenset({"history", "message", "messages", "chat", "conversation", "memory"})
#: Words of a method that stores messages (with a word `message` / `messages` too).
_STORES = frozenset({"add", "save", "append", "store", "put", "write", "push"})
#: Keywords that set an expiry.
_EXPIRY = frozenset({"ttl", "ex", "px", "expire", "expiry", "expires_in", "expiration", "time_to_live"})
#: Methods that set an expiry on their first argument (the key).
_EXPIRES = frozenset({"expire", "pexpire", "setex", "psetex", "expireat"})
#: The text test before the module's walk.
TEXT = re.compile(r"\b(?:ttl|ex|px|expire|expiry|expires_in|expiration|time_to_live)\s{0,2}=[^=]|\.(?:p?expire|p?setex|expireat)\(")


def might_expire(source: str) -> bool:
    """True when the text may store something with an expiry (`TEXT`) in a method named for
    messages."""
    return "_message" in source and "class " in source and TEXT.search(source) is not None


def message_expiry(module) -> list[ast.AST]:
    """Where calls that store messages under keys of their own give an expiry, in source order."""
    out = []
    for cls in (n for n in statements(module.tree) if isinstance(n, ast.ClassDef)):
        if not words(cls.name) & _KEEPS:
            continue
        for method in (m for m in cls.body if isinstance(m, _FUNCS)):
            named = words(method.name)
            if not named & _STORES or not named & {"message", "messages"}:
                continue
            nodes = list(subtree(method))
            local = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            out.extend(_expiry_at(n) for n in nodes if isinstance(n, ast.Call) and _expires_own(n, local))
    return sorted(out, key=lambda n: (n.lineno, n.col_offset))


def _expiry_at(call: ast.Call) -> ast.AST:
    """Where the call gives the expiry: its keyword's value (`ttl=self.ttl`), or the call."""
    return next((k.value for k in call.keywords if k.arg in _EXPIRY), call)


def _expires_own(call: ast.Call, local: set[str]) -> bool:
    """True for a call that stores with an expiry (a keyword of `_EXPIRY` that is not None, or
    `x.expire(key, ...)`) and whose keys are names the method made, none an attribute of `self`."""
    f = call.func
    if isinstance(f, ast.Attribute) and f.attr in _EXPIRES and call.args:
        keyed = [call.args[0]]
    elif any(k.arg in _EXPIRY and not (isinstance(k.value, ast.Constant) and k.value.value is None)
             for k in call.keywords):
        keyed = [*call.args, *(k.value for k in call.keywords if k.arg not in _EXPIRY)]
    else:
        return False
    names = [x for v in keyed for x in subtree(v)]
    if any(isinstance(x, ast.Attribute) and isinstance(x.value, ast.Name) and x.value.id == "self" for x in names):
        return False  # the conversation's own key (`self.key`): it expires whole
    return any(isinstance(x, ast.Name) and x.id in local for x in names)
