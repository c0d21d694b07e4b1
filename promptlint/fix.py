"""The fix engine: apply text edits, loop lint -> fix -> re-parse to a fixpoint, write atomically.

Pure functions over text; no CLI, no printing. The loop follows ruff's fix loop (
`ruff:crates/ruff_linter/src/fix/mod.rs:apply_fixes` and `linter.rs:lint_fix`): fixes are
filtered by applicability, sorted by their first edit, a fix that overlaps (or touches) an
already applied one is skipped and picked up on the next pass, identical edits are applied once;
after each pass the text must still parse and compile, or the file's fixes are dropped; at the
fixpoint, a fix whose finding is still there is withheld and the file is fixed again without it.
Files are written by `promptlint.writer`.

Positions are the model's: 1-based rows, 1-based columns counted in characters, end exclusive.
Rows are split on "\\n" only; a "\\r" before it stays part of its row, so CRLF files keep their
line endings and libcst's columns (which never count the "\\r") still match.
"""
from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable

from .model import Applicability, Diagnostic, Edit, Fix, Position
from .source import SourceError

MAX_ITERATIONS = 20
SYNTAX_ERROR = "fix introduced a syntax error"


class EditError(ValueError):
    """An edit lies outside the text, or the edits of one call overlap."""


def _line_starts(text: str) -> list[int]:
    """Offsets where each row starts (row 1 at index 0); rows are split on "\\n" only."""
    starts = [0]
    index = text.find("\n")
    while index != -1:
        starts.append(index + 1)
        index = text.find("\n", index + 1)
    return starts


def _offset(starts: list[int], text: str, position: Position) -> int:
    """The string index of a 1-based (row, column) position. Raises EditError when the
    position is outside the text (past its row's newline, or past the last row)."""
    row, column = position.row, position.column
    if row < 1 or row > len(starts) or column < 1:
        raise EditError(f"position {row}:{column} is outside the text")
    offset = starts[row - 1] + column - 1
    row_end = starts[row] - 1 if row < len(starts) else len(text)  # index of the row's "\n"
    if offset > row_end:
        raise EditError(f"position {row}:{column} is past the end of row {row}")
    return offset


def line_ending(text: str) -> str:
    """The text's line ending, judged by its first line break: "\\r\\n" or "\\n"."""
    index = text.find("\n")
    return "\r\n" if index > 0 and text[index - 1] == "\r" else "\n"


def _with_line_ending(content: str, ending: str) -> str:
    """`content` with each bare "\\n" written as `ending` (existing "\\r\\n" untouched)."""
    if ending == "\n" or "\n" not in content:
        return content
    return content.replace("\r\n", "\n").replace("\n", ending)


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """Apply edits (any order; sorted here) to `text` and return the new text.

    Edits may touch but not overlap; two insertions at one place are applied in the given
    order. New line breaks inside an edit's content follow the text's line ending (a CRLF file
    gets "\\r\\n"). Raises EditError for a position outside the text or overlapping edits.
    """
    starts = _line_starts(text)
    ending = line_ending(text)
    spans = []
    for order, edit in enumerate(edits):
        start, end = _offset(starts, text, edit.start), _offset(starts, text, edit.end)
        if end < start:
            raise EditError(f"edit ends before it starts at {edit.start.row}:{edit.start.column}")
        spans.append((start, end, order, _with_line_ending(edit.content, ending)))
    spans.sort()
    out, last = [], 0
    for start, end, _, content in spans:
        if start < last:
            raise EditError(f"overlapping edits at offset {start}")
        out.append(text[last:start])
        out.append(content)
        last = end
    out.append(text[last:])
    return "".join(out)


def is_applicable(fix: Fix | None, unsafe: bool) -> bool:
    """True when `fix` has edits and its applicability allows applying it: safe always,
    unsafe only when `unsafe`, display-only never."""
    if fix is None or not fix.edits:
        return False
    if fix.applicability is Applicability.SAFE:
        return True
    return unsafe and fix.applicability is Applicability.UNSAFE


def _sorted_edits(fix: Fix) -> list[Edit]:
    return sorted(fix.edits, key=lambda e: (e.start, e.end))


