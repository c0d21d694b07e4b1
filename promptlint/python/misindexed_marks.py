"""A cache breakpoint set on a list's item by the index of another list: a fact for PRM302
(`misindexed_marks`; the rule judges it).

Shape, read from one function's `ast` tree: a `for` loop over `enumerate(groups)` that grows a list
with `.extend(...)` (several items per pass) and sets a breakpoint on that list's item at the
loop's counter (`messages[i]["cache_control"] = ...`, or a method named for caching called on it:
`messages[i].mark_all_previous_msg_for_caching()`):

    messages = []
    for i, group in enumerate(self.groups):
        messages.extend(group.messages)
        if i == len(self.groups) - keep_last_n:
            messages[i].mark_all_previous_msg_for_caching()

`i` counts groups, not messages: once a group holds more than one message, `messages[i]` is an
earlier message than the group's, so the breakpoint closes less of the prompt than the code means
and what lies between is processed uncached on every request.

Not the fact: a list indexed by the counter of a loop over itself, a list grown by `.append` alone
(one item per pass: the indices agree), a breakpoint on an item not indexed by the counter.
"""
from __future__ import annotations

import ast

from .gated_markers import module_functions
from .markers import MARKER_KEYS
from .walk import subtree


def might_misindex(source: str) -> bool:
    """The cheap test: an enumerate, an extend and a caching word."""
    return "enumerate(" in source and ".extend(" in source and ("cach" in source.lower())


def misindexed_marks(module) -> list[tuple[ast.AST, str, str]]:
    """(the statement or call that sets the breakpoint, the list, the enumerated iterable's text)
    for each shape of the module docstring."""
    out = []
    for _cls, func in module_functions(module):
        for loop in subtree(func):
            if not isinstance(loop, (ast.For, ast.AsyncFor)) or (counted := _counted(loop)) is None:
                continue
            index, source = counted
            grown = {n.func.value.id for n in subtree(loop) if isinstance(n, ast.Call)
                     and isinstance(n.func, ast.Attribute) and n.func.attr == "extend"
                     and isinstance(n.func.value, ast.Name)}
            for node in subtree(loop):
                items = _marked_item(node)
                if items is not None and items[1] == index and items[0] in grown and items[0] != _root(source):
                    out.append((node, items[0], ast.unparse(source)))
    return out


def _counted(loop) -> tuple[str, ast.AST] | None:
    """(counter, iterable) of `for i, x in enumerate(xs)`."""
    it, target = loop.iter, loop.target
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate" and it.args):
        return None
    if not (isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name)):
        return None
    return target.elts[0].id, it.args[0]


def _root(node) -> str | None:
    while isinstance(node, (ast.Subscript, ast.Attribute, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _indexed(node) -> tuple[str, str] | None:
    """(list, index) for `xs[i]` (names both)."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Name):
        return node.value.id, node.slice.id
    return None


def _marked_item(node) -> tuple[str, str] | None:
    """(list, index) of the item a breakpoint is set on: `xs[i][...]["cache_control"] = ...`, or
    `xs[i].<method named for caching>(...)`."""
    if isinstance(node, ast.Assign):
        for target in node.targets:
            if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) \
                    and target.slice.value in MARKER_KEYS:
                base = target.value
                while isinstance(base, ast.Subscript) and _indexed(base) is None:
                    base = base.value
                return _indexed(base)
        return None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and "cach" in node.func.attr.lower():
        return _indexed(node.func.value)
    return None
