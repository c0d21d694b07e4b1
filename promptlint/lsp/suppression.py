"""The "suppress PRMxxx on this line" edit: a `promptlint: ignore[CODE]` comment that covers a finding.

Candidates are tried in order and the first that holds is returned:
1. add the code to a `promptlint: ignore[...]` comment that already covers the row;
2. a trailing comment at the end of the row, then of the rows below it (a finding inside a
   multi-line string is covered by a comment on the row where the string ends);
3. a comment on its own line above the row, then above the rows above it (the row where the
   string starts), indented as that row.

A candidate holds when the changed text still means the same (Python: the same AST; YAML and TOML:
the same data; Jinja: the same tokens once comments are dropped, so a comment never lands inside a
string, a scalar or a tag) and `promptlint.suppress` reads the new comment as covering the finding.
Files without comment syntax (plain prompt files, `.prompt`) get no edit: every line of them is
prompt text.
"""
from __future__ import annotations

import ast
import re
from dataclasses import replace
from pathlib import Path

from ..model import Diagnostic, Edit, Position, Span
from ..suppress import file_kind as comment_kind, parse_suppressions

_SEARCH_ROWS = 12  # rows to look below / above a finding for a place a comment may go


def comment_syntax(path: Path) -> str | None:
    """python, jinja, xml, yaml, toml or None (no comment syntax), as `promptlint.api` decides."""
    from ..discovery import file_kind
    if path.suffix.lower() == ".prompt" or file_kind(path) == "prompt-text":
        return None
    return comment_kind(path.name)


def suppression_edit(text: str, diagnostic: Diagnostic, kind: str | None) -> Edit | None:
    """The edit that suppresses `diagnostic` (in a file of comment syntax `kind`), or None when no
    comment can cover it without changing the file's meaning."""
    if kind is None:
        return None
    row = diagnostic.span.start.row
    lines = text.split("\n")
    if not 1 <= row <= len(lines):
        return None
    meaning = _meaning(text, kind)
    if meaning is None:  # the file does not parse now: nothing can be verified
        return None
    for edit, shift in _candidates(text, lines, diagnostic, kind):
        new = _apply(lines, edit)
        moved = replace(diagnostic, span=Span(diagnostic.span.filename, Position(row + shift, 1),
                                              Position(row + shift, 1)))
        if _meaning(new, kind) == meaning and any(
                s.covers(moved) for s in parse_suppressions(diagnostic.span.filename, new, kind)):
            return edit
    return None


def _candidates(text: str, lines: list[str], d: Diagnostic, kind: str):
    """(edit, rows the finding moves down) in order of preference."""
    code, row = d.code, d.span.start.row
    for s in parse_suppressions(d.span.filename, text, kind):
        if s.directive == "promptlint" and s.codes is not None and s.codes_end is not None and row in s.rows:
            yield Edit(f", {code}", s.codes_end, s.codes_end), 0
    trailing = {"jinja": f"{{# promptlint: ignore[{code}] #}}", "xml": f"<!-- promptlint: ignore[{code}] -->"}.get(
        kind, f"  # promptlint: ignore[{code}]")
    for r in range(row, min(row + _SEARCH_ROWS, len(lines)) + 1):
        end = len(lines[r - 1].rstrip("\r")) + 1
        yield Edit(trailing, Position(r, end), Position(r, end)), 0
    if kind in ("jinja", "xml"):  # a comment alone on a line would add a blank line to the output
        return
    for r in range(row, max(row - _SEARCH_ROWS, 1) - 1, -1):
        indent = re.match(r"[ \t]*", lines[r - 1]).group()
        newline = "\r\n" if lines[r - 1].endswith("\r") else "\n"
        yield Edit(f"{indent}# promptlint: ignore[{code}]{newline}", Position(r, 1), Position(r, 1)), 1


def _apply(lines: list[str], edit: Edit) -> str:
    row, col = edit.start.row, edit.start.column
    out = list(lines)
    line = out[row - 1]
    out[row - 1] = line[: col - 1] + edit.content + line[col - 1:]
    return "\n".join(out)


def _meaning(text: str, kind: str):
    """What the file means without its comments, to compare; None when it does not parse."""
    try:
        if kind == "python":
            from ..newer_syntax import parse_tree  # (PEP 695 syntax on an older Python too)
            return ast.dump(parse_tree(text))
        if kind == "yaml":
            import yaml
            return list(yaml.safe_load_all(text))
        if kind == "toml":
            from ..config import tomllib
            return tomllib.loads(text)
        if kind == "jinja":
            return _jinja_tokens(text)
        if kind == "xml":
            return re.sub(r"<!--.*?-->", "", text, flags=re.S)
    except Exception:  # any parser's error: the text does not parse
        return None
    return None


def _jinja_tokens(text: str) -> list[tuple[str, str]]:
    """The template's tokens without comments, adjacent text runs merged."""
    import jinja2
    out: list[tuple[str, str]] = []
    for _line, kind, value in jinja2.Environment().lex(text):
        if kind.startswith("comment"):
            continue
        if kind == "data" and out and out[-1][0] == "data":
            out[-1] = ("data", out[-1][1] + value)
        else:
            out.append((kind, value))
    return out
