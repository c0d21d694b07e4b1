"""A stored conversation that keeps only some fields of each message: facts for PRM105 (the rule
judges them).

A class that keeps a conversation (its name says so: `RedisChatMessageHistory`, `ChatStore`)
and rebuilds messages when it reads it back (`messages_from_dict(...)`, `AIMessage(content=...)`,
`ChatMessage(**row)`), whose method given a message (a parameter annotated as one,
`message: BaseMessage`, or named `message` / `msg`) stores a record it writes out field by field
(`{"content": message.content, "type": message.type, "additional_kwargs": ...}`) without the
message's tool calls and without serialising the message whole (`message_to_dict(message)`,
`message.model_dump()`, `message.dict()`, `pickle.dumps(message)`): a message read back lacks
what it had when it was sent (an assistant's tool calls, a name, an id), so it is sent differently
on the next turn and the history differs from the previous request's from the first such message
on. Whether the conversation holds such messages is not known here: info, at the record's content.
The record must be kept: handed to a call that stores it (`self.rows.append(record)`, `store.save(
...)`), assigned, or returned; a dict handed to any other call (`AgentMessage.from_llm_message({
"content": message.content, "rounds": rounds})`: a new message made for another agent) stores nothing.

Shape: `stored_fields(module) -> [the "content" value of the record]` (ast nodes), in source order.
"""
from __future__ import annotations

import ast
import re

from .module import statements
from .prompt_names import words
from .walk import subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: Words of a class that keeps a conversation.
_KEEPS = frozenset({"history", "messages", "chat", "conversation", "memory"})
#: Calls that serialise a message whole.
_WHOLE = frozenset({"message_to_dict", "messages_to_dict", "model_dump", "model_dump_json", "dict", "json",
                    "to_dict", "to_json", "dumps", "asdict", "vars", "serialize", "dumpd", "copy", "deepcopy"})
#: Fields whose absence from the record loses what the message said or did.
_KEPT = frozenset({"tool_calls", "function_call"})
#: The text test before the module's walk: a message's content stored under a key, and a rebuild.
TEXT = re.compile(r"[\"']content[\"']\s{0,2}:\s{0,2}(?:message|msg)\.content\b")


def might_store_fields(source: str) -> bool:
    """True when the text may hold such a record (`TEXT`) and a rebuild of messages."""
    return "Message" in source and TEXT.search(source) is not None


def stored_fields(module) -> list[ast.AST]:
    """The content value of each such record, in source order."""
    out = []
    for cls in (n for n in statements(module.tree) if isinstance(n, ast.ClassDef)):
        if not words(cls.name) & _KEEPS or not _rebuilds(cls):
            continue
        for method in (m for m in cls.body if isinstance(m, _FUNCS)):
            param = _message_param(method)
            if param is None:
                continue
            nodes = list(subtree(method))
            if any(_whole(n, param) for n in nodes) or any(isinstance(n, ast.Attribute) and n.attr in _KEPT
                                                           and _is(n.value, param) for n in nodes):
                continue
            parents = {id(c): n for n in nodes for c in ast.iter_child_nodes(n)}
            for d in (n for n in nodes if isinstance(n, ast.Dict) and _kept(n, parents)):
                for k, v in zip(d.keys, d.values):
                    if isinstance(k, ast.Constant) and k.value == "content" and isinstance(v, ast.Attribute) \
                            and v.attr == "content" and _is(v.value, param):
                        out.append(v)
    return sorted(out, key=lambda n: (n.lineno, n.col_offset))


#: Calls that keep a record (a list, a store, a database, a file).
_STORES = frozenset({"append", "extend", "insert", "add", "save", "put", "set", "push", "rpush", "lpush", "hset",
                     "write", "execute", "insert_one", "insert_many", "update", "upsert", "dump", "dumps", "store",
                     "add_message", "add_messages", "setex", "xadd", "zadd", "sadd", "index", "create"})


def _kept(d: ast.Dict, parents: dict) -> bool:
    """True when the record `d` (or the dicts and lists it sits in) is assigned, returned or handed
    to a call that keeps it (`_STORES`); False when it is handed to any other call (a message made
    from it) or used otherwise."""
    node = d
    while isinstance(parents.get(id(node)), (ast.Dict, ast.List, ast.Tuple, ast.keyword, ast.Starred)):
        node = parents[id(node)]
    up = parents.get(id(node))
    if isinstance(up, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return)):
        return True
    if isinstance(up, ast.Call) and up.func is not node:
        f = up.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        return name in _STORES
    return False


def _rebuilds(cls: ast.ClassDef) -> bool:
    """True when a method of the class makes messages from what it read (`messages_from_dict`, a
    call of a class named `...Message`)."""
    for n in ast.walk(cls):
        if isinstance(n, ast.Call):
            name = n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id if isinstance(n.func, ast.Name) else ""
            if name in ("messages_from_dict", "message_from_dict", "_message_from_dict") \
                    or name.endswith("Message") and name[:1].isupper():
                return True
    return False


def _message_param(method) -> str | None:
    """The parameter that is one message: annotated `...Message`, or named `message` / `msg`."""
    for a in (*method.args.posonlyargs, *method.args.args, *method.args.kwonlyargs):
        ann = a.annotation
        named = ann.attr if isinstance(ann, ast.Attribute) else ann.id if isinstance(ann, ast.Name) else ""
        if named.endswith("Message") or a.arg in ("message", "msg"):
            return a.arg
    return None


def _is(node, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _whole(n, param: str) -> bool:
    """A call that serialises the message whole (`message_to_dict(m)`, `m.model_dump()`)."""
    if not isinstance(n, ast.Call):
        return False
    f = n.func
    if isinstance(f, ast.Attribute) and f.attr in _WHOLE and _is(f.value, param):
        return True
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    return name in _WHOLE and any(_is(a, param) for a in n.args)
