"""Places in source files: positions, spans, raw literal text, fix anchors and carets. Part of the
data model (`promptlint.model` re-exports every name); depends on nothing.

Positions are 1-based rows and 1-based columns counted in characters, as in the JSON output
contract (`promptlint.report.json`).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Position:
    """A place in a file: 1-based row, 1-based column in characters."""

    row: int
    column: int


@dataclass(frozen=True)
class Span:
    """A range in one file; `filename` is the path as given to the checker."""

    filename: str
    start: Position
    end: Position

    @property
    def row(self) -> int:
        return self.start.row

    def __str__(self) -> str:
        return f"{self.filename}:{self.start.row}:{self.start.column}"

    def contains(self, other: Span) -> bool:
        """Whether `other` lies within this span (the same file), e.g. `datetime.now()` in the
        f-string field `{datetime.now()}`."""
        return (other.filename == self.filename
                and (self.start.row, self.start.column) <= (other.start.row, other.start.column)
                and (other.end.row, other.end.column) <= (self.end.row, self.end.column))


@dataclass(frozen=True)
class RawText:
    """The source text of a literal whose decoded value differs from it (escapes): `offsets[i]`
    is the index in `raw` of decoded character i (one extra entry for the end); `start` is where
    `raw` begins in the file."""

    raw: str
    start: Position
    offsets: tuple[int, ...]


@dataclass(frozen=True)
class Anchor:
    """Where a fix for a segment would edit, stated as a fact by the extraction (the codemod layer,
    `promptlint.codemod`, builds the edit lazily, only for what is reported).

    `span` is the extent of the source node (1-based rows, character columns, end exclusive, its
    own parentheses excluded); `place` says what the node is:
    - "iterable": an expression iterated in an unstable order (sort it: PRM202);
    - "serialize-call": a `json.dumps` / `yaml.dump` / `orjson.dumps` call (sort its keys: PRM201);
    - "tools": the expression passed as a request's tools (sort by name: PRM203);
    - "fstring-field": an f-string replacement field `{...}` holding a volatile value (move it to
      the end: PRM101-PRM103);
    - "concat-operand": an operand of a `+` string concatenation holding a volatile value.
    `detail` holds (key, value) pairs a builder needs (e.g. ("shape", "nested") for tools,
    ("qualname", "json.dumps")); `digest` is the sha256 (hex) of the file text the span refers to,
    so an edit is never applied to another text.
    """

    span: "Span"
    place: str
    detail: tuple = ()
    digest: str = ""

    def get(self, key: str, default=None):
        """The value of `key` in `detail`, or `default`."""
        return next((v for k, v in self.detail if k == key), default)


@dataclass(frozen=True)
class Caret:
    """The source text written where a segment enters the prompt (`Segment.caret`): `at`, its
    span; `text`, the expression or placeholder written there (`knowledge_summary`); `built`,
    True when that value is text built around the segment (other text or values beside it),
    False when it is the segment's value itself under another name."""

    at: "Span"
    text: str
    built: bool = False
