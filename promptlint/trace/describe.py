"""Words and places for a divergence: its source reference, whether the static analysis reported
it, the text around it (redacted unless asked), and the one-line message of a finding."""
from __future__ import annotations

import re

from ..model import Diagnostic, PromptLayout, Severity, Volatility
from .diverge import Point, common_prefix
from .model import Divergence, Example, Request, SourceRef
from .sourcemap import Located

__all__ = ["CONTEXT", "describe", "example", "missed_reason", "redact", "source_ref", "static_finding"]

CONTEXT = 40  # characters shown before and after a divergence
_LETTER = re.compile(r"[^\W\d_]")
_DIGIT = re.compile(r"\d")


def redact(text: str) -> str:
    """The shape of a text without its content: letters become x, digits 0; the rest stays."""
    return _DIGIT.sub("0", _LETTER.sub("x", text))


def example(prev: Request, cur: Request, point: Point, show_text: bool) -> Example:
    """The lines of both requests and the text around the divergence."""
    a = prev.units[point.unit].text if point.unit < len(prev.units) else ""
    b = cur.units[point.unit].text if point.unit < len(cur.units) else ""
    shown = (lambda s: s) if show_text else redact
    start = max(0, point.offset - CONTEXT)
    tail = min(common_prefix(a[::-1], b[::-1]), len(a) - point.offset, len(b) - point.offset)
    return Example(cur.line, prev.line, shown(a[start:point.offset]),
                   shown(a[point.offset:point.offset + CONTEXT]), shown(b[point.offset:point.offset + CONTEXT]),
                   len(a) - point.offset - tail, len(b) - point.offset - tail)


def source_ref(located: Located, layout: PromptLayout) -> SourceRef | None:
    """The file place of a located divergence: the dynamic segment's span, or the character of
    the static text where the bytes changed."""
    seg = located.segment
    if seg.span is None:
        return None
    if seg.is_static:
        at = seg.position_at(located.offset) or seg.span.start
        return SourceRef(seg.span.filename, at.row, at.column, at.row, at.column, "static", layout.id)
    return SourceRef(seg.span.filename, seg.span.start.row, seg.span.start.column, seg.span.end.row,
                     seg.span.end.column, "dynamic", layout.id, seg.expr, seg.kind.value if seg.kind else None,
                     seg.volatility.value,  # where the value is made, unless in the segment itself (`{datetime.now()}`)
                     str(seg.origin) if seg.origin and not seg.span.contains(seg.origin) else None)


def static_finding(located: Located | None, diagnostics: list[Diagnostic]) -> tuple[str, str] | None:
    """(code, severity) of the `check` diagnostic reported at the segment, or None."""
    if located is None or located.segment.is_static or located.segment.span is None:
        return None
    span = located.segment.span
    best = None
    for d in diagnostics:
        here = d.span.filename == span.filename and d.span.start <= span.start <= d.span.end
        origin = located.segment.origin
        related = origin is not None and any(r.span.filename == origin.filename and r.span.start == origin.start
                                             for r in d.related)
        if (here or related) and (best is None or d.severity.rank > best.severity.rank):
            best = d
    return (best.code, best.severity.value) if best else None


def missed_reason(located: Located | None, finding: tuple[str, str] | None) -> str:
    """Why the static analysis did not warn about this place ("" when it did, or no layout)."""
    if located is None or (finding is not None and finding[1] != Severity.INFO.value):
        return ""
    seg = located.segment
    if seg.is_static:
        return "the static analysis read this as constant text"
    if located.role == "history" or (seg.kind is not None and seg.kind.value == "history"):
        return "the static analysis expects the history to be re-sent unchanged"
    said = {Volatility.STABLE: "called the value stable", Volatility.UNKNOWN: "could not tell how often it changes",
            Volatility.PER_PROCESS: "rated it per-process (info): it differs between worker processes",
            Volatility.PER_DAY: "rated it per-day (info)"}.get(seg.volatility, f"rated it {seg.volatility.value}")
    if finding is not None:
        return f"the static analysis {said}, and reported it only as {finding[0]} (info)"
    return f"the static analysis {said}, and did not report it"


_AGAINST = (("conversation", "against the previous turn of their conversation"),
            ("across conversations", "against the shared head of another conversation"))


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def describe(d: Divergence, group_requests: int) -> str:
    """The one-line message of a finding."""
    approx = "" if d.tokens_exact else "~"
    against = ", ".join(f"{d.comparisons[kind]:,} {words}" for kind, words in _AGAINST if kind in d.comparisons)
    head = (f"{_plural(d.requests, 'request')} of {group_requests:,} diverge ({against}) in `{d.part}` ({d.role}) at "
            f"token {approx}{d.token_offset:,} (character {d.char_offset:,})")
    ref = d.source
    if ref is None:
        where = ": no prompt of the analysed paths matches these requests"
    elif ref.segment == "dynamic":
        where = f": the {ref.kind or 'dynamic'} segment `{ref.expr}` ({ref.volatility}) at {ref.filename}:{ref.row}"
    else:
        where = f": inside static text at {ref.filename}:{ref.row}:{ref.column}"
    per, lost = d.prefix_tokens_lost_per_request, d.cached_tokens_lost_per_request
    tail = (f"; the {approx}{per:,} tokens after it are lost to the cache: {approx}{lost:,} cached tokens per "
            f"request, {approx}{d.cached_tokens_lost:,} in all")
    if lost == 0 and d.cached_tokens_lost == 0:
        tail = f"; the {approx}{per:,} tokens after it are not cached anyway (provider minimum or breakpoints)"
    if d.static_finding and not d.missed:
        note = f" (reported by the static analysis as {d.static_finding})"
    elif d.explanation:
        note = f"; {d.explanation}: a finding the static analysis missed"
    else:
        note = ""
    return head + where + tail + note
