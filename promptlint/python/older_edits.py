"""Older messages of a conversation edited in place, picked by their place counted from the end:
facts for PRM105 (the rule judges them).

A function that walks a conversation it does not own (a parameter named for it, `messages`, or a
list an attribute chain of `self` holds, `self.history`) and writes into the messages it walks,
only for the older ones, counted from the end:

- a walk of all but the newest few (`for m in self.history[:-2]:`, `messages[:len(messages) - k]`);
- a walk by index with a test of the index against a value made from the list's length (`for i,
  m in enumerate(messages): if i < len(messages) - 3 and m["role"] == "tool":`);
- a walk newest first with a counter and a test of it (`for m in reversed(messages): ... seen += 1;
  if seen > keep:`),

where the write clears or replaces what a message (or a part of it, walked in an inner loop: `for
part in m["content"]`) says (`m["content"] = "[omitted]"`, `part["text"] = "[image removed]"`,
`del part["image_url"]`; not a cache breakpoint's key), on the message itself, not a copy.
Every new turn moves the boundary: the message that has just left the newest few is sent changed,
so the history re-sent differs from the previous request's from that message on and everything
after it is read uncached, turn after turn. The request is not followed here: info, at the write,
with the walk as a related place.

Shape: `older_edits(module) -> [(the walk's first such write, the loop)]` (ast nodes), in source order.
"""
from __future__ import annotations

import ast
import re

from ..classify import CONVERSATION_WORDS
from .flow.rewrites import func_resolver, placed_from_end
from .prompt_names import words
from .walk import statements, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor)
#: Keys of a message (or a part) that say what it says.
_CONTENT = frozenset({"content", "text", "type", "image_url", "image", "images", "source", "data", "parts", "output",
                      "result", "url", "attachments", "input"})
#: The text test before the module's walk: a walk of all but the newest, by index, or newest first,
#: and a write of a content key.
TEXT = re.compile(r"for[ \t]+\w+(?:,[ \t]*\w+)?[ \t]+in[ \t]+(?:enumerate\(|reversed\()?[\w.]{1,60}(?:\[:|\)|\[::-1\])")
WRITE_TEXT = re.compile(r"(?:\[[\"'](?:" + "|".join(sorted(_CONTENT)) + r")[\"']\]|\.(?:"
                        + "|".join(sorted(_CONTENT)) + r"))[ \t]{0,4}=(?!=)|\bdel[ \t]")


def might_edit_older(source: str) -> bool:
    """True when the text may hold such a walk and write (`TEXT`, `WRITE_TEXT`)."""
    return ("[:" in source or "enumerate(" in source or "reversed(" in source or "[::-1]" in source) \
        and TEXT.search(source) is not None and WRITE_TEXT.search(source) is not None


def older_edits(module) -> list[tuple[ast.AST, ast.AST]]:
    """(the first write into an older message, the loop that walks the conversation) of each such
    walk, in source order."""
    out = []
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        a = func.args
        params = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
        nodes = list(subtree(func))
        rebound = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        resolve = func_resolver(func)
        for loop in (n for n in nodes if isinstance(n, _LOOPS)):
            found = _walk(loop, params - rebound, resolve)
            if found:
                out.append((found[0], loop))  # (one per walk: its first write)
    return sorted({id(w): (w, lp) for w, lp in out}.values(), key=lambda p: (p[0].lineno, p[0].col_offset))


def _owned(node, params: set[str]) -> bool:
    """A parameter named for the conversation, or an attribute chain of `self` named for it."""
    if isinstance(node, ast.Name):
        return node.id in params and bool(words(node.id) & CONVERSATION_WORDS)
    if isinstance(node, ast.Attribute) and words(node.attr) & CONVERSATION_WORDS:
        while isinstance(node, ast.Attribute):
            node = node.value
        return isinstance(node, ast.Name) and node.id == "self"
    return False


