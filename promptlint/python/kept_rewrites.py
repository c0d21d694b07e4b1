"""Messages of a kept conversation rewritten in place before a new one is added: facts for PRM105
(the rule judges them).

A method of a class walks a conversation an object keeps across calls (`for message in
self.agent.messages:`, `for m in self.history:`: a chain of attributes from `self` whose last name
is the conversation's, `classify.CONVERSATION_WORDS`) and writes each walked message's content (or
a part of it: `for part in message["content"]: part["text"] = ...`) from that content's own old
value (`content["text"] = re.sub(p, "", content["text"])`, `m.content = strip(m.content)`): every
message it walks is rewritten the same way. When a method of the same class runs it and then adds
a new message to that conversation (`self.remove_ids_from_history()`, then
`self.agent.add_message(text)` or `self.agent.messages.append(...)`), the new message is sent as
it was written and rewritten on the next turn: the history re-sent then differs from the previous
request's from that message on, and everything after it is read uncached, turn after turn.

A rewrite run after the newest message is added (the sent message is already rewritten, the same
on every later turn), a write of a copy (`m = dict(m)`), a write of a value that does not read the
old content (a placeholder: `inplace_rewrites` when a test picks the message) and a list handed in
as a parameter (the caller's keeping is not seen) are not this shape. The request that sends the
conversation is not followed here: info, where the rewrite is run, with the write as a related
place.

Shape: `kept_rewrites(module) -> [(the statement that runs the rewrite, the write)]` (ast nodes),
in source order.
"""
from __future__ import annotations

import ast
import re

from ..classify import CONVERSATION_WORDS
from .prompt_names import words
from .module import attribute_chain
from .walk import statements, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_CONTENT_KEYS = frozenset({"content", "text"})
_ADD_WORDS = frozenset({"add", "append", "push", "extend", "insert", "record"})


#: The text tests before the module's walk: a loop over a conversation kept on `self`, a content write.
WALK_TEXT = re.compile(r"for \w+ in self\.[\w.]*?(?:essages|istory|onversation|ranscript|ialog|ialogue|turns|msgs)\s*:")
WRITE_TEXT = re.compile(r"""(?:\[["'](?:content|text)["']\]|\.(?:content|text))\s{0,4}\+?=(?!=)""")


def might_rewrite(source: str) -> bool:
    """True when `source` may hold the shape (`WALK_TEXT` and `WRITE_TEXT`)."""
    return "for " in source and WALK_TEXT.search(source) is not None and WRITE_TEXT.search(source) is not None


def kept_rewrites(module) -> list[tuple[ast.AST, ast.AST]]:
    """(the statement that runs the rewrite of a kept conversation before a new message is added
    to it, the write of a walked message's content), in source order."""
    out = []
    for cls in statements(module.tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        methods = [f for f in cls.body if isinstance(f, _FUNCS)]
        rewriters = {}  # method name -> (the kept conversation's chain, the write)
        loops = []  # (the loop, the chain, the write, the method it is in)
        for f in methods:
            for loop in subtree(f):
                found = _rewrite(loop)
                if found is not None:
                    loops.append((loop, *found, f))
                    rewriters.setdefault(f.name, found)
        for f in methods:
            for node in subtree(f):
                run = _runs(node, rewriters)
                if run is not None and _added_after(f, node, run[0]):
                    out.append((node, run[1]))
        for loop, chain, write, f in loops:
            if _added_after(f, loop, chain):
                out.append((loop, write))
    return sorted({id(s): (s, w) for s, w in out}.values(), key=lambda p: (p[0].lineno, p[0].col_offset))


def _kept_chain(expr) -> list[str] | None:
    """The chain `["self", ..., "messages"]` of a conversation an object keeps, else None."""
    chain = attribute_chain(expr) if isinstance(expr, ast.Attribute) else []
    if len(chain) >= 2 and chain[0] == "self" and words(chain[-1]) & CONVERSATION_WORDS:
        return chain
    return None


def _rewrite(loop):
    """(the kept chain, the write) when `loop` walks a kept conversation and writes each walked
    message's content from its old value with no test on the position, else None."""
    if not isinstance(loop, ast.For) or not isinstance(loop.target, ast.Name):
        return None
    chain = _kept_chain(loop.iter)
    if chain is None:
        return None
    held = {loop.target.id}
    for inner in subtree(loop):  # a part of the message's content walked: `for c in m["content"]:`
        if inner is not loop and isinstance(inner, ast.For) and isinstance(inner.target, ast.Name) \
                and _names(inner.iter) & held:
            held.add(inner.target.id)
    for node in subtree(loop):
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            for target in getattr(node, "targets", None) or [node.target]:
                base = _content_base(target)
                if base in held and not _rebound(loop, base, node) and _reads_old(node, base, loop):
                    return chain, node
    return None


def _rebound(loop, name: str, write) -> bool:
    """True when `loop` binds `name` anew before `write` (`m = dict(m)`: a copy is written)."""
    walked = {id(t) for f in subtree(loop) if isinstance(f, ast.For) for t in subtree(f.target)}
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id == name
               and loop.lineno < n.lineno <= write.lineno and id(n) not in walked for n in subtree(loop))


