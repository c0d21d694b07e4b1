"""Blocks built around a cache breakpoint that can hold nothing but the breakpoint: a fact for
PRM302 (`bare_marks`; the rule judges it).

Code that marks the last item of a content list by copying it into a new dict, `{**base,
"cache_control": cc}`, with `base = last if isinstance(last, dict) else {}`, builds for an item
that is not a dict (a plain string: `SystemMessage(content=["a", "b"])`) a block of the breakpoint
alone. The string's text is gone from the request, and the block has no type and no text: the
Messages API takes system and content blocks with a `type` and a `text` (TextBlockParam,
https://platform.claude.com/docs/en/api/typescript/messages/create), so a formatter drops such a
block or the API refuses it, and the breakpoint goes with it.

Read from one module's `ast` tree: a dict display with a breakpoint key (`cache_control`,
`cachePoint`), no `type` or `text` key of its own, and a `**` spread of a value that is an empty
dict when the item is not one: `x if isinstance(x, dict) else {}` (also negated, `x or {}` of such
a test's result), written there or through a name the function assigns it once.
"""
from __future__ import annotations

import ast

from .gated_markers import module_functions, naming
from .markers import MARKER_KEYS

_BLOCK_KEYS = frozenset({"type", "text"})


def might_hold(source: str) -> bool:
    """The cheap text test: a breakpoint key and a `**` spread in a dict display."""
    return ("cache_control" in source or "cachePoint" in source) and "{**" in source


def bare_marks(module) -> list[tuple[ast.Dict, str]]:
    """(the dict display, the item's expression as written) for each block of `module` that is the
    breakpoint alone when the item it copies is not a dict (module docstring)."""
    out = []
    funcs = list(module_functions(module))
    spreading = naming(module, funcs, ("{**",))
    for _cls, func in funcs:
        if id(func) not in spreading:
            continue
        assigned: dict[str, list] = {}
        for node in ast.walk(func):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        assigned.setdefault(t.id, []).append(node.value)
        for node in ast.walk(func):
            if not isinstance(node, ast.Dict):
                continue
            keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
            if not keys.intersection(MARKER_KEYS) or keys & _BLOCK_KEYS:
                continue
            for key, value in zip(node.keys, node.values):
                if key is None and (item := _empty_unless_dict(value, assigned)) is not None:
                    out.append((node, item))
                    break
    return out


def _empty_unless_dict(value, assigned: dict, depth: int = 0) -> str | None:
    """The item's expression when `value` is that item if it is a dict and an empty dict if not:
    `x if isinstance(x, dict) else {}`, `{} if not isinstance(x, dict) else x`, a name assigned
    once one of those; None for any other value."""
    if isinstance(value, ast.Name) and depth < 2 and len(assigned.get(value.id, ())) == 1:
        return _empty_unless_dict(assigned[value.id][0], assigned, depth + 1)
    if not isinstance(value, ast.IfExp):
        return None
    test, body, orelse = value.test, value.body, value.orelse
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, body, orelse = test.operand, orelse, body
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
            and len(test.args) == 2 and _names_dict(test.args[1])):
        return None
    if not (isinstance(orelse, ast.Dict) and not orelse.keys) or ast.dump(body) != ast.dump(test.args[0]):
        return None
    return ast.unparse(body)


def _names_dict(node) -> bool:
    """`dict`, `Mapping`, `(dict, ...)`: a test for a dict."""
    if isinstance(node, ast.Tuple):
        return any(_names_dict(e) for e in node.elts)
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return name in ("dict", "Mapping", "MutableMapping")
