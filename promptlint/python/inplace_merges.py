"""Messages of a conversation merged into the caller's own message objects: facts for PRM105 (the
rule judges them).

A function handed the conversation (a parameter named for it: `messages`, `history`) that walks it
(`for msg in messages:`), keeps each message itself in a list of its own (`merged.append(msg)`, not
a copy: `dict(msg)`, `msg.copy()`) and adds the text of the next message of the same role to the
last one kept (`merged[-1].content += ...`, `merged[-1]["content"] = merged[-1]["content"] + ...`)
writes into the message objects of the conversation the caller keeps. Each call adds the text
again, so a conversation that is re-sent differs from the previous request's from that message on.
Whether the caller keeps its messages across turns is not followed here: info, where the text is
added, with the append that keeps the caller's message as a related place.

The same function adding text to a message it looks up in the conversation it is handed (`sys =
next(m for m in messages if m["role"] == "system")` or `messages[0]`, then `sys["content"] += ...`)
writes into the caller's message too: each call appends the text again, so the message grows on
every request of a caller that passes the same conversation again (an agent's loop). So does one
that pops that message (`system = messages.pop(0)`), also from the conversation a parameter holds
under another name (`messages = state.messages`: the caller's list, not a copy). A conversation
rebound first (`messages = [dict(m) for m in messages]`: a copy) is not the caller's: not one.

Shape: `inplace_merges(module) -> [(the write, the append)]`, `inplace_appends(module) -> [(the
write, the look-up of the message)]` (ast nodes), in source order.
"""
from __future__ import annotations

import ast
import re

from .prompt_names import words
from .walk import statements, subtree

_HISTORY = frozenset({"history", "messages", "msgs", "conversation", "transcript", "dialog", "dialogue", "turns"})
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


#: The text test before the module's walk: a write to the content of a list's last item.
TEXT = re.compile(r"\[-1\](?:\.content|\[[\"']content[\"']\])\s{0,4}\+?=(?!=)")
#: The text test for `inplace_appends`: text added to a message's content.
APPEND_TEXT = re.compile(r"(?:\.content|\[[\"']content[\"']\])\s{0,4}(?:\+=|=[^=\n]{1,80}\[[\"']content[\"']\]\s{0,4}\+)")


def might_append(source: str) -> bool:
    """True when `source` may add text to a message of the conversation (`APPEND_TEXT`)."""
    return ("[0]" in source or "next(" in source or ".pop(0)" in source) and "content" in source and APPEND_TEXT.search(source) is not None


def might_merge(source: str) -> bool:
    """True when `source` may hold a merge (`TEXT`): the test before the module's walk."""
    return "[-1]" in source and TEXT.search(source) is not None


def _functions(module):
    """(function, the names of its parameters named as the conversation) for every function and
    method of the module, in `statements` order."""
    for f in statements(module.tree):
        if isinstance(f, _FUNCS):
            a = f.args
            yield f, {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs) if words(p.arg) & _HISTORY}


def inplace_merges(module) -> list[tuple[ast.AST, ast.AST]]:
    """(the write that adds text to a kept message of the caller, the append that kept it)."""
    out = []
    for f, held in _functions(module):
        for loop in subtree(f):
            if isinstance(loop, ast.For) and isinstance(loop.target, ast.Name) and _walks(loop.iter, held):
                out.extend(_merges(loop, loop.target.id))
    return sorted({id(w): (w, k) for w, k in out}.values(), key=lambda p: (p[0].lineno, p[0].col_offset))


def inplace_appends(module) -> list[tuple[ast.AST, ast.AST]]:
    """(the write that adds text to a message of the caller's conversation, the look-up of that message)."""
    out = []
    for f, held in _functions(module):
        nodes = list(subtree(f))
        rebound = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        held = (held - rebound) | _aliases(nodes, f)  # `messages = [dict(m) for m in messages]`: a copy
        if not held:
            continue
        looked = {}  # name -> the assignment that binds it to a message of the conversation
        stored = {}  # name -> the lines it is bound at
        for n in nodes:
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                stored.setdefault(n.id, []).append(n.lineno)
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                    and _message_of(n.value, held):
                looked[n.targets[0].id] = n
        for n in nodes:
            target = _appended(n)
            if target is None:
                continue
            if isinstance(target, ast.Name) and target.id in looked \
                    and max(i for i in stored[target.id] if i < n.lineno or i == looked[target.id].lineno) \
                    == looked[target.id].lineno:  # (bound last, before the write, by the look-up)
                out.append((n, looked[target.id]))
            elif _message_of(target, held):
                out.append((n, target))
    return sorted({id(w): (w, k) for w, k in out}.values(), key=lambda p: (p[0].lineno, p[0].col_offset))


