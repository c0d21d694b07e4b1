"""Values produced only when an option that is off by default is on (a fact for the prefix rules'
wording): the clock read, id made or other per-request value at a segment's origin sits in the body
of an `if` whose test is off by default (`if self.add_time_to_prompt:` with `add_time_to_prompt:
bool = False`, `opt_in_defaults.is_off`), so requests sent with the default settings do not carry
it. The option is written as in the code (`self.add_time_to_prompt`). Nothing here judges: the
finding keeps its severity (what happens once the option is on) and says when it happens.
"""
from __future__ import annotations

import ast

from ..model import Volatility, replace
from .opt_in_defaults import Context, is_off
from .walk import subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_PER_REQUEST = (Volatility.PER_REQUEST, Volatility.PER_CONVERSATION)


def note_gates(layout, modules: dict, project) -> None:
    """Set `Segment.gate` on the per-request segments of `layout` whose value is produced (its
    origin, else its own span) under an `if` off by default, in one of `modules` (display file
    name -> Module: the modules read to build the request)."""
    for part in layout.parts:
        changed = False
        segs = []
        for seg in part.segments:
            where = seg.origin or seg.span
            if seg.is_static or seg.gate or seg.volatility not in _PER_REQUEST or where is None \
                    or where.filename not in modules:
                segs.append(seg)
                continue
            gate = gate_at(modules[where.filename], where, project)
            segs.append(replace(seg, gate=gate) if gate else seg)
            changed = changed or bool(gate)
        if changed:
            part.segments = segs


def gate_at(module, span, project) -> str:
    """The test (as written) of the innermost `if` off by default whose body holds the expression
    starting at `span`, in the function around it; "" when there is none."""
    found = _function_at(module, span)
    if found is None:
        return ""
    cls, func = found
    ctx = Context(module, cls, func, project)
    parents = ctx.parents(func)
    node = next((n for n in subtree(func) if isinstance(n, ast.expr) and n.lineno == span.start.row
                 and module.span(n).start == span.start), None)
    child, parent = node, parents.get(id(node)) if node is not None else None
    while parent is not None and parent is not func:
        if isinstance(parent, ast.If) and any(s is child for s in parent.body) and is_off(ctx, parent.test, 0):
            return ast.unparse(parent.test)
        child, parent = parent, parents.get(id(parent))
    return ""


def _function_at(module, span):
    """(class or None, function) of the innermost function of `module` holding `span`'s row (a
    nested function keeps the class of the method around it)."""
    best = None
    stack = [(module.tree, None)]
    while stack:
        node, cls = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                stack.append((child, child))
            elif isinstance(child, _FUNCS) and child.lineno <= span.start.row <= (child.end_lineno or child.lineno):
                if best is None or child.lineno >= best[1].lineno:
                    best = (cls, child)
                stack.append((child, cls))
            elif isinstance(child, ast.stmt) and not isinstance(child, _FUNCS):
                stack.append((child, cls))
    return best
