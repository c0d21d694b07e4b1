"""The shape of the list a name is bound to, told from the kinds of its bindings (`frames.Thunk`)
without forcing them: what a prompt candidate can be is known before its value (and every item
of it) is read.

A binding is *grown* when the evaluator reads it as a list grown in a loop (`Seq.repeated`: an
`.append` / `.extend` / `.insert` in a loop, `Evaluator.grow`; `xs += [...]` in a loop of a list,
`Evaluator.augment`), whatever it held before; *empty* when it is an empty list display (`[]`).
A list sorted in place (`xs.sort()`) keeps its shape (`keyed.sorted_in_place`); a name bound in
branches (an `alt`) has the shape of every branch. Any other binding (a parameter, a call, a
list display with items, a window cut in a loop) is not known here.
"""
from __future__ import annotations

import ast

from .frames import Thunk

_GROWS = ("append", "extend", "insert")
_DEPTH = 12  # bindings followed back (branches, sorts) before the shape is called unknown


def grown_or_empty(ev, frame, node) -> bool:
    """True when `node` is a name bound, where it is read in `frame`, only to lists grown in a
    loop or to empty lists: its value (each of its variants) is a `Seq` that is `repeated` or has
    no items. Reads the function's bindings (`ensure`), evaluates nothing."""
    if not isinstance(node, ast.Name):
        return False
    th = ev.env_at(frame, node).get(node.id)
    return th is not None and _shape(th, 0) is not None


def _shape(th: Thunk | None, depth: int) -> str | None:
    """"grown", "empty" (or "mixed": variants of both) for a binding of those shapes, else None."""
    if th is None or depth > _DEPTH:
        return None
    if th.kind in _GROWS:
        return "grown" if th.repeated else None  # (grown after the loop: the items it adds may be messages)
    if th.kind == "aug":
        # `xs += [...]` in a loop: a list concatenation only when what it adds to is one list
        # (an `alt` of many lists, or no list, is read otherwise: `Evaluator.augment`)
        prev = th.prev
        single = prev is not None and (prev.kind == "expr" or prev.kind == "aug")
        return "grown" if th.repeated and th.name == "Add" and single and _shape(prev, depth + 1) else None
    if th.kind == "sort":
        return _shape(th.prev, depth + 1)
    if th.kind == "alt":
        shapes = {_shape(o, depth + 1) for o in th.options}
        if not th.options or None in shapes:
            return None
        return shapes.pop() if len(shapes) == 1 else "mixed"
    if th.kind == "expr" and isinstance(th.node, ast.List) and not th.node.elts:
        return "empty"
    return None
