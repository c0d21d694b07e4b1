"""Segments as pieces of text: a literal or interpolated piece of a string as a segment
(`piece_segment`), a segment cut to a character range (`slice_segment`, `sub_span`; 0-based
offsets into its text), values re-entered where an interpolation writes them (`reenter`, Policy 8),
the variants of a choice aligned on their shared beginning and end (`align`), and short
descriptions of segment lists (`short`). Pure functions of the data model; used by `text.py`."""
from __future__ import annotations

import os

from ...model import Caret, Kind, RawText, Segment, Span, Volatility, replace
from ... import classify
from ..strings import Piece
from .values import Text

def piece_segment(module, piece: Piece) -> Segment:
    """A static segment for a literal piece, placed at its characters in the file."""
    start = module.position_at(piece.start)
    end = module.position_at(piece.start + len(piece.raw))
    span = Span(module.filename, start, end)
    if piece.raw == piece.text:
        return Segment(text=piece.text, span=span)
    return Segment(text=piece.text, span=span, raw=RawText(piece.raw, start, piece.offsets))


def slice_segment(seg: Segment, start: int, end: int | None = None) -> Segment:
    """The static segment for `seg.text[start:end]`, with its own span and source mapping."""
    end = len(seg.text) if end is None else end
    if seg.span is None:
        return replace(seg, text=seg.text[start:end])
    a = seg.position_at(start)
    b = seg.position_at(end) or a
    return replace(seg, text=seg.text[start:end], span=Span(seg.span.filename, a, b), raw_base=seg.raw_base + start)


def sub_span(seg: Segment, start: int, end: int | None = None) -> Span | None:
    if seg.span is None:
        return None
    a = seg.position_at(start)
    b = seg.position_at(end) if end is not None else seg.span.end
    return Span(seg.span.filename, a, b or a)


def reenter(inner: list[Segment], where: Span, expr: str, spec: str | None, caret: bool = False) -> list[Segment]:
    """Segments of a value interpolated at `where`: dynamic ones are reported at the
    interpolation, with the place the value was produced as origin. With `caret`, `expr` is what
    the code writes at `where` (an f-string's field, a template's placeholder): a segment named by
    another expression keeps it (`Segment.caret`)."""
    out = []
    written = _written(expr) if caret else ""
    built = sum(1 for s in inner if not s.is_static or s.text.strip()) > 1  # text around the value
    for s in inner:
        if s.is_static:
            out.append(s)
            continue
        if s.kind in (Kind.SERIALIZED, Kind.UNORDERED_ITERATION):
            out.append(s)  # reported at the call or the iteration (Policy 8), where its fix edits
            continue
        origin = s.origin or s.span
        if origin == where:
            origin = None
        prec = s.precision
        if spec and s.kind is Kind.TIMESTAMP:
            prec = classify.strftime_precision(spec) or prec
        named = s.expr if s.expr else expr
        caret = Caret(where, written, built) if written and named and _written(named) != written else None
        out.append(replace(s, span=where, origin=origin, precision=prec, expr=named, anchor=None, caret=caret))
    return out


def _written(expr: str) -> str:
    """An expression or a placeholder as the code writes it, on one line: `{context}` -> `context`."""
    text = " ".join(expr.split())
    return text[1:-1].strip() if text.startswith("{") and text.endswith("}") else text


def short(segs: list[Segment]) -> str:
    for s in segs:
        if s.expr:
            return s.expr
    return ""


def const_str(value) -> str | None:
    """The text of a value made only of static text, else None."""
    if isinstance(value, Text) and value.segs and all(s.is_static for s in value.segs):
        return "".join(s.text for s in value.segs)
    if isinstance(value, Text) and not value.segs:
        return ""
    return None


def movable(seg: Segment) -> bool:
    """A volatile value that PRM101-103 may move after the static text (their unsafe fix)."""
    return (seg.kind in (Kind.TIMESTAMP, Kind.UNIQUE_ID, Kind.USER_INPUT)
            and seg.volatility in (Volatility.PER_REQUEST, Volatility.PER_CONVERSATION, Volatility.PER_PROCESS))


def seg_eq(a: Segment, b: Segment) -> bool:
    if a.is_static and b.is_static:
        return a.text == b.text
    return not a.is_static and not b.is_static and a.span == b.span and a.kind == b.kind


def align(options: list[list[Segment]]):
    """(shared head, the differing middle of each option, shared tail), segment by segment (head,
    then tail) and then character by character at the boundary of static text. The whole segments
    are matched at both ends first: a section present in one option only (`"## How you behave\n"`
    and its value, then `"\n\n## Conversation style..."` in both) is then the middle as written,
    not cut where the characters of its header happen to match the next section's."""
    n = min(len(o) for o in options)
    i = 0
    while i < n and all(seg_eq(o[i], options[0][i]) for o in options[1:]):
        i += 1
    head = list(options[0][:i])
    rest = [o[i:] for o in options]
    m = min(len(o) for o in rest)
    j = 0
    while j < m and all(seg_eq(o[len(o) - 1 - j], rest[0][len(rest[0]) - 1 - j]) for o in rest[1:]):
        j += 1
    tail = list(rest[0][len(rest[0]) - j:]) if j else []
    middles = [o[:len(o) - j] if j else list(o) for o in rest]
    firsts = [o[0].text if o and o[0].is_static else "" for o in middles]
    k = _whole_words(firsts, len(os.path.commonprefix(firsts))) if all(firsts) else 0
    if k:  # "You are talking to {name}." / "You are talking to a guest.": the shared characters stay
        head.append(slice_segment(middles[0][0], 0, k))
        middles = [([slice_segment(o[0], k)] if len(o[0].text) > k else []) + o[1:] for o in middles]
    if all(mid and mid[-1].is_static for mid in middles) or any(not mid for mid in middles):
        texts = [mid[-1].text if mid and mid[-1].is_static else "" for mid in middles]
        if all(texts):
            backwards = [t[::-1] for t in texts]
            k = _whole_words(backwards, len(os.path.commonprefix(backwards)))
            if k:
                last = middles[0][-1]
                tail = [slice_segment(last, len(last.text) - k)] + tail
                middles = [mid[:-1] + ([slice_segment(mid[-1], 0, len(mid[-1].text) - k)] if len(mid[-1].text) > k else [])
                           for mid in middles]
    return head, middles, tail


def excerpt(text: str, limit: int = 50) -> str:
    """The start of a variant's text that names it, cut at a word: 'agents who helps users
    build, debug, and improve...' (not '... improve t')."""
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[:cut if cut > 0 else limit].rstrip(" ,;:") + "..."


def _whole_words(texts: list[str], k: int) -> int:
    """`k`, the length of the texts' shared beginning, moved back to the start of the word it
    cuts (`"a" + "gents who..."` / `"a" + "n agent..."` -> `"agents who..."` / `"an agent..."`):
    the differing part a finding shows starts at a word."""
    def word(c: str) -> bool:
        return c.isalnum() or c == "_"
    while k and word(texts[0][k - 1]) and any(len(t) > k and word(t[k]) for t in texts):
        k -= 1
    return k


def same(a: list[Segment], b: list[Segment]) -> bool:
    return len(a) == len(b) and all(x.is_static and y.is_static and x.text == y.text for x, y in zip(a, b))
