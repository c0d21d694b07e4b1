"""What a fix that moves a volatile value gains: the one decision behind what `check` offers and
what `fix` keeps of the moves of PRM101-PRM103.

A move fix (`Fix.moves`) takes a value to the end of the string that holds it (one edit over that
string, `codemod.moves`). It is worth applying only when, with the value there, its own finding
is gone and some target caches more tokens of the prompt (`impact.cacheable`; `caches_more`).
`check` judges it on the prompt's layout with the value moved where the edit puts it
(`move_pays`); `fix` applies it and judges the layout the analysis reads from the fixed text with
the same `impact.caches_more` (and the finding by linting that text): a fix `check` offers is one `fix`
keeps, and a move `fix` would withhold is not offered (no fix marker, no unsafe-fix hint).
"""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from .estimates import Cut
from .impact import Impact, cacheable, caches_more, impacts
from .model import Applicability, Fix, PromptLayout


def landing(layout: PromptLayout, cut: Cut, fix: Fix, filename: str) -> int | None:
    """Where in its part the value at `cut` lands with `fix` applied: the index of the last segment
    of the text the edit takes it past, that is the segments after it whose span lies inside the
    edit (the string it moves to the end of), those between them, and, when the edited source
    goes on after the last of them with more than quotes and operators (a field `{GUIDE}` or an
    operand `+ RULES` whose text is written elsewhere), the segments after it in its part. None
    when nothing it passes is known (`filename`: the file the edits are for)."""
    if len(fix.edits) != 1:
        return None
    edit = fix.edits[0]
    part = layout.parts[cut.part]
    last = None
    for index in range(cut.count + 1, len(part.segments)):
        span = part.segments[index].span
        if span is not None and span.filename == filename and _at_or_after(span.start, edit.start) \
                and _at_or_after(edit.end, span.end):
            last = index
    own = part.segments[last if last is not None else cut.count].span
    if own is not None and own.filename == filename and _more_source(filename, own.end, edit.end):
        return len(part.segments) - 1 if len(part.segments) - 1 > cut.count else last
    return last


def _at_or_after(a, b) -> bool:
    return (a.row, a.column) >= (b.row, b.column)


_NOT_TEXT = re.compile(r"""[\s"'+()\\]|\b[rRbBfFuU]{1,2}(?=["'])""")


def _more_source(filename: str, start, end) -> bool:
    """True when the source between `start` and `end` (1-based positions of `filename`) holds more
    than quotes, string prefixes, `+`, parentheses, line continuations and blanks: a field or an
    operand whose text the layout locates where it is written."""
    if not _at_or_after(end, start) or end == start:
        return False
    from .source import SourceError, read_python
    try:
        lines = read_python(Path(filename)).split("\n")
    except (OSError, SourceError, ValueError):
        return False
    if end.row > len(lines):
        return False
    if start.row == end.row:
        between = lines[start.row - 1][start.column - 1:end.column - 1]
    else:
        between = "\n".join([lines[start.row - 1][start.column - 1:], *lines[start.row:end.row - 1],
                             lines[end.row - 1][:end.column - 1]])
    return bool(_NOT_TEXT.sub("", between))


def moved(layout: PromptLayout, cut: Cut, to: int, also: tuple[int, ...] = ()) -> PromptLayout:
    """A copy of `layout` with the segment at `cut` (and the segments of its part at the indexes
    `also`, in their order) moved just after segment `to` of its part (`to` greater than each). A
    breakpoint after a segment before `to` keeps its place in the text (its `after` index shifts
    with that segment); one after segment `to`, the end of the block, stays there (the values are
    still inside the block). Segments are shared, not copied."""
    part = layout.parts[cut.part]
    gone = sorted({cut.count, *also})
    kept = [s for i, s in enumerate(part.segments) if i not in gone]
    at = to - sum(1 for i in gone if i < to) + 1
    segments = kept[:at] + [part.segments[i] for i in gone] + kept[at:]
    marks = [dataclasses.replace(bp, after=bp.after - sum(1 for i in gone if i < bp.after))
             if bp.after < to and bp.after not in gone else bp for bp in part.breakpoints]
    parts = list(layout.parts)
    parts[cut.part] = dataclasses.replace(part, segments=segments, breakpoints=marks)
    return dataclasses.replace(layout, parts=parts)


_MOVES = ("fstring-field", "concat-operand")


def with_moves(layout: PromptLayout, cut: Cut, fix: Fix, to: int, filename: str) -> PromptLayout:
    """The layout as `fix --unsafe-fixes` leaves it when it applies the move `fix` of the value at
    `cut` (landing after segment `to`) with the moves of the other values of the same string,
    which it applies in the same run (each to the end of that string): a value whose move the
    codemod builds for its anchor, that changes (`impact.rate_of`). A sort applied in the same run
    (`sort_keys=True`, `sorted(...)`) is not counted: the sorted value's content may still change
    (data of unknown volatility), so only the next pass, on the sorted text, judges a move after it."""
    from . import codemod
    from .impact import rate_of
    edit = fix.edits[0]
    also = []
    for index, seg in enumerate(layout.parts[cut.part].segments):
        span, anchor = seg.span, seg.anchor
        if index == cut.count or index >= to or anchor is None or anchor.place not in _MOVES \
                or rate_of(seg) is None or span is None or span.filename != filename \
                or not (_at_or_after(span.start, edit.start) and _at_or_after(edit.end, span.end)):
            continue
        other = codemod.build(anchor)
        if other is not None and other.edits and other.applicability is Applicability.UNSAFE:
            also.append(index)
    return moved(layout, cut, to, tuple(also))


def move_pays(layout: PromptLayout, imp: Impact, fix: Fix) -> bool:
    """True when the move `fix` of the value of `imp` is worth offering: with the value where the
    fix's edits put it (`landing`), with the other moves of its string (`with_moves`),
    some target caches more of the prompt than now (`caches_more`) and the value has no finding
    there any more (its impact on that layout has no severity). False when where it lands is not
    known."""
    cut = imp.placed.cut
    seg = imp.seg
    filename = fix.filename or (seg.span.filename if seg.span is not None else "")
    if len(fix.edits) != 1:
        return False
    to = landing(layout, cut, fix, filename)
    if to is None:
        return False
    after = with_moves(layout, cut, fix, to, filename)
    if not caches_more(cacheable(layout), cacheable(after)):
        return False
    there = next((i for i in impacts(after, remember=False) if i.seg is seg), None)
    return there is None or there.severity is None