def apply_fixes(text: str, diagnostics: Iterable[Diagnostic], unsafe: bool
                ) -> tuple[str, list[Diagnostic]]:
    """Apply the applicable fixes of `diagnostics` to `text` in one pass.

    Returns (new text, the diagnostics whose fix was applied). Fixes are sorted by their first
    edit (then code); a fix whose new edits start at or before the end of an edit already
    applied is skipped (the next pass of `fix_file` picks it up); an edit identical to one
    already applied is applied once (a fix made only of such edits counts as applied). A fix
    whose own edits overlap, or that lies outside the text, is skipped.
    """
    candidates = [d for d in diagnostics if is_applicable(d.fix, unsafe)]
    candidates.sort(key=lambda d: (_sorted_edits(d.fix)[0].start, _sorted_edits(d.fix)[0].end,
                                   d.code, d.span.start))
    starts = _line_starts(text)
    applied_edits: set[tuple] = set()
    chosen: list[tuple[int, int, str]] = []
    applied: list[Diagnostic] = []
    last_end = -1
    for diag in candidates:
        try:
            spans = [(_offset(starts, text, e.start), _offset(starts, text, e.end), e.content)
                     for e in _sorted_edits(diag.fix)]
        except EditError:
            continue
        if any(end < start for start, end, _ in spans) or any(
                spans[i + 1][0] < spans[i][1] for i in range(len(spans) - 1)):
            continue  # a malformed fix: its own edits overlap
        new = [s for s in spans if s not in applied_edits]
        if new and new[0][0] <= last_end:
            continue
        for span in new:
            chosen.append(span)
            applied_edits.add(span)
            last_end = span[1]
        applied.append(diag)
    if not chosen:
        return text, applied
    ending = line_ending(text)
    out, last = [], 0
    for start, end, content in chosen:
        out.append(text[last:start])
        out.append(_with_line_ending(content, ending))
        last = end
    out.append(text[last:])
    return "".join(out), applied


@dataclass
class FixResult:
    """The outcome of fixing one file.

    `new_text` is the text to write (the original when nothing applied or on error);
    `fixed_count` the number of diagnostics whose fix was applied over all passes (0 when the
    fixes were dropped); `remaining` the diagnostics of `new_text`; `error` a one-line message
    ("fix introduced a syntax error", "fixes did not converge after 20 iterations") or None;
    `applied` the applied diagnostics in order; `original` the text before fixing; `initial`
    the diagnostics of the original text; `withheld` one line per fix left out because its
    finding stayed after it ("PRM102 at 3:12: ...").
    """

    new_text: str
    fixed_count: int
    remaining: list[Diagnostic]
    error: str | None = None
    applied: list[Diagnostic] = field(default_factory=list)
    original: str = ""
    initial: list[Diagnostic] = field(default_factory=list)
    withheld: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.new_text != self.original


def read_text(path: str | os.PathLike) -> str:
    """A file's text decoded as the analysis reads it (`writer.read_snapshot`). Raises
    `promptlint.source.SourceError`."""
    from .writer import read_snapshot
    return read_snapshot(path).text


def finding_key(diagnostic: Diagnostic, text: str) -> tuple[str, str]:
    """What identifies a finding across fix passes: its code and the source text at its span
    (whitespace left out), which moves with the code when other lines change."""
    starts = _line_starts(text)
    try:
        snippet = text[_offset(starts, text, diagnostic.span.start):_offset(starts, text, diagnostic.span.end)]
    except EditError:
        snippet = ""
    return diagnostic.code, "".join(snippet.split())


def _read_error(exc: Exception) -> str:
    text = str(exc)
    return text if text.startswith("cannot read") else f"cannot read file: {text}"


MAX_ROUNDS = 4  # fix loops per file: each round withholds the fixes whose findings stayed


