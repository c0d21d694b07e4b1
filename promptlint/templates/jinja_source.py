"""Jinja2 template source: the parse-only environment, reading a template file, and locating
every tag and text token of a template by offset, row and column. Templates are never rendered.

Jinja nodes carry a line number only, so every raw token of jinja2's own lexer
(`Lexer.tokeniter`) is located in the source text (each token's value is a verbatim slice of the
source, whitespace control included); `jinja.py` matches the parsed nodes to these tags.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from jinja2 import Environment, nodes

from .. import source
from ..model import Position, Span

_EXTENSIONS = ("jinja2.ext.loopcontrols", "jinja2.ext.do", "jinja2.ext.i18n")


@lru_cache(maxsize=1)
def environment() -> Environment:
    """The parse-only environment: default delimiters, loopcontrols, do and i18n extensions.
    It is used for `parse` and `lex` only; nothing is ever compiled or rendered with it."""
    return Environment(extensions=list(_EXTENSIONS))


def has_jinja_syntax(text: str) -> bool:
    """True when `text` contains a Jinja statement, comment or `{{ ... }}` expression tag."""
    return "{%" in text or "{#" in text or ("{{" in text and "}}" in text)


def normalize_newlines(text: str) -> str:
    """`\\r\\n` and `\\r` -> `\\n`, as jinja's lexer does; rows and columns are unchanged."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


MAX_PATHS = 40  # attribute paths read from one template (more: the rest is left unknown)


def _parsed(text: str):
    """The template's jinja2 tree, or None when it does not parse (a syntax error is reported
    when the template itself is read)."""
    try:
        return environment().parse(normalize_newlines(text))
    except Exception:
        return None


def attribute_paths(text: str, roots, depth: int = 3) -> list[str]:
    """The dotted attribute paths of `roots` that a template reads (`task.depends_on` for
    `{% for t in task.depends_on %}`, `{{ a.b.c }}` gives "a.b" and "a.b.c"), at most `depth`
    attributes deep and `MAX_PATHS` in all, in source order; [] when it does not parse. A
    variable rebound in the template (`{% set task = ... %}`, a loop target) is read the same:
    the caller only uses what Python binds."""
    roots = set(roots)
    tree = _parsed(text) if roots else None
    if tree is None:
        return []
    found: dict[str, None] = {}
    for node in tree.find_all(nodes.Getattr):
        chain, inner = [node.attr], node.node
        while isinstance(inner, nodes.Getattr):
            chain.append(inner.attr)
            inner = inner.node
        if not isinstance(inner, nodes.Name) or inner.name not in roots or len(chain) > depth:
            continue
        chain.reverse()
        for i in range(1, len(chain) + 1):
            found.setdefault(".".join([inner.name, *chain[:i]]))
        if len(found) >= MAX_PATHS:
            break
    return sorted(found, key=lambda d: (d.count("."), d))[:MAX_PATHS]


def item_paths(text: str, roots) -> list[tuple[str, list[str]]]:
    """(root, attributes) for each attribute a template reads of the items of a list it loops
    over (`{% for r in rulesets %}...{{ r.name }}` gives ("rulesets", ["name"])), one attribute
    deep, at most `MAX_PATHS`, in source order; [] when it does not parse."""
    roots = set(roots)
    tree = _parsed(text) if roots else None
    if tree is None:
        return []
    found: dict[tuple[str, str], None] = {}
    for loop in tree.find_all(nodes.For):
        iterable = loop.iter
        while isinstance(iterable, nodes.Filter) and iterable.node is not None:
            iterable = iterable.node
        if not (isinstance(iterable, nodes.Name) and iterable.name in roots and isinstance(loop.target, nodes.Name)):
            continue
        for body in loop.body:
            for node in body.find_all(nodes.Getattr):
                if isinstance(node.node, nodes.Name) and node.node.name == loop.target.name:
                    found.setdefault((iterable.name, node.attr))
        if len(found) >= MAX_PATHS:
            break
    return [(root, [attr]) for root, attr in list(found)[:MAX_PATHS]]


def _read(path: Path) -> str:
    """A template's text as `Path.read_text(encoding="utf-8")` gives it (universal newlines), read
    by `promptlint.source` (regular files only, size-limited, recorded as a dependency of the
    analysis). Raises OSError (UnicodeDecodeError for bytes that are not UTF-8)."""
    try:
        data = source.read_bytes(path)
    except source.SourceError as exc:
        raise OSError(str(exc)) from None
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


@dataclass
class _Tag:
    start: int
    end: int
    first_line: int
    last_line: int
    inner: str
    keyword: str = ""


class _Source:
    """A template's normalized text, its AST, and its tags located by offset."""

    def __init__(self, text: str, tree: nodes.Template):
        self.text = text
        self.tree = tree
        self.line_starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
        self.var_tags: list[_Tag] = []
        self.block_tags: list[_Tag] = []
        self.datas: list[tuple[int, str]] = []  # (offset, text) of each data token
        self._locate_tokens()

    @classmethod
    def parse(cls, text: str) -> "_Source":
        text = normalize_newlines(text)
        tree = environment().parse(text)
        return cls(text, tree)

    def position(self, offset: int) -> Position:
        row = bisect.bisect_right(self.line_starts, offset)
        return Position(row, offset - self.line_starts[row - 1] + 1)

    def span(self, filename: str, start: int, end: int) -> Span:
        return Span(filename, self.position(start), self.position(end))

    def _locate_tokens(self) -> None:
        text, cursor = self.text, 0
        open_tag = None  # (kind, start offset, inner start, first line, keyword)
        for lineno, kind, value in environment().lexer.tokeniter(text, None):
            off = text.find(value, cursor) if value else cursor
            if off < 0:  # never expected: every raw token is a slice of the source
                off = cursor
            cursor = off + len(value)
            if kind == "data":
                if value:
                    self.datas.append((off, value))
            elif kind in ("variable_begin", "block_begin"):
                open_tag = [kind, off, cursor, lineno, ""]
            elif kind == "name" and open_tag is not None and not open_tag[4]:
                open_tag[4] = value
            elif kind in ("variable_end", "block_end") and open_tag is not None:
                tag = _Tag(open_tag[1], cursor, open_tag[3], lineno, text[open_tag[2]:off].strip(),
                           open_tag[4])
                (self.var_tags if kind == "variable_end" else self.block_tags).append(tag)
                open_tag = None
