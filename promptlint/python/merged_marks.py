"""Consecutive messages merged into one by a converter that keeps the breakpoint of the first
only: a fact for PRM302 (`merged_marks`; the rule judges it).

Anthropic wants the results of parallel tool calls in one user message, so converters merge
consecutive messages. Shape, read from one function's `ast` tree: the breakpoint read off the
message at an index (`message = messages[i]`, `cache_control = message.meta.get("cache_control")`,
or `messages[i]["cache_control"]`), then a `while` loop that moves the index on (`i += 1`) and
takes content from the messages it passes (`results.extend(messages[i].tool_call_results)`)
without reading a breakpoint key:

    while i < len(messages):
        message = messages[i]
        cache_control = message.meta.get("cache_control")
        ...
        if message.tool_call_results:
            results = message.tool_call_results.copy()
            while (i + 1) < len(messages) and messages[i + 1].tool_call_results:
                i += 1
                results.extend(messages[i].tool_call_results)

A breakpoint a caller put on a merged message (the newest tool result, where an agent marks the
end of its history) is dropped: that request caches none of the conversation it would have closed.
Not the fact: a merge that reads a breakpoint key inside its loop (it carries the later ones).
"""
from __future__ import annotations

import ast

from .gated_markers import module_functions
from .markers import MARKER_KEYS
from .walk import subtree


def might_merge(source: str) -> bool:
    """The cheap test: an index moved on inside a `while` loop, in a module naming a breakpoint key."""
    return "while " in source and "+= 1" in source and any(k in source for k in MARKER_KEYS)


def merged_marks(module) -> list[ast.While]:
    """The `while` loop of each merge of the shape in the module docstring."""
    out = []
    for _cls, func in module_functions(module):
        indexed = _indexed_reads(func)
        if not indexed:
            continue
        for loop in subtree(func):
            if not isinstance(loop, ast.While):
                continue
            for (items, index), read in indexed.items():
                if read.lineno < loop.lineno and _moves(loop, index) and _takes(loop, items, index) \
                        and not any(_reads_marker(n) for n in subtree(loop)):
                    out.append(loop)
                    break
    return out


def _reads_marker(node) -> bool:
    """`x.get("cache_control")`, `x["cache_control"]`, `"cache_control" in x`, `x.cache_control`."""
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value in MARKER_KEYS
    if isinstance(node, ast.Attribute):
        return node.attr in MARKER_KEYS
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args:
        return isinstance(node.args[0], ast.Constant) and node.args[0].value in MARKER_KEYS
    return isinstance(node, ast.Compare) and isinstance(node.left, ast.Constant) and node.left.value in MARKER_KEYS


def _item(node) -> tuple[str, str] | None:
    """(list, index) for `xs[i]` (names both)."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Name):
        return node.value.id, node.slice.id
    return None


def _indexed_reads(func) -> dict:
    """{(list, index): the read} for each read of a breakpoint key off `xs[i]`, directly or
    through a name the function assigns `xs[i]` (`message = messages[i]`)."""
    aliases = {}
    for n in subtree(func):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                and (item := _item(n.value)) is not None:
            aliases[n.targets[0].id] = item
    out = {}
    for n in subtree(func):
        if not _reads_marker(n) or isinstance(n, ast.Compare):
            continue
        base = n.func.value if isinstance(n, ast.Call) else n.value
        while isinstance(base, ast.Attribute):  # (`message.meta.get(...)`)
            base = base.value
        item = _item(base) or (aliases.get(base.id) if isinstance(base, ast.Name) else None)
        if item is not None:
            out.setdefault(item, n)
    return out


def _moves(loop, index: str) -> bool:
    """The loop's body moves the index on: `i += 1`."""
    return any(isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add) and isinstance(n.target, ast.Name)
               and n.target.id == index for s in loop.body for n in subtree(s))


def _takes(loop, items: str, index: str) -> bool:
    """The loop's body reads a field of `items[index]` into a call (`results.extend(messages[i].x)`)."""
    for s in loop.body:
        for n in subtree(s):
            if isinstance(n, ast.Call) and any(_item(a.value if isinstance(a, ast.Attribute) else a) == (items, index)
                                               for a in n.args):
                return True
    return False
