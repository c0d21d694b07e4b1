"""Whether a window of the conversation is cut only when an option is set (PRM105 reads it as info):

    class ChatSession(BaseModel):
        recent_messages: Optional[int] = None          # off by default
        def format_input_messages(self, ...):
            recent = self.messages[-self.recent_messages:] if self.recent_messages else self.messages

The slice keeps the newest `count` items (`xs[-count:]`, `xs[len(xs) - count:]`, clamped or shifted
by a constant); its count is off by default (None, 0, False: `opt_in_defaults.is_off`, read in the
function and class where the slice is) and the package itself never sets it on (a keyword or key
`recent_messages=...` of a value not off, a field of that name with such a default:
`opt_in_defaults.Context.written_keys`, `_set_elsewhere`). With the default, the whole conversation is
sent (a None count cannot slice, so the code guards it; `xs[-0:]` is the whole list): the window,
and its cost, exist only for users who set the option.
"""
from __future__ import annotations

import ast

from ..opt_in_defaults import Context, is_off, set_elsewhere


def off_count(frame, node, project) -> str:
    """The code of the count of `node` (a slice keeping the newest items) when that count is an
    option off by default that the package never sets on (module docstring), else ""."""
    if not isinstance(node, ast.Subscript) or not isinstance(node.slice, ast.Slice):
        return ""
    count = _count(node.slice.lower)
    if count is None or isinstance(count, ast.Constant):
        return ""
    name = count.attr if isinstance(count, ast.Attribute) else count.id if isinstance(count, ast.Name) else None
    if name is None:
        return ""
    ctx = Context(frame.module, frame.cls, frame.func, project)
    if frame.func is None or not is_off(ctx, count, 0):
        return ""
    if name in ctx.written_keys() or set_elsewhere(ctx, name):
        return ""
    return frame.module.code(count)


def _count(lower):
    """`k` of `-k`, `len(xs) - k`, also under `max(0, ...)` or plus a constant; None for any other bound."""
    if isinstance(lower, ast.BinOp) and isinstance(lower.op, ast.Add):
        for side, other in ((lower.left, lower.right), (lower.right, lower.left)):
            if isinstance(side, ast.Constant) and isinstance(side.value, int):
                return _count(other)
    if isinstance(lower, ast.Call) and isinstance(lower.func, ast.Name) and lower.func.id == "max" \
            and len(lower.args) == 2 and isinstance(lower.args[0], ast.Constant):
        return _count(lower.args[1])
    if isinstance(lower, ast.UnaryOp) and isinstance(lower.op, ast.USub):
        return lower.operand
    if isinstance(lower, ast.BinOp) and isinstance(lower.op, ast.Sub) and isinstance(lower.left, ast.Call) \
            and isinstance(lower.left.func, ast.Name) and lower.left.func.id == "len":
        return lower.right
    return None
