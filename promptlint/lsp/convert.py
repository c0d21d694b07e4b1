"""Pure conversions between promptlint's model and LSP types.

promptlint positions are 1-based rows and 1-based columns counted in characters (code points);
LSP positions are 0-based lines and 0-based characters counted in the negotiated position
encoding (UTF-16 code units unless the client offers another). Rows are split on "\\n" only, as
the fix engine does (`promptlint.fix`), so a "\\r" before it belongs to its row.
"""
from __future__ import annotations

from typing import Callable, Iterable

from lsprotocol import types

from ..fix import line_ending
from ..model import Applicability, Diagnostic, Edit, Fix, Position, Span

SOURCE = "promptlint"
_SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning,
             "info": types.DiagnosticSeverity.Information}

#: Code units of a string in the client's position encoding (`PositionCodec.client_num_units`).
Units = Callable[[str], int]


def utf16_units(text: str) -> int:
    """UTF-16 code units of `text`, LSP's default position encoding."""
    return len(text.encode("utf-16-le")) // 2


class LineIndex:
    """The rows of one file's text, to convert promptlint positions to LSP ones."""

    def __init__(self, text: str, units: Units = utf16_units):
        self.lines = text.split("\n")
        self.units = units
        self.ending = line_ending(text)

    def to_lsp(self, pos: Position) -> types.Position:
        """A promptlint position as an LSP one; a row past the end clamps to the end of the text,
        a column past its row to the row's end."""
        line = pos.row - 1
        if line >= len(self.lines):
            return types.Position(line=len(self.lines) - 1, character=self.units(self.lines[-1]))
        text = self.lines[max(line, 0)]
        return types.Position(line=max(line, 0), character=self.units(text[: max(pos.column - 1, 0)]))

    def range(self, start: Position, end: Position) -> types.Range:
        return types.Range(start=self.to_lsp(start), end=self.to_lsp(end))


def severity(d: Diagnostic) -> types.DiagnosticSeverity:
    return _SEVERITY[d.severity.value]


def to_lsp_diagnostic(d: Diagnostic, index: LineIndex, index_of: Callable[[str], LineIndex],
                      uri_of: Callable[[str], str]) -> types.Diagnostic:
    """One finding as an LSP diagnostic: code, severity and message as `check` reports them, the
    related locations as `relatedInformation`. `index` converts this file's positions; `index_of`
    and `uri_of` map another file's name (as in `Span.filename`) to its index and URI."""
    related = [types.DiagnosticRelatedInformation(
        location=types.Location(uri=uri_of(r.span.filename),
                                range=index_of(r.span.filename).range(r.span.start, r.span.end)),
        message=r.message) for r in d.related]
    return types.Diagnostic(
        range=index.range(d.span.start, d.span.end), message=d.message, severity=severity(d),
        code=d.code, source=SOURCE, related_information=related or None,
        data={"name": d.name, "fix": d.fix.applicability.value if d.fix else None})


def text_edits(edits: Iterable[Edit], index: LineIndex) -> list[types.TextEdit]:
    """Model edits as LSP text edits; new line breaks follow the file's line ending, as
    `promptlint.fix.apply_edits` writes them."""
    out = []
    for e in edits:
        content = e.content
        if index.ending != "\n" and "\n" in content:
            content = content.replace("\r\n", "\n").replace("\n", index.ending)
        out.append(types.TextEdit(range=index.range(e.start, e.end), new_text=content))
    return out


def fix_title(fix: Fix) -> str:
    """The code action title of a fix: its message, marked when it is unsafe."""
    if fix.applicability is Applicability.UNSAFE:
        return f"{fix.message} (unsafe: changes the prompt)"
    return fix.message


def overlaps(a: types.Range, b: types.Range) -> bool:
    """Whether two ranges share a position (touching counts: a cursor at a range's end is on it)."""
    return _key(a.start) <= _key(b.end) and _key(b.start) <= _key(a.end)


def contains(r: types.Range, pos: types.Position) -> bool:
    return _key(r.start) <= _key(pos) <= _key(r.end)


def _key(pos: types.Position) -> tuple[int, int]:
    return pos.line, pos.character


def hover_markdown(diagnostics: Iterable[Diagnostic], doc_of: Callable[[str], str | None]) -> str:
    """Markdown for a hover over findings: per finding its code, name, severity, message, fix or
    advice, then the rule's documentation (`doc_of(code)`, once per rule)."""
    blocks, seen = [], set()
    for d in diagnostics:
        block = [f"**{d.code}** `{d.name}` ({d.severity.value})", "", d.message]
        if d.fix is not None:
            block += ["", f"Fix ({d.fix.applicability.value}): {d.fix.message}"]
        elif d.advice:
            block += ["", f"Help: {d.advice}"]
        for r in d.related:
            block += ["", f"Related: `{_where(r.span)}`: {r.message}"]
        doc = doc_of(d.code) if d.code not in seen else None
        seen.add(d.code)
        if doc:
            block += ["", "---", "", doc]
        blocks.append("\n".join(block))
    return "\n\n---\n\n".join(blocks)


def _where(span: Span) -> str:
    return f"{span.filename}:{span.start.row}:{span.start.column}"
