"""Back to the source: match static layouts to requests and place a divergence in a segment.

A layout's anchors are its static segments of at least `MIN_ANCHOR` characters. A request
matches the layout whose anchors are found, in order, in the request's text (its units joined)
over the most characters, when they cover at least `MIN_SHARE` of the layout's anchor text.
Placing a divergence aligns the anchors again: a position inside an anchor is that static
segment (at a known row and column of its file); a position between two anchors falls on the
dynamic segments the layout has there, narrowed to those whose part fits the unit's kind
(tools, system, messages).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..model import PromptLayout, Segment
from .model import Request

__all__ = ["Located", "Matcher"]

MIN_ANCHOR = 8     # characters: shorter static text ("\n\n", ", ") is found anywhere
MIN_MATCHED = 32   # characters of anchor text a match needs at least
MIN_SHARE = 0.6    # fraction of a layout's anchor text a match needs at least
_SEP = "\x00"      # joins unit texts: never inside an anchor
# "prompt": prompt text whose role in a request is not known (a candidate not named "system")
_ROLES = {"tools": ("tools",), "schema": ("tools", "system", "schema"),
          "system": ("system", "developer", "prompt"), "message": ("user", "assistant", "tool", "history", "prompt")}


@dataclass
class Located:
    """Where a divergence falls in a layout: `segment` (static or dynamic), its part's role, and
    for static text the offset into the segment's text; `others` are further dynamic segments
    of the same gap that could explain it."""

    segment: Segment
    role: str
    offset: int = 0
    others: tuple[Segment, ...] = ()


def _anchors(layout: PromptLayout) -> list[tuple[int, int, Segment]]:
    """(part index, segment index, segment) of the static segments long enough to anchor."""
    return [(pi, si, seg) for pi, si, _part, seg in layout.segments()
            if seg.is_static and len(seg.text.strip()) >= MIN_ANCHOR]


def _text(request: Request) -> tuple[str, list[int]]:
    starts, pos = [], 0
    for unit in request.units:
        starts.append(pos)
        pos += len(unit.text) + 1
    return _SEP.join(u.text for u in request.units), starts


class Matcher:
    """Matches requests to the layouts of a static analysis run."""

    def __init__(self, layouts: list[PromptLayout]):
        self.layouts = []
        for layout in layouts:
            anchors = _anchors(layout)
            total = sum(len(seg.text) for _, _, seg in anchors)
            if anchors and total >= MIN_MATCHED:
                self.layouts.append((layout, anchors, total))

    def match(self, request: Request) -> PromptLayout | None:
        """The layout that best explains the request's static text, or None."""
        text, _ = _text(request)
        best, best_key = None, None
        for layout, anchors, total in self.layouts:
            found, cursor = 0, 0
            for _pi, _si, seg in anchors:
                at = text.find(seg.text, cursor)
                if at >= 0:
                    found += len(seg.text)
                    cursor = at + len(seg.text)
            if found < MIN_MATCHED or found < MIN_SHARE * total:
                continue
            same_api = bool(layout.provider) and layout.provider == request.provider
            key = (found, same_api, found / total)
            if best_key is None or key > best_key:
                best, best_key = layout, key
        return best

    def locate(self, layout: PromptLayout, request: Request, unit: int, offset: int) -> Located | None:
        """The segment of `layout` that holds character `offset` of unit `unit` of `request`."""
        text, starts = _text(request)
        kind = request.units[unit].kind if unit < len(request.units) else "message"
        pos = starts[unit] + offset if unit < len(starts) else len(text)
        gap: list[tuple[str, Segment]] = []
        cursor = 0
        for pi, _si, part, seg in layout.segments():
            if seg.is_static:
                if len(seg.text.strip()) < MIN_ANCHOR:
                    continue
                at = text.find(seg.text, cursor)
                if at < 0:
                    continue
                if pos < at:
                    break  # the position lies in the gap before this anchor
                if pos < at + len(seg.text):
                    return Located(seg, part.role, pos - at)
                cursor, gap = at + len(seg.text), []
            else:
                gap.append((part.role, seg))
        fitting = [(role, seg) for role, seg in gap if role in _ROLES.get(kind, ())] or gap
        if not fitting:
            return None
        volatile = [item for item in fitting if item[1].is_volatile] or fitting
        role, seg = volatile[0]
        return Located(seg, role, 0, tuple(s for _, s in fitting if s is not seg))