def _content_base(target) -> str | None:
    """`m` of `m["content"]`, `m.content`, `c["text"]` or `c.text`, else None."""
    if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) \
            and target.slice.value in _CONTENT_KEYS:
        inner = target.value
    elif isinstance(target, ast.Attribute) and target.attr in _CONTENT_KEYS:
        inner = target.value
    else:
        return None
    return inner.id if isinstance(inner, ast.Name) else None


def _names(node) -> set[str]:
    return {n.id for n in subtree(node) if isinstance(n, ast.Name)}


def _reads_old(write, base: str, loop) -> bool:
    """True when the written value is made from the walked item's old text: it reads `base` (`+=`
    keeps the old value), or a name assigned in `loop` before the write from `base` or from a name
    made from it (`lines = [re.sub(p, "", l) for l in c["text"].splitlines()]`, `result =
    "\\n".join(lines)`)."""
    if isinstance(write, ast.AugAssign):
        return True
    value_names = _names(write.value)
    made = {base}
    for node in subtree(loop):
        if isinstance(node, ast.Assign) and node.lineno < write.lineno and _names(node.value) & made:
            for t in node.targets:
                made |= {n.id for n in subtree(t) if isinstance(n, ast.Name)}
    return bool(value_names & made)


def _runs(node, rewriters: dict):
    """(the kept chain, the write) when `node` is a statement that calls a rewriting method of the
    class (`self.remove_ids_from_history()`), else None."""
    if not isinstance(node, ast.Expr) or not isinstance(node.value, (ast.Call, ast.Await)):
        return None
    call = node.value.value if isinstance(node.value, ast.Await) else node.value
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) \
            and isinstance(call.func.value, ast.Name) and call.func.value.id == "self":
        return rewriters.get(call.func.attr)
    return None


def _added_after(f, node, chain: list[str]) -> bool:
    """True when a statement of `f` after `node` adds a message to the conversation `chain` names:
    `self.agent.messages.append(...)`, or a method of its holder named for adding
    (`self.agent.add_message(...)`)."""
    holder = chain[:-1]
    end = getattr(node, "end_lineno", node.lineno)
    for call in subtree(f):
        if not isinstance(call, ast.Call) or call.lineno <= end or not isinstance(call.func, ast.Attribute):
            continue
        owner = attribute_chain(call.func.value)
        verb = words(call.func.attr)
        if owner == chain and verb & _ADD_WORDS:
            return True
        if owner == holder and verb & _ADD_WORDS \
                and verb & CONVERSATION_WORDS:
            return True
    return False


#: The text test before `older_writes`: an item counted from the end written (`[-2]["content"] =`,
#: `[-3].content =`; bounded repetition: linear).
OLDER_TEXT = re.compile(r"\[-[2-9]\](?:\[[\"'][\w]{1,30}[\"']\]|\.\w{1,30})[ \t]{0,4}\+?=(?!=)")
#: Keys of a message whose write is not its content (a cache breakpoint: PRM304 / PRM302's).
_NOT_CONTENT = frozenset({"cache_control", "cachePoint"})


def older_writes(module) -> list[ast.stmt]:
    """The statements that write a message older than the newest of a conversation an object keeps,
    counted from its end (`convo.messages[-2]["content"] = re.sub(...)`, `self.history[-3].content
    += note`): the list an attribute chain holds (not a local list, not a parameter: the keeping of
    those is not seen), named for the conversation. Re-sent next turn, the history differs from the
    previous request's from that message on; in source order."""
    out = []
    for n in ast.walk(module.tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1:
            target = n.targets[0]
        elif isinstance(n, ast.AugAssign):
            target = n.target
        else:
            continue
        if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant):
            key, item = target.slice.value, target.value
        elif isinstance(target, ast.Attribute):
            key, item = target.attr, target.value
        else:
            continue
        if key in _NOT_CONTENT or not (isinstance(item, ast.Subscript) and isinstance(item.slice, ast.UnaryOp)
                                       and isinstance(item.slice.op, ast.USub)
                                       and isinstance(item.slice.operand, ast.Constant)
                                       and isinstance(item.slice.operand.value, int)
                                       and item.slice.operand.value >= 2):
            continue
        held = item.value
        if isinstance(held, ast.Attribute) and words(held.attr) & CONVERSATION_WORDS:
            out.append(n)
    return sorted(out, key=lambda s: (s.lineno, s.col_offset))