def _aliases(nodes, f) -> set[str]:
    """Names bound once, to the conversation a parameter holds (`messages = state.messages`,
    `history = state["messages"]`): the caller's list under another name, not a copy."""
    a = f.args
    params = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)} - {"self", "cls"}
    binds = [n for n in nodes if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)]
    once = {n.targets[0].id for n in binds}
    once -= {t for t in once if sum(1 for x in nodes if isinstance(x, ast.Name) and x.id == t
                                    and isinstance(x.ctx, ast.Store)) > 1}
    out = set()
    for n in binds:
        name, v = n.targets[0].id, n.value
        key = v.attr if isinstance(v, ast.Attribute) else v.slice.value if isinstance(v, ast.Subscript) \
            and isinstance(v.slice, ast.Constant) and isinstance(v.slice.value, str) else None
        if name in once and words(name) & _HISTORY and key is not None and words(key) & _HISTORY \
                and isinstance(v.value, ast.Name) and v.value.id in params:
            out.add(name)
    return out


def _message_of(node, held: set[str]) -> bool:
    """True for `P[0]`, `P.pop(0)` or `next(<generator over P>)` (its first match) with P a
    conversation parameter (or a name bound to a parameter's conversation)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "pop" \
            and isinstance(node.func.value, ast.Name) and node.func.value.id in held and len(node.args) == 1 \
            and isinstance(node.args[0], ast.Constant) and node.args[0].value == 0:
        return True
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in held:
        # its head only: the newest (`[-1]`) is another message once an answer is added after it
        return isinstance(node.slice, ast.Constant) and node.slice.value == 0 and type(node.slice.value) is int
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "next" and node.args \
            and isinstance(node.args[0], ast.GeneratorExp):
        gens = node.args[0].generators
        return len(gens) == 1 and isinstance(gens[0].iter, ast.Name) and gens[0].iter.id in held \
            and isinstance(gens[0].target, ast.Name) and isinstance(node.args[0].elt, ast.Name) \
            and node.args[0].elt.id == gens[0].target.id
    return False


def _appended(node):
    """The message M of `M["content"] += x` / `M.content += x` / `M["content"] = M["content"] + x`."""
    return _text_added(node, _content_of)


def _text_added(node, read):
    """`read(X)` of a statement that adds text to X: `X += x`, or `X = X + ...` with the same X
    on both sides (`a + "\n" + b` is `(a + "\n") + b`: its leftmost term); None otherwise.
    `read` gives a string or a node (nodes compared by `ast.dump`)."""
    if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add):
        return read(node.target)
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.BinOp) \
            and isinstance(node.value.op, ast.Add):
        got, left = read(node.targets[0]), node.value
        while isinstance(left, ast.BinOp) and isinstance(left.op, ast.Add):
            left = left.left
        other = read(left)
        if got is not None and other is not None \
                and (got == other if isinstance(got, str) else ast.dump(got) == ast.dump(other)):
            return got
    return None


def _content_of(t):
    if isinstance(t, ast.Attribute) and t.attr == "content":
        return t.value
    if isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) and t.slice.value == "content":
        return t.value
    return None


def _walks(node, held: set[str]) -> bool:
    """True for the conversation parameter itself, or a slice of it (`messages[1:]`)."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        node = node.value
    return isinstance(node, ast.Name) and node.id in held


def _merges(loop: ast.For, item: str):
    body = [n for stmt in loop.body for n in subtree(stmt)]
    # the item rebound in the loop (`msg = msg.copy()`) before a statement that keeps it: not known
    # to be the caller's there; rebound only after (`if kind in plain: kept.append(msg); continue`,
    # then `msg = convert(msg)`), what that statement keeps is the caller's message
    rebound = min((i for i, stmt in enumerate(loop.body) for n in subtree(stmt)
                   if isinstance(n, ast.Name) and n.id == item and isinstance(n.ctx, ast.Store)), default=None)
    kept = {}  # list name -> the append that keeps the item itself
    for i, stmt in enumerate(loop.body):
        if rebound is not None and i >= rebound:
            break
        for n in subtree(stmt):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "append" \
                    and isinstance(n.func.value, ast.Name) and len(n.args) == 1 \
                    and isinstance(n.args[0], ast.Name) and n.args[0].id == item:
                kept.setdefault(n.func.value.id, n)
    for n in body:
        target = _added_to(n)
        if target is not None and target in kept:
            yield n, kept[target]


def _added_to(node) -> str | None:
    """The list L of `L[-1].content += x` / `L[-1]["content"] += x` / `L[-1].content = L[-1].content + x`."""
    return _text_added(node, _last_content)


def _last_content(t) -> str | None:
    """L for `L[-1].content` or `L[-1]["content"]`, else None."""
    if isinstance(t, ast.Attribute) and t.attr == "content":
        inner = t.value
    elif isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) and t.slice.value == "content":
        inner = t.value
    else:
        return None
    if isinstance(inner, ast.Subscript) and isinstance(inner.value, ast.Name) and isinstance(inner.slice, ast.UnaryOp) \
            and isinstance(inner.slice.op, ast.USub) and isinstance(inner.slice.operand, ast.Constant) \
            and inner.slice.operand.value == 1:
        return inner.value.id
    return None
