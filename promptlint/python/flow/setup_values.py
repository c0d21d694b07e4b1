"""What an attribute holds after the methods that set an object up built it there
(`class_facts.grown_at_setup`): a list assigned in `__init__` and appended to there, or a string
assigned there and added to with `+=`. Read by the evaluator's objects (`objects.py`) where such an
attribute is read; built once per object, so not the conversation of a list grown turn after turn.

Shape: `setup_grown(ev, module, cls, attr, value, self_value, depth) -> Seq | Text`.
"""
from __future__ import annotations

import ast

from .class_facts import added_to, walk_statements
from .values import Seq, Spread, Text


def setup_grown(ev, module, cls: ast.ClassDef, attr: str, value, self_value, depth: int):
    """`self.attr` as the set-up methods leave it: `value` (assigned there), then what they add.
    A text only ever added to by `+=` is the text joined (`self.team = ""`, then `self.team +=
    line` in a loop: one reading of each added text); else a list with the items appended or
    extended (a value that is no list we read is one spread item)."""
    adds = [(ev.eval(node, ev._method_frame(module, cls, method, self_value, depth + 1)) if node is not None else None,
             many, _augmented(method, node)) for method, node, many in added_to(cls, attr)]
    if isinstance(value, Text) and adds and all(aug for _, _, aug in adds):
        frame = ev._method_frame(module, cls, added_to(cls, attr)[0][0], self_value, depth + 1)
        return Text(list(value.segs) + [s for added, _, _ in adds if added is not None for s in ev.text_of(added, frame)])
    items = value.items if isinstance(value, Seq) else [Spread(value)]
    for added, many, _ in adds:
        items = items + (added.items if many and isinstance(added, Seq) and not added.repeated
                         else [Spread(added)] if many else [added])
    return Seq(items, getattr(value, "span", None))


def _augmented(method, node) -> bool:
    """True when `node` is what a `self.attr += node` of `method` adds (not an append's item)."""
    return any(isinstance(n, ast.AugAssign) and n.value is node for n in walk_statements(method.body))
