"""Jinja templates written as Python text (LangChain's `PromptTemplate(template=TEXT,
template_format="jinja2")`): the template's segments, placed at the characters of the Python
literals that write them. Templates are never rendered."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..model import Position, Segment, Span
from .flow.text import slice_segment

_VIRTUAL = "\0python-jinja"


def jinja_text(segs: list[Segment]) -> list[Segment]:
    """`segs` (a Python text's segments) with each static segment that holds Jinja syntax read
    as a Jinja template of its own: literal text, `{{ placeholders }}`, `{% if %}` sections and
    loops (`templates.jinja.template_segments`), located in the Python file through the literal's
    characters (escapes included). A static segment that does not parse alone (a tag closed in
    another literal) stays as it is, and so do the dynamic segments between the literals."""
    from ..templates.jinja import has_jinja_syntax, template_segments
    out: list[Segment] = []
    for seg in segs:
        if not seg.is_static or seg.span is None or not has_jinja_syntax(seg.text):
            out.append(seg)
            continue
        result = template_segments(Path(seg.span.filename), _VIRTUAL, seg.text)
        if result.errors:
            out.append(seg)
            continue
        starts = [0] + [i + 1 for i, c in enumerate(seg.text) if c == "\n"]
        out.extend(_placed(r, seg, starts) for r in result.segments)
    return out


def _offset(starts: list[int], pos: Position) -> int:
    return starts[min(pos.row, len(starts)) - 1] + pos.column - 1


def _placed(r: Segment, seg: Segment, starts: list[int]) -> Segment:
    """A segment of the template read from `seg`'s text, at its place in the Python file."""
    def span_of(span: Span | None) -> Span | None:
        if span is None or span.filename != _VIRTUAL:
            return span
        a, b = _offset(starts, span.start), _offset(starts, span.end)
        return Span(seg.span.filename, seg.position_at(a), seg.position_at(b) or seg.position_at(a))
    if r.is_static and r.span is not None and r.span.filename == _VIRTUAL:
        a, b = _offset(starts, r.span.start), _offset(starts, r.span.end)
        if seg.text[a:b] == r.text:
            return slice_segment(seg, a, b)
        return Segment(text=r.text, span=span_of(r.span))
    return replace(r, span=span_of(r.span), origin=span_of(r.origin),
                   inner=tuple(replace(i, span=span_of(i.span), origin=span_of(i.origin)) for i in r.inner))
