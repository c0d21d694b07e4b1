"""Jinja templates written as Python text (LangChain's `PromptTemplate(template=TEXT,
template_format="jinja2")`): the template's segments, placed at the characters of the Python
literals that write them. Templates are never rendered."""
from __future__ import annotations

import re
from bisect import bisect_right
from ..model import replace
from pathlib import Path

from ..model import Position, Segment, Span
from .flow.segment_text import slice_segment

#: The file name of a template parsed from Python text, until `placed` locates it in the file.
VIRTUAL = "\0python-jinja"


def jinja_text(segs: list[Segment], bindings: dict[str, Segment] | None = None) -> list[Segment]:
    """`segs` (a Python text's segments) with each static segment that holds Jinja syntax read
    as a Jinja template of its own: literal text, `{{ placeholders }}`, `{% if %}` sections and
    loops (`templates.jinja.template_segments`), located in the Python file through the literal's
    characters (escapes included). A static segment that does not parse alone (a tag closed in
    another literal) stays as it is, and so do the dynamic segments between the literals.
    `bindings`: the values a render call passes (`templates.jinja.template_segments`)."""
    from ..templates.jinja import has_jinja_syntax, template_segments
    out: list[Segment] = []
    for seg in segs:
        if not seg.is_static or seg.span is None or not has_jinja_syntax(seg.text):
            out.append(seg)
            continue
        result = template_segments(Path(seg.span.filename), VIRTUAL, seg.text, bindings=bindings)
        if result.errors:
            out.append(seg)
            continue
        out.extend(placed(result.segments, [seg]))
    return out


#: A Jinja tag: a statement, a comment or an expression (`{% if x %}`, `{# note #}`, `{{ x }}`).
_TAG = re.compile(r"\{%.*?%\}|\{#.*?#\}|\{\{[^{}]*\}\}", re.S)
#: A `str.format` field (`{name}`, `{user.name}`, `{items[0]}`, `{n:>4}`).
_FORMAT_FIELD = re.compile(r"\{[A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\[[^\]{}]*\])*(?:![rsa])?(?::[^{}]*)?\}")
#: An expression tag that reads a name (`{{ task_desc }}`, `{{- steps|length }}`), not the doubled
#: braces of a format text's literal JSON (`{{"answer": ...}}`).
_NAMED_EXPR = re.compile(r"\{\{-?\s*[A-Za-z_]")


def jinja_written(text: str) -> bool:
    """True when a Python string is written as a Jinja template: it holds a Jinja statement or
    comment (`{% for step in steps %}`, `{# note #}`) or an expression tag reading a name (`{{
    steps }}`), and no `str.format` field outside its tags (`{query}`: a format template whose
    doubled braces are literal braces, read by `str.format` rules instead)."""
    if not ("{%" in text or "{#" in text or ("{{" in text and "}}" in text)) \
            or _FORMAT_FIELD.search(_TAG.sub("", text)):
        return False  # (`templates.jinja_source.has_jinja_syntax`, without importing jinja2 for every constant)
    return "{%" in text or "{#" in text or _NAMED_EXPR.search(text) is not None


def placed(template: list[Segment], source: list[Segment], fallback: Span | None = None) -> list[Segment]:
    """`template` (the segments of a template parsed from the text of the static segments
    `source`, joined, under the file name `VIRTUAL`: rows and columns count from the template's
    own start) with each of its positions moved to the character of `source` that writes it: the
    string literal's own file, row and column (escapes and literals joined from pieces included),
    wherever the template is rendered. A position no source segment locates takes `fallback`'s
    start (the literal itself), or keeps its template coordinates when there is none. Spans of
    other files (a binding's origin, an included template) stay as they are."""
    text = "".join(s.text for s in source)
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    bounds: list[int] = []
    at = 0
    for s in source:
        bounds.append(at)
        at += len(s.text)
    filename = next((s.span.filename for s in source if s.span is not None), None)
    if fallback is not None and filename not in (None, fallback.filename):
        fallback = None
    if filename is None and fallback is not None:
        filename = fallback.filename

    def where(offset: int) -> tuple[Segment, int]:
        i = max(bisect_right(bounds, offset) - 1, 0)
        while i > 0 and offset == bounds[i] and not source[i].text:
            i -= 1
        return source[i], offset - bounds[i]

    def position(pos: Position) -> Position | None:
        seg, off = where(_offset(starts, pos))
        return seg.position_at(off) or (fallback.start if fallback is not None else None)

    def span_of(span: Span | None) -> Span | None:
        if span is None or span.filename != VIRTUAL or filename is None:
            return span
        a, b = position(span.start), position(span.end)
        if a is None:
            return span
        return Span(filename, a, b or a)

    def moved(r: Segment) -> Segment:
        if r.is_static and r.span is not None and r.span.filename == VIRTUAL:
            a, b = _offset(starts, r.span.start), _offset(starts, r.span.end)
            seg, off = where(a)
            if seg.text[off:off + b - a] == r.text and seg.span is not None:
                return slice_segment(seg, off, off + b - a)
        return replace(r, span=span_of(r.span), origin=span_of(r.origin),
                       inner=tuple(moved(i) for i in r.inner))
    return [moved(r) for r in template] if source else template


def _offset(starts: list[int], pos: Position) -> int:
    return starts[min(pos.row, len(starts)) - 1] + pos.column - 1
