"""A value its caller hands to a wrapping helper enters the prompt at the call of the helper.

`def fence(code): return f"```python\\n{code}\\n```"` writes no prompt text of its own (a code fence,
a tag, a label): where the value sits in the prompt, and so what static text follows it, is decided
by the caller that places `fence(node.code)` in its prompt (Policy 8: a finding goes where the
value enters the prompt text). A helper called from several prompts would otherwise give them all
one place, inside the helper, where no move fixes any of them. So for the caller, the helper's
result has each value that came in through its parameters placed at the call (the place the value
was produced stays its origin); values the helper makes itself (a clock, an id) keep their place,
and a helper with a sentence or more of its own text (a prompt builder: `f"Question: {q}\\n{RULES}"`)
is where its prompt text is built, so its placeholders stay where they are.

Shape: `wrapped_at(result, fn, call_span) -> result` (a `Text` with segments re-placed, else as given).
"""
from __future__ import annotations

from ...model import Kind, replace
from .values import Func, Text

#: Characters of its own static text (whitespace left out) below which a helper only wraps the
#: values it is given: fewer than a sentence (`template_calls.MIN_TEMPLATE_CHARS`).
WRAPPER_CHARS = 40

#: Kinds reported where their own fix edits (the serialisation, the iteration) or that stand for
#: the conversation: not re-placed.
_OWN_PLACE = (Kind.SERIALIZED, Kind.UNORDERED_ITERATION, Kind.HISTORY)


def wrapped_at(result, fn: Func, call_span):
    """`result` (the return value of `fn` at a call spanning `call_span`) with the values that came
    in through `fn`'s parameters placed at the call, when `fn` only wraps them (module docstring)."""
    if call_span is None or not isinstance(result, Text) or not result.segs:
        return result
    own = sum(len("".join(s.text.split())) for s in result.segs if s.is_static)
    if own >= WRAPPER_CHARS:
        return result
    body = fn.module.span(fn.node)
    if _inside(body, call_span):
        return result  # (a recursive or nested call: its own body is not a caller)
    changed = False
    segs = []
    for s in result.segs:
        if not s.is_static and s.kind not in _OWN_PLACE and s.span is not None and _inside(body, s.span) \
                and s.origin is not None and not _inside(body, s.origin):
            s = replace(s, span=call_span, anchor=None, caret=None)
            changed = True
        segs.append(s)
    return Text(segs) if changed else result


def _inside(outer, inner) -> bool:
    return outer.filename == inner.filename and outer.start <= inner.start and inner.end <= outer.end
