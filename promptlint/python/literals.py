"""Decoding Python string literals while keeping, for each decoded character, its place in the
source, so a placeholder inside a literal with escapes (`"...\\n{context}"`) is reported at its
true row and column."""
from __future__ import annotations

import unicodedata

from ..model import RawText, Segment, Span

_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b",
           "f": "\f", "v": "\v"}


def decode(raw: str, is_raw: bool = False) -> tuple[str, list[int]]:
    """(decoded text, offsets): offsets[i] is the index in `raw` of decoded character i, with one
    more entry for the end. Raises ValueError on an invalid escape."""
    out: list[str] = []
    offs: list[int] = []
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == "\\" and not is_raw and i + 1 < len(raw):
            n = raw[i + 1]
            if n == "\n":
                i += 2
                continue
            if n in _SIMPLE:
                out.append(_SIMPLE[n]); offs.append(i); i += 2
                continue
            if n in "xuU":
                width = {"x": 2, "u": 4, "U": 8}[n]
                out.append(chr(int(raw[i + 2:i + 2 + width], 16))); offs.append(i); i += 2 + width
                continue
            if n == "N":
                j = raw.index("}", i)
                out.append(unicodedata.lookup(raw[i + 3:j])); offs.append(i); i = j + 1
                continue
            if n in "01234567":
                j = i + 1
                while j < len(raw) and j < i + 4 and raw[j] in "01234567":
                    j += 1
                out.append(chr(int(raw[i + 1:j], 8))); offs.append(i); i = j
                continue
        out.append(c); offs.append(i); i += 1
    offs.append(len(raw))
    return "".join(out), offs


def literal_segment(text: str, raw: str, is_raw: bool, span: Span) -> Segment:
    """A static segment for a literal body `raw` (decoded: `text`) starting at `span.start`."""
    if raw == text:
        return Segment(text=text, span=span)
    try:
        decoded, offs = decode(raw, is_raw)
    except (ValueError, KeyError, IndexError):
        return Segment(text=text, span=span)
    if decoded != text:
        return Segment(text=text, span=span)
    return Segment(text=text, span=span, raw=RawText(raw, span.start, tuple(offs)))


def slice_segment(seg: Segment, start: int, end: int | None = None) -> Segment:
    """The static segment for `seg.text[start:end]`, with its own span and source mapping."""
    from dataclasses import replace
    end = len(seg.text) if end is None else end
    if seg.span is None:
        return replace(seg, text=seg.text[start:end])
    a = seg.position_at(start)
    b = seg.position_at(end) or a
    return replace(seg, text=seg.text[start:end], span=Span(seg.span.filename, a, b), raw_base=seg.raw_base + start)

