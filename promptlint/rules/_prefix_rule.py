"""Shared reporting for the prefix rules PRM101-PRM104: message text and related locations."""
from __future__ import annotations

from ..model import Applicability, Precision, Related, Segment
from ..prefix import Placed, what_is_lost

_PRECISION = {Precision.SUB_DAY: "sub-day precision", Precision.DAY: "day precision",
              Precision.MONTH: "month precision", Precision.YEAR: "year precision"}


def describe(seg: Segment) -> str:
    """'`datetime.now()` (sub-day precision)'."""
    expr = " ".join(seg.expr.split()) or "(conditional text)"
    if len(expr) > 60:
        expr = expr[:57] + "..."
    text = f"`{expr}`"
    if seg.precision is not None:
        text += f" ({_PRECISION[seg.precision]})"
    return text


def evidence(seg: Segment) -> str:
    """'; only the name `request_id` suggests it' for a finding whose evidence is a name."""
    if seg.name_only and seg.evidence:
        why = seg.evidence.split(" (")[0]
        return f"; only {why} suggests it"
    return ""


def position(p: Placed) -> str:
    return f"at token {p.static_before:,} of the request, in the {p.where}"


def related(seg: Segment) -> list[Related]:
    if seg.origin is not None and seg.origin != seg.span:
        return [Related(seg.origin, "value produced here")]
    return []


def lost(p: Placed) -> str:
    return what_is_lost(p)


def fix_of(seg: Segment):
    """The segment's fix: the one the old analysis built (`seg.fix`), else the one the codemod
    layer builds from the segment's anchor (parsing the file with libcst only now, when the
    finding is reported), else None."""
    if seg.fix is not None:
        return seg.fix
    if seg.anchor is None:
        return None
    from .. import codemod
    return codemod.build(seg.anchor)


_MOVE_PLACES = ("fstring-field", "concat-operand")


def move_fix(seg: Segment, placed: Placed | None = None):
    """The unsafe fix that moves the value after the static text of its f-string or
    concatenation, when a sure edit exists in the diagnostic's own file. None when the
    conversation history follows the value (`placed.history_after`): a move inside the string
    cannot take it past the history, so the finding would stay."""
    if seg.span is None or (placed is not None and placed.history_after):
        return None
    if seg.fix is None and (seg.anchor is None or seg.anchor.place not in _MOVE_PLACES):
        return None
    fix = fix_of(seg)
    if fix is None or fix.applicability is not Applicability.UNSAFE:
        return None
    return fix
