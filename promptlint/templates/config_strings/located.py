"""Located strings of a config file: a string value with the source offset of each of its
characters (`_Str`), offsets to 1-based rows and columns (`_Lines`), and the public
`LocatedValue` that `locate_value` returns."""
from __future__ import annotations

import bisect

from ...model import Position


class LocatedValue(tuple):
    """`(text, start, verbatim)`: a string value of a config file and where it is.

    `start` is the 1-based Position of its first character; `verbatim` is True when the text is
    written contiguously and unescaped from `start` (then `Segment.position_at` is exact).
    `position_at(offset)` is exact in every case.
    """

    def __new__(cls, text: str, start: Position, verbatim: bool, positions: list[Position]):
        self = super().__new__(cls, (text, start, verbatim))
        self.positions = positions
        return self

    text = property(lambda self: self[0])
    start = property(lambda self: self[1])
    verbatim = property(lambda self: self[2])

    def position_at(self, offset: int) -> Position:
        """Where character `offset` of the value (0-based; `len(text)` is just after it) is."""
        return self.positions[max(0, min(offset, len(self.positions) - 1))]


class _Str:
    """A string value and the source offset of each character (`offsets[len(value)]` is the
    offset just after the last character)."""

    __slots__ = ("value", "offsets")

    def __init__(self, value: str, offsets: list[int]):
        self.value, self.offsets = value, offsets

    def verbatim(self, source: str) -> bool:
        start = self.offsets[0]
        return source[start:start + len(self.value)] == self.value and \
            all(b - a == 1 for a, b in zip(self.offsets, self.offsets[1:]))


class _Lines:
    def __init__(self, text: str):
        self.starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]

    def position(self, offset: int) -> Position:
        row = bisect.bisect_right(self.starts, offset)
        return Position(row, offset - self.starts[row - 1] + 1)

    def offset(self, pos: Position) -> int:
        return self.starts[min(pos.row, len(self.starts)) - 1] + pos.column - 1
