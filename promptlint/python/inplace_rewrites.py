"""Older messages of a conversation rewritten in place by a test: facts for PRM105 (the rule judges them).

A function handed the conversation (a parameter named for it: `messages`, `history`) that, in a
loop, replaces the content of the message at an index (`messages[i]["content"] = placeholder`,
directly or through a function or method of the module given the conversation and the index:
`self._elide(messages, i)`) when a test picks it (the index compared with another, `if newest[key]
!= i`, or until a size fits: `if charged <= LIMIT: break`) rewrites messages of the middle of the
history it re-sends: the request differs from the previous one from the first rewritten message on.
A loop that rewrites every message the same way (a format conversion) is not one: what it writes
is the same on every call. The request that sends the conversation is not followed here: info,
where the rewrite is called, with the write as a related place.
"""
from __future__ import annotations

import ast

from .flow.binding_syntax import param_names
from .module import statements
from .prompt_names import words
from .walk import subtree

_HISTORY = frozenset({"history", "messages", "msgs", "conversation", "transcript", "dialog", "dialogue", "turns"})
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: The text test before the module's walk: a message's content written by index.
TEXT = '["content"] ='


def inplace_rewrites(module) -> list[tuple[ast.AST, ast.AST]]:
    """(the statement that rewrites an older message in a loop, the write of its content), in source order."""
    funcs = [f for f in statements(module.tree) if isinstance(f, _FUNCS)]
    writers = {}  # name -> (index of the conversation parameter, index of the index parameter, the write)
    for f in funcs:
        w = _writer(f)
        if w is not None:
            writers[f.name] = w
    out = []
    for f in funcs:
        held = _conversation_params(f)
        if not held:
            continue
        for loop in subtree(f):
            if not isinstance(loop, ast.For):
                continue
            for i in [n.id for n in subtree(loop.target) if isinstance(n, ast.Name)]:  # `for i, e in ...`
                for stmt, write in _rewrites(loop, held, i, writers):
                    if _picked(loop, stmt, i):
                        out.append((stmt, write))
    return sorted({id(s): (s, w) for s, w in out}.values(), key=lambda p: (p[0].lineno, p[0].col_offset))


def _conversation_params(f) -> set[str]:
    return {p for p in param_names(f) if words(p) & _HISTORY}


def _content_write(node, held: set[str], index: str):
    """`node` when it writes `L[index]["content"]` (or `L[index].content`) with L in `held`."""
    if not isinstance(node, (ast.Assign, ast.AugAssign)):
        return None
    for t in getattr(node, "targets", None) or [node.target]:
        inner = None
        if isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) and t.slice.value == "content":
            inner = t.value
        elif isinstance(t, ast.Attribute) and t.attr == "content":
            inner = t.value
        if isinstance(inner, ast.Subscript) and isinstance(inner.value, ast.Name) and inner.value.id in held \
                and isinstance(inner.slice, ast.Name) and inner.slice.id == index:
            return node
    return None


def _writer(f):
    """(conversation parameter's position, index parameter's position, the write) of a function
    that writes `messages[index]["content"]` for two of its parameters, else None."""
    params = param_names(f)
    held = _conversation_params(f)
    for node in subtree(f):
        for index in params:
            if index in held:
                continue
            if _content_write(node, held, index) is not None:
                name = next(t.value.value.id for t in (getattr(node, "targets", None) or [node.target]))
                offset = 1 if params and params[0] in ("self", "cls") else 0
                return params.index(name) - offset, params.index(index) - offset, node
    return None


def _rewrites(loop, held: set[str], i: str, writers: dict):
    for node in subtree(loop):
        write = _content_write(node, held, i)
        if write is not None:
            yield node, write
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self" \
                else f.id if isinstance(f, ast.Name) else None
            w = writers.get(name)
            if w is None or max(w[0], w[1]) >= len(node.args):
                continue
            lst, idx = node.args[w[0]], node.args[w[1]]
            if isinstance(lst, ast.Name) and lst.id in held and isinstance(idx, ast.Name) and idx.id == i:
                yield node, w[2]


def _picked(loop, stmt, i: str) -> bool:
    """True when a test of the loop picks which messages `stmt` rewrites: an `if` around it that
    compares the index with another value, or a `break` under a comparison (until a size fits)."""
    for node in subtree(loop):
        if isinstance(node, ast.If):
            compares_i = any(isinstance(c, ast.Compare) and any(isinstance(n, ast.Name) and n.id == i
                                                                 for n in subtree(c)) for c in subtree(node.test))
            if compares_i and any(n is stmt for n in subtree(node)):
                return True
            if isinstance(node.test, ast.Compare) and any(isinstance(b, ast.Break) for b in node.body):
                return True
    return False
