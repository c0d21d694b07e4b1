"""Breakpoints dropped by a converter into Bedrock Converse blocks: facts for PRM302.

Bedrock's Converse API marks a cache breakpoint with a block of its own (`{"cachePoint": {...}}`)
after the content it closes; Anthropic's format puts `cache_control` on the block itself
(`{"type": "text", "text": ..., "cache_control": {...}}`). A converter that rebuilds a typed text
block as a Converse block of its text only (`{"text": block["text"]}`) and never names a breakpoint
key drops the breakpoint the caller put on the block: no `cachePoint` takes its place, and the
prefix the caller marked is sent uncached.

Read in a module that writes Converse blocks (it names `cachePoint`, `toolUse` or `toolResult`)
where breakpoints in Anthropic's format reach: the module names `cache_control` too, or another file
of its package reads one off the blocks it is handed (`ProjectTree.marker_read_files`; the gate is
the caller's, `module_facts`): a function that names no breakpoint key itself, with a loop
(or comprehension) over blocks whose branch on `B["type"] == "text"` (`B.get("type")`) builds a dict
display with a `text` key read from the block (`B["text"]`, `B.get("text")`), no `type` key (a
Converse block), no `**` spread and no breakpoint key. One fact per function: its first such dict.
"""
from __future__ import annotations

import ast

from .gated_markers import module_functions
from .markers import MARKER_KEYS
from .walk import subtree

_LOOPS = (ast.For, ast.AsyncFor)


def writes_converse(source: str) -> bool:
    """The cheap test: the module names a key of Converse's own blocks."""
    return any(key in source for key in ("cachePoint", '"toolUse"', '"toolResult"', "'toolUse'", "'toolResult'"))


def names_marker(source: str) -> bool:
    """The module names Anthropic's breakpoint key as a string."""
    return '"cache_control"' in source.replace("'", '"')


def _field(node, name: str, key: str) -> bool:
    """True for `name[key]` or `name.get(key)`."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name:
        return isinstance(node.slice, ast.Constant) and node.slice.value == key
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
        and isinstance(node.func.value, ast.Name) and node.func.value.id == name and bool(node.args) \
        and isinstance(node.args[0], ast.Constant) and node.args[0].value == key


def _text_test(test, name: str) -> bool:
    """True for a test that compares the block's type to "text"."""
    return any(isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], ast.Eq)
               and any(_field(side, name, "type") for side in (n.left, n.comparators[0]))
               and any(isinstance(side, ast.Constant) and side.value == "text" for side in (n.left, n.comparators[0]))
               for n in subtree(test))


def _converse_text(node, name: str) -> bool:
    """True for a dict display `{"text": <the block's text>, ...}` with no `type`, no spread and
    no breakpoint key."""
    if not isinstance(node, ast.Dict) or any(k is None for k in node.keys):
        return False
    keys = {k.value: v for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant)}
    if "text" not in keys or "type" in keys or any(k in MARKER_KEYS for k in keys):
        return False
    return any(_field(n, name, "text") for n in subtree(keys["text"]))


def _names_marker(func) -> bool:
    return any(isinstance(n, ast.Constant) and n.value in MARKER_KEYS for n in subtree(func))


def dropped_marks(module) -> list[ast.Dict]:
    """The Converse text blocks rebuilt without the breakpoint their source block may carry (the
    module docstring), in source order."""
    out: list[ast.Dict] = []
    for _cls, func in module_functions(module):
        if _names_marker(func):
            continue
        found = None
        for loop in (n for n in subtree(func) if isinstance(n, _LOOPS) and isinstance(n.target, ast.Name)):
            name = loop.target.id
            for branch in (n for n in subtree(loop) if isinstance(n, ast.If) and _text_test(n.test, name)):
                found = next((d for stmt in branch.body for d in subtree(stmt) if _converse_text(d, name)), None)
                if found is not None:
                    break
            if found is not None:
                break
        if found is not None:
            out.append(found)
    return sorted(out, key=lambda d: (d.lineno, d.col_offset))