def fix_file(path: str | os.PathLike, lint: Callable[[str], list[Diagnostic]], unsafe: bool,
             parse_check: Callable[[str], bool], max_iterations: int = MAX_ITERATIONS,
             text: str | None = None, cacheable: Callable[[str], dict[str, dict[str, int]]] | None = None
             ) -> FixResult:
    """Fix one file to a fixpoint (ruff's loop); writes nothing.

    `lint(text)` returns this file's diagnostics for the given text (the caller binds the path);
    `parse_check(text)` says whether a text is still valid (Python: parsed and compiled). Each
    pass lints, applies non-overlapping fixes, and checks the result: if it is not valid, all of
    this file's fixes are dropped and `error` is "fix introduced a syntax error". The loop stops
    when no fix applies or after `max_iterations` passes (then `error` reports the
    non-convergence and the text of the last pass, which is valid, is kept, as ruff does).

    After every fix the finding must be gone: when the fixpoint still has a finding (same code,
    same source text) whose fix was applied, that fix is withheld and the loop starts again from
    the original text (at most MAX_ROUNDS rounds); `withheld` says which. Likewise a fix that
    moves prompt content (`Fix.moves`) must gain something: `cacheable(text)` gives, per prompt id,
    the tokens each target would cache (`impact.cacheable`); when no target of the fix's prompt
    caches more at the fixpoint than in the original text, the move is withheld (without
    `cacheable`, moves are judged by their finding only). `text` overrides reading `path`.
    Unreadable files give `error` and no change.
    """
    if text is None:
        try:
            text = read_text(path)
        except (OSError, SourceError) as exc:  # a one-line message, no change
            return FixResult("", 0, [], error=_read_error(exc))
    initial = lint(text)
    withheld: set[tuple[str, str]] = set()
    notes: list[str] = []
    result = None
    for _ in range(MAX_ROUNDS):
        result = _fix_round(text, initial, lint, unsafe, parse_check, max_iterations, withheld)
        if result.error is not None or not result.applied:
            break
        stayed = {finding_key(d, result.new_text) for d in result.remaining}
        applied = {key for key, _ in result.applied_keys}
        kept = stayed & applied
        idle = _idle_moves(result.applied_keys, text, result.new_text, cacheable) - kept
        if not kept and not idle:
            break
        for key, diag in result.applied_keys:
            if (key in kept or key in idle) and key not in withheld:
                why = "the finding would stay after it" if key in kept else "it would cache nothing more of its prompt"
                notes.append(f"{diag.code} at {diag.span.start.row}:{diag.span.start.column}: fix not applied, {why}")
                withheld.add(key)
    else:
        result = FixResult(text, 0, initial, f"fixes left findings behind after {MAX_ROUNDS} rounds; nothing fixed",
                           [], text)
    return FixResult(result.new_text, result.fixed_count, result.remaining, result.error, result.applied,
                     text, initial, notes)


def _idle_moves(applied_keys: list, original: str, new_text: str, cacheable) -> set[tuple[str, str]]:
    """The keys of applied moves (`Fix.moves`) whose prompt caches no more tokens on any target in
    `new_text` than in `original` (`impact.caches_more`; a prompt not found in both texts is not
    judged)."""
    moves = [(key, d) for key, d in applied_keys if d.fix is not None and d.fix.moves and d.prompt]
    if cacheable is None or not moves:
        return set()
    from .impact import caches_more  # the test `check` applies before it offers the move (gains)
    before, after = cacheable(original), cacheable(new_text)
    idle = set()
    for key, diag in moves:
        was, now = before.get(diag.prompt), after.get(diag.prompt)
        if was is None or now is None:
            continue
        if not caches_more(was, now):
            idle.add(key)
    return idle


@dataclass
class _Round(FixResult):
    applied_keys: list[tuple[tuple[str, str], Diagnostic]] = field(default_factory=list)


