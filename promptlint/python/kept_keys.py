"""The conversation's newest groups kept by their keys, the others excluded: facts for PRM105 (the
rule judges them).

A function handed the conversation (a name of it: `messages`, `history`) that derives a list of
keys from it (the ids of its groups or turns: `ids = _group_ids(messages)`, `[g for g in ids if
kinds[g] != "system"]`), keeps the newest `N` of them (`keep = set(ids[-N:])`, `N` a constant, a
parameter or the instance's setting `self.keep_last_groups`) and then, walking the keys or the
messages, excludes what is not kept (`if g in keep: continue` then `set_excluded(message, True)`,
or `if g not in keep: message.excluded = True`, `messages.remove(m)`) is a sliding window: once
the conversation holds more groups, every new turn pushes the oldest one out, so the history sent
changes from its start on every turn. The window is over the keys, not a slice of the messages
(`history_cuts` reads those), so the messages left out are marked or removed one by one. The
request that sends the conversation is not followed here: the rule reports it as info at the slice.

Shape: `kept_keys(module) -> [(the slice that keeps the newest keys, the statement that excludes
one)]`, in source order. Not one: a membership test whose branch only collects the messages into
another list (`out.append(m)`: what it is for is not known), nor a slice of the conversation itself.
"""
from __future__ import annotations

import ast

from .flow.binding_syntax import param_names
from .kind_windows import newest_count
from .module import statements
from .prompt_names import words
from .walk import own_nodes, subtree

_HISTORY = frozenset({"history", "messages", "msgs", "conversation", "transcript", "dialog", "dialogue", "turns"})
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: Methods that collect into a container: a branch that only calls them excludes nothing.
_COLLECT = frozenset({"append", "extend", "add", "insert", "update", "setdefault", "get", "items", "keys", "values"})
#: Methods that remove an item from the conversation.
_REMOVE = frozenset({"remove", "pop", "discard"})


def might_keep(source: str) -> bool:
    """The text test before the walk: a slice from the end and a membership test."""
    return ":]" in source and " in " in source and ("continue" in source or " not in " in source)


def kept_keys(module) -> list[tuple[ast.Subscript, ast.AST]]:
    """(the slice that keeps the newest keys, the statement that excludes one) of each function of
    `module` that keeps the conversation's newest groups by their keys (module docstring)."""
    out = []
    for func in statements(module.tree):
        if isinstance(func, _FUNCS):
            found = _in(func)
            if found is not None:
                out.append(found)
    return sorted(out, key=lambda n: (n[0].lineno, n[0].col_offset))


def _in(func) -> tuple[ast.Subscript, ast.AST] | None:
    nodes = own_nodes(func, body_only=True)
    conversation = {name for name in param_names(func) if words(name) & _HISTORY}
    if not conversation:
        return None
    derived = set(conversation)
    assigns = sorted(((n.targets[0] if isinstance(n, ast.Assign) else n.target, n.value) for n in nodes
                      if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                      or isinstance(n, ast.AnnAssign) and n.value is not None and isinstance(n.target, ast.Name)),
                     key=lambda a: (a[0].lineno, a[0].col_offset))
    kept_at: ast.Subscript | None = None
    kept: set[str] = set()
    for target, value in assigns:
        read = {n.id for n in subtree(value) if isinstance(n, ast.Name)}
        slices = [n for n in subtree(value) if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Slice)
                  and n.slice.step is None and isinstance(n.value, ast.Name) and n.value.id in derived
                  and n.value.id not in conversation and newest_count(n.slice)]
        if kept_at is None and slices:
            kept_at, kept = slices[0], {target.id}
        elif kept and read & kept:
            kept.add(target.id)  # `keep_ids = set(keep_non_system_ids)`
        elif read & derived:
            derived.add(target.id)
    if kept_at is None:
        return None
    walked = set()  # the names a loop walks the conversation (or what is derived from it) with
    for loop in nodes:
        if isinstance(loop, (ast.For, ast.AsyncFor)) and isinstance(loop.target, ast.Name) \
                and {n.id for n in subtree(loop.iter) if isinstance(n, ast.Name)} & derived:
            walked.add(loop.target.id)
    for loop in nodes:
        if not isinstance(loop, (ast.For, ast.AsyncFor)) or (loop.lineno, loop.col_offset) < (kept_at.lineno, kept_at.col_offset):
            continue
        for i, stmt in enumerate(loop.body):
            if not isinstance(stmt, ast.If):
                continue
            test = _membership(stmt.test, kept)
            if test == "in" and stmt.body and isinstance(stmt.body[-1], ast.Continue):
                after = loop.body[i + 1:]
            elif test == "not in":
                after = stmt.body
            else:
                continue
            drop = _exclusion(after, walked, conversation)
            if drop is not None:
                return kept_at, drop
    return None


def _membership(test, kept: set[str]) -> str | None:
    """"in" or "not in" for a test `x in K` / `x not in K` with K a name of the kept keys."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.comparators[0], ast.Name) \
            and test.comparators[0].id in kept:
        return "in" if isinstance(test.ops[0], ast.In) else "not in" if isinstance(test.ops[0], ast.NotIn) else None
    return None


def _reports(receiver) -> bool:
    """True for a logger's method (`logger.debug(...)`, `self.log.info(...)`): it excludes nothing."""
    name = receiver.id if isinstance(receiver, ast.Name) else receiver.attr if isinstance(receiver, ast.Attribute) else ""
    return name.lower().startswith(("log", "_log"))


def _exclusion(body: list, walked: set[str], conversation: set[str]) -> ast.AST | None:
    """The first statement of `body` (nested ones too) that excludes a message: a call given a walked
    message (`set_excluded(message, excluded=True)`, not a collecting method: `out.append(m)`), a write
    into one (`message.excluded = True`), or a removal from the conversation (`messages.remove(m)`,
    `del messages[i]`)."""
    for stmt in body:
        for n in subtree(stmt):
            if isinstance(n, ast.Call):
                f = n.func
                if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in conversation \
                        and f.attr in _REMOVE:
                    return n
                if isinstance(f, ast.Attribute) and (f.attr in _COLLECT or _reports(f.value)) \
                        or isinstance(f, ast.Name) and f.id == "print":
                    continue
                if any(isinstance(a, ast.Name) and a.id in walked for a in n.args):
                    return n
            elif isinstance(n, (ast.Assign, ast.AugAssign)):
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                if any(isinstance(t, (ast.Attribute, ast.Subscript)) and isinstance(t.value, ast.Name)
                       and t.value.id in walked for t in targets):
                    return n
            elif isinstance(n, ast.Delete) and any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)
                                                   and t.value.id in conversation for t in n.targets):
                return n
    return None