def _walk(loop, params: set[str], resolve) -> list[ast.AST] | None:
    """The writes into older messages of the conversation `loop` walks, or None."""
    it, target = loop.iter, loop.target
    index, newest = None, False
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate" and it.args \
            and isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name):
        index, it, target = target.elts[0].id, it.args[0], target.elts[1]
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "reversed" and len(it.args) == 1:
        it, newest = it.args[0], True
    elif isinstance(it, ast.Subscript) and isinstance(it.slice, ast.Slice) and it.slice.step is not None:
        step = it.slice.step
        newest = isinstance(step, ast.UnaryOp) and isinstance(step.op, ast.USub) and it.slice.lower is None
        it = it.value if newest and it.slice.upper is None else it
    if not isinstance(target, ast.Name):
        return None
    item = target.id
    if isinstance(it, ast.Subscript) and isinstance(it.slice, ast.Slice) and index is None and not newest:
        sl = it.slice
        if sl.lower is None and sl.step is None and _owned(it.value, params) and _from_end(sl.upper, it.value, resolve):
            return _writes(loop.body, loop.body, item, None, it.value) or None  # all but the newest few
        return None
    if not _owned(it, params) or any(isinstance(n, ast.Name) and n.id == item and isinstance(n.ctx, ast.Store)
                                     for s in loop.body for n in subtree(s)):
        return None  # (the item rebound in the loop: a copy, maybe)
    counters = {n.target.id for s in loop.body for n in subtree(s) if isinstance(n, ast.AugAssign)
                and isinstance(n.target, ast.Name) and isinstance(n.value, ast.Constant)}
    places = counters if newest else ({index} if index else set())
    if not places:
        return None
    out = []
    for s in loop.body:
        for n in subtree(s):
            if isinstance(n, ast.If) and _range(n.test) \
                    and placed_from_end(n.test, places, it, resolve, "walk" if newest else "", None):
                out += _writes(n.body, loop.body, item, index, it)
    return out or None


def _range(test) -> bool:
    """True when the test picks a range of places (`<`, `>=`, `!=`), not one (`i == len(ms) - 1`:
    the newest, written before it is sent)."""
    return any(isinstance(n, ast.Compare) and any(isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.NotEq))
                                                  for op in n.ops) for n in subtree(test))


def _from_end(bound, listed, resolve) -> bool:
    """`-k` (not `-0`), `len(xs) - k` or a name bound to it."""
    if isinstance(bound, ast.Name):
        bound = resolve(bound.id)
    if isinstance(bound, ast.UnaryOp) and isinstance(bound.op, ast.USub):
        return not (isinstance(bound.operand, ast.Constant) and bound.operand.value == 0)
    return isinstance(bound, ast.BinOp) and isinstance(bound.op, ast.Sub) and isinstance(bound.left, ast.Call) \
        and isinstance(bound.left.func, ast.Name) and bound.left.func.id == "len" \
        and any(ast.dump(a) == ast.dump(listed) for a in bound.left.args)


def _writes(stmts, scope, item: str, index: str | None, listed) -> list[ast.AST]:
    """The statements of `stmts` that write a content key of the item (or of a part an inner loop
    of `scope`, the walk's body, takes from it, or of `listed[index]`)."""
    held = {item}
    for s in scope:
        for n in subtree(s):
            if isinstance(n, _LOOPS) and isinstance(n.target, ast.Name) \
                    and any(isinstance(x, ast.Name) and x.id in held for x in subtree(n.iter)):
                held.add(n.target.id)  # `for part in m["content"]:`
    out = []
    for s in stmts:
        for n in subtree(s):
            targets = n.targets if isinstance(n, (ast.Assign, ast.Delete)) else [n.target] \
                if isinstance(n, ast.AugAssign) else []
            if any(_content_of(t, held, index, listed) for t in targets):
                out.append(n)
    return out


def _content_of(t, held: set[str], index: str | None, listed) -> bool:
    if isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) and t.slice.value in _CONTENT:
        owner = t.value
    elif isinstance(t, ast.Attribute) and t.attr in _CONTENT:
        owner = t.value
    else:
        return False
    if isinstance(owner, ast.Name):
        return owner.id in held
    return index is not None and isinstance(owner, ast.Subscript) and isinstance(owner.slice, ast.Name) \
        and owner.slice.id == index and ast.dump(owner.value) == ast.dump(listed)
