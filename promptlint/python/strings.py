"""Python string literals read from source text, with the place of every character.

`ast` merges implicitly concatenated literals into one node and, before Python 3.12, gives no
positions inside f-strings. This scanner reads the literal tokens of such a node from the source
itself, so each piece of text and each replacement field has its true place (a finding is
reported where the value enters the prompt text: docs/policies.md, Policy 8).

`scan(source, start, end)` reads the string tokens between two character offsets of `source`
(whitespace, comments and line continuations between tokens are skipped) and returns a list of
`Piece` (literal text) and `Field` (an f-string replacement field `{expr!r:spec}`), in order.
Offsets are 0-based character offsets into `source`. Raises `ValueError` when the text is not a
sequence of string literals (the caller then treats the node as opaque).
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b",
           "f": "\f", "v": "\v"}
_PREFIX = set("rRbBuUfF")
_OPEN = {"(": ")", "[": "]", "{": "}"}


@dataclass
class Piece:
    """Literal text. `text` is the decoded value; `raw` the source between its first and last
    character (escapes, doubled braces); `start` the offset of `raw[0]` in the source;
    `offsets[i]` the index in `raw` of decoded character i, with one extra entry for the end."""

    text: str
    raw: str
    start: int
    offsets: tuple[int, ...]


@dataclass
class Field:
    """A replacement field of an f-string: `start`/`end` are the offsets of its `{` and just after
    its `}`; `expr_start`/`expr_end` the expression's text; `conversion` "r", "s", "a" or None;
    `spec` the format spec as pieces and nested fields (None when absent); `debug` for `{x=}`."""

    start: int
    end: int
    expr_start: int
    expr_end: int
    conversion: str | None = None
    spec: list = field(default_factory=list)
    has_spec: bool = False
    debug: bool = False

    def spec_text(self) -> str | None:
        """The literal text of the format spec (nested fields left out), or None."""
        if not self.has_spec:
            return None
        return "".join(p.text for p in self.spec if isinstance(p, Piece))


class _Reader:
    def __init__(self, src: str, end: int):
        self.src, self.end = src, end

    def skip_between(self, i: int) -> int:
        """Skip whitespace, comments, line continuations and parentheses between tokens."""
        src = self.src
        while i < self.end:
            c = src[i]
            if c in " \t\r\n\f()":
                i += 1
            elif c == "\\" and i + 1 < self.end and src[i + 1] in "\r\n":
                i += 2
            elif c == "#":
                j = src.find("\n", i)
                i = self.end if j == -1 else j + 1
            else:
                break
        return i

    def token(self, i: int, out: list) -> int:
        """Read one string token at `i` into `out`; return the offset after it."""
        src = self.src
        j = i
        while j < self.end and src[j] in _PREFIX:
            j += 1
        prefix = src[i:j].lower()
        if j >= self.end or src[j] not in "'\"" or len(prefix) > 3:
            raise ValueError(f"not a string literal at offset {i}")
        quote = src[j] * 3 if src.startswith(src[j] * 3, j) else src[j]
        body = j + len(quote)
        is_raw, is_f = "r" in prefix, "f" in prefix
        if is_f:
            k = self._fstring_body(body, quote, is_raw, out)
        else:
            k = self._find_close(body, quote)
            text, offs = decode(src[body:k], is_raw)
            out.append(Piece(text, src[body:k], body, tuple(offs)))
        return k + len(quote)

    def _find_close(self, i: int, quote: str) -> int:
        src = self.src
        while i < len(src):
            if src[i] == "\\":
                i += 2
                continue
            if src.startswith(quote, i):
                return i
            if len(quote) == 1 and src[i] == "\n":
                raise ValueError("unterminated string")
            i += 1
        raise ValueError("unterminated string")

    def _fstring_body(self, i: int, quote: str, is_raw: bool, out: list) -> int:
        """Literal runs and fields of an f-string body starting at `i`; returns the offset of the
        closing quote."""
        src = self.src
        run = i
        while True:
            if i >= len(src):
                raise ValueError("unterminated f-string")
            if src.startswith(quote, i):
                self._literal(run, i, is_raw, out)
                return i
            c = src[i]
            if c == "\\" and not is_raw:
                i += 2
            elif c == "\\":
                i += 2 if i + 1 < len(src) and src[i + 1] in "\\'\"" else 1
            elif c == "{" and src.startswith("{{", i) or c == "}" and src.startswith("}}", i):
                i += 2
            elif c == "{":
                self._literal(run, i, is_raw, out)
                fld, i = self._field(i, quote, is_raw)
                out.append(fld)
                run = i
            else:
                i += 1

    def _literal(self, a: int, b: int, is_raw: bool, out: list) -> None:
        if b <= a:
            return
        raw = self.src[a:b]
        text, offs = decode(raw, is_raw, braces=True)
        out.append(Piece(text, raw, a, tuple(offs)))

    def _field(self, i: int, quote: str, is_raw: bool) -> tuple[Field, int]:
        """The field whose `{` is at `i`; returns it and the offset after its `}`."""
        src = self.src
        start = i
        i += 1
        expr_start = i
        depth = 0
        while i < len(src):
            c = src[i]
            if c in "'\"":
                i = self._skip_string(i)
                continue
            if c in _OPEN:
                depth += 1
            elif c in ")]}" and depth:
                depth -= 1
            elif depth == 0 and (c in "}:" or c == "!" and src[i + 1:i + 2] != "=" or
                                 c == "=" and src[i + 1:i + 2] not in ("=",) and src[i - 1] not in "=!<>"):
                break
            elif c == "#":
                raise ValueError("comment in f-string field")
            i += 1
        else:
            raise ValueError("unterminated f-string field")
        fld = Field(start, 0, expr_start, i)
        if src[i] == "=":
            fld.debug = True
            i += 1
            while src[i] in " \t\r\n":
                i += 1
        if src[i] == "!":
            fld.conversion = src[i + 1]
            i += 2
        if src[i] == ":":
            fld.has_spec = True
            i = self._spec(i + 1, quote, is_raw, fld.spec)
        if src[i] != "}":
            raise ValueError("bad f-string field")
        fld.end = i + 1
        return fld, i + 1

    def _spec(self, i: int, quote: str, is_raw: bool, out: list) -> int:
        src = self.src
        run = i
        while i < len(src):
            c = src[i]
            if c == "}":
                self._literal(run, i, is_raw, out)
                return i
            if c == "{":
                self._literal(run, i, is_raw, out)
                fld, i = self._field(i, quote, is_raw)
                out.append(fld)
                run = i
                continue
            if src.startswith(quote, i):
                raise ValueError("unterminated format spec")
            i += 1
        raise ValueError("unterminated format spec")

    def _skip_string(self, i: int) -> int:
        """Skip a string literal (possibly an f-string) inside a field expression."""
        nested: list = []
        j = i
        while j > 0 and self.src[j - 1] in _PREFIX:  # the prefix was read as part of a name
            j -= 1
        return self.token(j, nested) if j < i else self.token(i, nested)


def decode(raw: str, is_raw: bool = False, braces: bool = False) -> tuple[str, list[int]]:
    """(decoded text, offsets) of a literal body: offsets[i] is the index in `raw` of decoded
    character i, with one more entry for the end. `braces` turns `{{` and `}}` into single braces
    (f-string text). Invalid escapes are kept verbatim, as Python does."""
    out: list[str] = []
    offs: list[int] = []
    i, n = 0, len(raw)
    while i < n:
        c = raw[i]
        if braces and c in "{}" and raw[i + 1:i + 2] == c:
            out.append(c)
            offs.append(i)
            i += 2
            continue
        if c == "\\" and not is_raw and i + 1 < n:
            nxt = raw[i + 1]
            if nxt == "\n":
                i += 2
                continue
            if nxt == "\r":
                i += 3 if raw[i + 2:i + 3] == "\n" else 2
                continue
            decoded, width = _escape(raw, i)
            if decoded is not None:
                out.append(decoded)
                offs.append(i)
                i += width
                continue
        out.append(c)
        offs.append(i)
        i += 1
    offs.append(n)
    return "".join(out), offs


def _escape(raw: str, i: int) -> tuple[str | None, int]:
    """The character an escape at `raw[i]` stands for and the escape's width, or (None, 0)."""
    nxt = raw[i + 1]
    if nxt in _SIMPLE:
        return _SIMPLE[nxt], 2
    try:
        if nxt in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[nxt]
            return chr(int(raw[i + 2:i + 2 + width], 16)), 2 + width
        if nxt == "N" and raw[i + 2:i + 3] == "{":
            j = raw.index("}", i)
            return unicodedata.lookup(raw[i + 3:j]), j + 1 - i
    except (ValueError, KeyError, OverflowError):
        return None, 0
    if nxt in "01234567":
        j = i + 1
        while j < len(raw) and j < i + 4 and raw[j] in "01234567":
            j += 1
        return chr(int(raw[i + 1:j], 8)), j - i
    return None, 0


def scan(source: str, start: int, end: int) -> list:
    """The pieces and fields of the string tokens in `source[start:end]`. Raises ValueError."""
    reader = _Reader(source, end)
    out: list = []
    i = reader.skip_between(start)
    while i < end:
        i = reader.token(i, out)
        i = reader.skip_between(i)
    return out