def _fix_round(text: str, initial: list[Diagnostic], lint, unsafe: bool, parse_check, max_iterations: int,
               withheld: set) -> _Round:
    """One fixpoint loop from `text`, leaving out the fixes of findings in `withheld`."""
    original = current = text
    applied_all: list[Diagnostic] = []
    keys: list = []
    diagnostics = initial
    for _ in range(max_iterations):
        candidates = [d for d in diagnostics if finding_key(d, current) not in withheld]
        new_text, applied = apply_fixes(current, candidates, unsafe)
        if not applied or new_text == current:
            return _Round(current, len(applied_all), diagnostics, None, applied_all, original, applied_keys=keys)
        if not parse_check(new_text):
            error = SYNTAX_ERROR if parse_check(current) else "file does not parse; nothing fixed"
            return _Round(original, 0, initial, error, [], original)
        keys.extend((finding_key(d, current), d) for d in applied)
        applied_all.extend(applied)
        current = new_text
        diagnostics = lint(current)
    return _Round(current, len(applied_all), diagnostics,
                  f"fixes did not converge after {max_iterations} iterations", applied_all, original,
                  applied_keys=keys)


def write_atomic(path: str | os.PathLike, text: str, expected=None) -> None:
    """`promptlint.writer.write_atomic`: replace a file atomically, keeping its encoding, line
    endings, mode, owner and hard links, only over the text it was computed from. Raises
    `writer.WriteError`."""
    from .writer import write_atomic as write
    write(path, text, expected)


def _diff_lines(text: str) -> list[str]:
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    if not lines[-1]:
        lines.pop()
    return lines


def unified_diff(path_display: str, old: str, new: str) -> str:
    """A unified diff (3 lines of context) from `old` to `new`, headed `--- path` / `+++ path`;
    "" when equal. Lines are split on "\\n" only; a last line without a newline is marked
    "\\ No newline at end of file" as in diff(1)."""
    if old == new:
        return ""
    out = []
    for line in difflib.unified_diff(_diff_lines(old), _diff_lines(new), fromfile=path_display,
                                     tofile=path_display):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def rewritable(filename: str, paths: Iterable[str | os.PathLike]) -> bool:
    """True when `promptlint fix PATHS` may rewrite `filename`: it is one of `paths` (the current
    folder when none) or inside one. A file the analysis read beside them (an imported module, a
    package found next to them) concerns them but is not theirs to rewrite."""
    given = [os.path.abspath(p) for p in paths] or [os.path.abspath(".")]
    target = os.path.abspath(filename)
    return any(target == g or target.startswith(g.rstrip(os.sep) + os.sep) for g in given)


def offer_fixes(diagnostics: list[Diagnostic], paths: Iterable[str | os.PathLike]) -> list[Diagnostic]:
    """The diagnostics with the fix of each finding `fix` would not rewrite (`rewritable`: its file
    lies outside `paths`) turned into advice naming the file, so a report marks as fixable only
    what `promptlint fix PATHS` fixes (a new list; the diagnostics changed are copies)."""
    paths = list(paths)
    out = []
    for d in diagnostics:
        if d.fix is not None and d.fix.edits and not rewritable(d.fix.filename or d.span.filename, paths):
            d = replace(d, fix=None, advice=f"{d.fix.message} (`promptlint fix` rewrites only the "
                                                        f"paths it is given, and they do not hold {d.span.filename})")
        out.append(d)
    return out


def hidden_unsafe(diagnostics: Iterable[Diagnostic]) -> int:
    """How many diagnostics have an unsafe fix (applied only with --unsafe-fixes)."""
    return sum(1 for d in diagnostics
               if d.fix is not None and d.fix.edits and d.fix.applicability is Applicability.UNSAFE)


def summary(fixed: int, remaining: int, hidden_unsafe: int = 0, surfaced: int = 0) -> str:
    """The one-line fix summary: "N fixed, M remaining (K of them fixable with --unsafe-fixes)":
    the K are among the M; the parenthesis is left out when K is 0. `surfaced`: how many of the N
    were not reported before fixing (a finding behind an earlier one of the same prompt is reported
    once that one is fixed, Policy 8): said after N when not 0."""
    text = f"{fixed} fixed"
    if surfaced > 0:
        text += (f" ({surfaced} of them reported only once an earlier fix was applied: "
                 f"{'it was' if surfaced == 1 else 'they were'} behind an earlier finding of the same prompt)")
    text += f", {remaining} remaining"
    if hidden_unsafe:
        text += f" ({hidden_unsafe} of them fixable with --unsafe-fixes)"
    return text
