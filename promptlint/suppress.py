"""Suppression comments: find them in each file type and drop the diagnostics they cover.

Forms (ruff and flake8 conventions):

- Python: `# promptlint: ignore[PRM102]`, `# noqa: PRM102`; for the whole file
  `# promptlint: file-ignore[PRM102]`.
- Jinja (`.j2`, `.jinja`, `.jinja2`): `{# promptlint: ignore[PRM102] #}`, `{# noqa: PRM102 #}`,
  `{# promptlint: file-ignore[PRM102] #}`.
- POML (`.poml`): `<!-- promptlint: ignore[PRM102] -->`, `<!-- noqa: PRM102 -->`,
  `<!-- promptlint: file-ignore[PRM102] -->` (POML drops comments when it renders).
- YAML, TOML: `# promptlint: ignore[PRM102]`, `# noqa: PRM102`,
  `# promptlint: file-ignore[PRM102]`.
- Plain prompt files (`.md`, `.txt`, `.prompt`): none (see below).

- A comment that shares its line with code covers that line; a comment alone on its line covers
  the next line that is neither blank nor another comment. A covered line that starts or ends a
  multi-line string (Python, TOML) or a multi-line scalar (YAML) covers the whole string, since a
  comment cannot go inside it.
- Codes are codes (`PRM102`), prefixes (`PRM1`, as flake8) or rule names; several are separated by
  commas or spaces. `ignore` and `file-ignore` without `[...]` cover every rule.
- A comment at the end of a line covers that line only (as ruff's `# noqa`), also when the finding
  is on the next line: put it alone on the line above to cover that one.
- A bare `# noqa` is another linter's (long prompt lines often carry one for a line-length check,
  and it would hide their cache findings): it covers no promptlint rule, whatever else the file
  holds, and is never reported as unused. `# noqa` lists are shared with other linters: codes that
  do not start with `PRM` are left alone, and a list without any is not ours.
- Only real comments count: text inside a Python string, a YAML scalar or a TOML string is prompt
  text, not a directive.
- Plain prompt files have no comment syntax: every line is sent to the model, so a line
  `promptlint: ignore[...]` (or an HTML comment in Markdown) would be prompt text. Use
  `per-file-ignores` in the configuration for them.
"""
from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

from .model import Diagnostic, Position

ALL = "*"  # the selector recorded for a suppression without codes

# Linear time on any text (issue 17): every repetition that could scan far is bounded or cannot
# overlap with what follows it; Jinja comments are found with str.find, not a lazy `.*?`.
_HASH_PROMPTLINT = re.compile(
    r"#\s*promptlint:\s*(?P<kind>file-ignore|ignore)\b(?:\[(?P<codes>[^\]\n]{0,2000})\])?")
_HASH_NOQA = re.compile(
    r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?(?![\w:])", re.I)
# The head of a Jinja directive comment; the rest up to its `#}` must hold no other `#`.
_BLOCK_DIRECTIVE = (r"\s*(?:promptlint:\s*(?P<kind>file-ignore|ignore)\b(?:\[(?P<codes>[^\]]{0,2000})\])?"
                    r"|noqa(?::\s*(?P<noqa>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?)")
_JINJA_DIRECTIVE = re.compile(r"\{#-?" + _BLOCK_DIRECTIVE, re.S | re.I)
# The same in a POML (XML) comment, up to its `-->`.
_XML_DIRECTIVE = re.compile(r"<!--" + _BLOCK_DIRECTIVE, re.S | re.I)
_CDATA = re.compile(r"<!\[CDATA\[.*?\]\]>", re.S)
#: Comment syntaxes whose directive is the whole comment: (head pattern, opener, closer).
_BLOCK_COMMENTS = {"jinja": (_JINJA_DIRECTIVE, "{#", "#}"), "xml": (_XML_DIRECTIVE, "<!--", "-->")}


@dataclass(frozen=True)
class Suppression:
    """One suppression directive in one file.

    `row` and `start`/`end` locate the directive's text (1-based, end exclusive, one line except
    multi-line Jinja comments). `codes` are the selectors it lists, None for "every rule".
    `directive` is `promptlint`, `noqa` or `file` (file-ignore). `rows` are the rows it covers
    (empty for a file-level one). `own_line` says it is alone on its line. `codes_start` and
    `codes_end` locate the code list (None when there is none); `listed` is every code of that
    list in order, other linters' codes of a `# noqa` list included; `kind` is the file type
    (python, jinja, yaml, toml); `line` is the text of its row without the newline;
    `has_next_line` says the row ends with a newline (so the whole line can be deleted).
    """

    filename: str
    row: int
    start: Position
    end: Position
    codes: tuple[str, ...] | None
    directive: str
    rows: frozenset[int]
    own_line: bool
    kind: str
    line: str
    codes_start: Position | None = None
    codes_end: Position | None = None
    listed: tuple[str, ...] = ()
    has_next_line: bool = True

    @property
    def is_file_level(self) -> bool:
        return self.directive == "file"

    def covers(self, diagnostic: Diagnostic) -> str | None:
        """The selector that suppresses `diagnostic` (ALL for a code-less directive), or None."""
        if diagnostic.span.filename != self.filename:
            return None
        if not self.is_file_level and diagnostic.span.start.row not in self.rows:
            return None
        if self.codes is None:
            return ALL
        for selector in self.codes:
            if selector == diagnostic.name or diagnostic.code.startswith(selector.upper()):
                return selector
        return None


def file_kind(filename: str) -> str | None:
    """The comment syntax of a file from its name: python, jinja (a `.prompty` file's body is a
    Jinja template), xml (a `.poml` file), yaml, toml or None."""
    name = filename.lower().replace("\\", "/").rsplit("/", 1)[-1]
    suffixes = name.split(".")[1:]
    if not suffixes:
        return None
    if any(s in ("j2", "jinja", "jinja2") for s in suffixes) or suffixes[-1] == "prompty":
        return "jinja"
    if suffixes[-1] == "poml":
        return "xml"
    return {"py": "python", "pyi": "python", "yaml": "yaml", "yml": "yaml",
            "toml": "toml"}.get(suffixes[-1])


_NOQA_PRM = re.compile(r"noqa[ \t]{0,8}:[^\n]{0,200}?prm")


def might_suppress(text: str) -> bool:
    """False when `text` cannot hold a suppression comment of promptlint (no `promptlint`, no
    `noqa: PRM...`; a bare `# noqa` is another linter's): such a file is never tokenized
    (tokenizing every file was a tenth of a run's time)."""
    lower = text.lower()
    if "promptlint" in lower:
        return True
    return "noqa" in lower and _NOQA_PRM.search(lower) is not None


def parse_suppressions(filename: str, text: str, kind: str | None = None) -> list[Suppression]:
    """Every suppression directive in `text` (the contents of `filename`).

    `kind` is the file type (see `file_kind`, the default); a file that cannot be tokenized
    (a Python syntax error, invalid YAML) yields no suppressions.
    """
    kind = kind or file_kind(filename)
    if kind is None or not might_suppress(text):
        return []
    scanner = {"python": _scan_python, "yaml": _scan_yaml, "toml": _scan_toml,
               "jinja": _scan_jinja, "xml": _scan_xml}[kind]
    try:
        comments, multiline = scanner(text)
    except (SyntaxError, tokenize.TokenError, ValueError, IndentationError):
        return []
    except Exception as exc:  # yaml.YAMLError
        if type(exc).__module__.startswith("yaml"):
            return []
        raise
    lines = text.split("\n")
    comment_rows = {row for row, _col, own, _t in comments if own}
    extent: dict[int, list[tuple[int, int]]] = {}  # an edge row -> the multi-line strings it ends
    for first, last in multiline:
        for edge in (first, last):
            extent.setdefault(edge, []).append((first, last))
    next_code: list[int] = []  # row r -> the first row from r on that is neither blank nor a comment
    following = len(lines) + 1
    for r in range(len(lines), 0, -1):
        if lines[r - 1].strip() and r not in comment_rows:
            following = r
        next_code.append(following)
    next_code.reverse()
    covers: dict[int, frozenset[int]] = {}  # shared by the directives that cover the same row

    def covering(row: int) -> frozenset[int]:
        if row not in covers:
            rows = {row}
            for first, last in extent.get(row, ()):
                rows.update(range(first, last + 1))
            covers[row] = frozenset(rows)
        return covers[row]

    result: list[Suppression] = []
    for row, col, own_line, comment in comments:
        line = (lines[row - 1] if row - 1 < len(lines) else "").removesuffix("\r")  # CRLF: not part of the row
        for found in _directives(kind, comment):
            d_start, d_end, directive, codes, c_start, c_end, listed = found
            if own_line:
                target = row + comment[:d_end].count("\n") + 1
                target = next_code[target - 1] if target <= len(lines) else target
                covered = covering(target)
            else:
                covered = covering(row)
            result.append(Suppression(
                filename=filename, row=row,
                start=_pos(row, col, comment, d_start), end=_pos(row, col, comment, d_end),
                codes=codes, directive=directive,
                rows=frozenset() if directive == "file" else covered,
                own_line=own_line, kind=kind, line=line,
                codes_start=_pos(row, col, comment, c_start) if c_start is not None else None,
                codes_end=_pos(row, col, comment, c_end) if c_end is not None else None,
                listed=listed, has_next_line=row < len(lines)))
    return result


def _pos(row: int, col: int, comment: str, offset: int) -> Position:
    """Position of character `offset` of a comment that starts at (row, 0-based col)."""
    before = comment[:offset]
    if "\n" not in before:
        return Position(row, col + offset + 1)
    return Position(row + before.count("\n"), len(before) - before.rfind("\n"))


def _split(codes: str) -> tuple[str, ...]:
    return tuple(c for c in re.split(r"[,\s]+", codes.strip()) if c)


def _directives(kind: str, comment: str) -> Iterator[tuple]:
    """(start, end, directive, codes, codes_start, codes_end, listed) in one comment's text."""
    if kind in _BLOCK_COMMENTS:
        head, _, closer = _BLOCK_COMMENTS[kind]
        m = head.match(comment)
        rest = comment[m.end():] if m else ""
        if not m or not rest.endswith(closer) or (kind == "jinja" and "#" in rest[:-2]):
            return
        if m.group("kind"):
            group = "codes"
            directive = "file" if m.group("kind") == "file-ignore" else "promptlint"
        else:
            group, directive = "noqa", "noqa"
        found = _directive(m, group, directive)
        if found is not None:
            yield (found[0], len(comment), *found[2:])  # the directive is the whole comment
        return
    for m in _HASH_PROMPTLINT.finditer(comment):
        yield _directive(m, "codes", "file" if m.group("kind") == "file-ignore" else "promptlint")
    for m in _HASH_NOQA.finditer(comment):
        found = _directive(m, "codes", "noqa")
        if found is not None:
            yield found


def _directive(m: re.Match, group: str, directive: str):
    raw = m.group(group)
    if raw is None and directive == "noqa":
        return None  # a bare `# noqa`: another linter's (the module docstring)
    if raw is None:
        return (m.start(), m.end(), directive, None, None, None, ())
    listed = codes = _split(raw)
    if directive == "noqa":
        codes = tuple(c.upper() for c in codes if c.upper().startswith("PRM"))
        if not codes:
            return None  # another linter's noqa
    return (m.start(), m.end(), directive, codes, m.start(group), m.end(group), listed)


# Scanners: (comments as (row, 0-based col, own_line, text), multi-line strings as (first, last)).

def _scan_python(text: str):
    comments, multiline, fstring_starts = [], [], []
    lines = text.split("\n")
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        name = tokenize.tok_name[tok.type]
        if tok.type == tokenize.COMMENT:
            row, col = tok.start
            own = not lines[row - 1][:col].strip()
            comments.append((row, col, own, tok.string))
        elif tok.type == tokenize.STRING and tok.start[0] != tok.end[0]:
            multiline.append((tok.start[0], tok.end[0]))
        elif name == "FSTRING_START":
            fstring_starts.append(tok.start[0])
        elif name == "FSTRING_END" and fstring_starts:
            first = fstring_starts.pop()
            if first != tok.end[0]:
                multiline.append((first, tok.end[0]))
    return comments, multiline


def _scan_yaml(text: str):
    import yaml

    scalars, multiline = [], []
    for tok in yaml.scan(text, Loader=yaml.SafeLoader):
        if isinstance(tok, yaml.ScalarToken):
            scalars.append((tok.start_mark.index, tok.end_mark.index))
            first = tok.start_mark.line + 1
            last = tok.end_mark.line + (1 if tok.end_mark.column else 0)
            if last > first:
                multiline.append((first, last))
    comments, commented_rows = [], set()
    rows = _Rows(text)
    scalar = 0  # scalars are in text order: the first that does not end before the `#`
    for m in re.finditer(r"(?:(?<=\s)|^)#", text, re.M):
        at = m.start()
        row = rows.row(at)
        while scalar < len(scalars) and scalars[scalar][1] <= at:
            scalar += 1
        if row in commented_rows or (scalar < len(scalars) and scalars[scalar][0] <= at):
            continue
        commented_rows.add(row)
        end = text.find("\n", at)
        col = at - rows.start(row)
        own = not text[at - col:at].strip()
        comments.append((row, col, own, text[at:len(text) if end < 0 else end]))
    return comments, multiline


class _Rows:
    """1-based rows of character offsets, for offsets asked in increasing order (linear)."""

    def __init__(self, text: str):
        self.text, self.offset, self.current, self.line_start = text, 0, 1, 0

    def row(self, offset: int) -> int:
        while True:
            nl = self.text.find("\n", self.offset, offset)
            if nl < 0:
                break
            self.current, self.line_start, self.offset = self.current + 1, nl + 1, nl + 1
        self.offset = max(self.offset, offset)
        return self.current

    def start(self, row: int) -> int:
        """The offset where the row last returned by `row` starts."""
        return self.line_start


def _scan_toml(text: str):
    comments, multiline = [], []
    i, row, line_start, n = 0, 1, 0, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            row, line_start, i = row + 1, i + 1, i + 1
        elif c == "#":
            end = text.find("\n", i)
            end = n if end < 0 else end
            col = i - line_start
            comments.append((row, col, not text[line_start:i].strip(), text[i:end]))
            i = end
        elif c in "\"'":
            quote = c * 3 if text.startswith(c * 3, i) else c
            j = i + len(quote)
            while j < n and not text.startswith(quote, j):
                if c == '"' and text[j] == "\\":
                    j += 1
                elif len(quote) == 1 and text[j] == "\n":
                    break
                j += 1
            j = min(n, j + len(quote))
            newlines = text.count("\n", i, j)
            if newlines:
                multiline.append((row, row + newlines))
                row += newlines
                line_start = text.rfind("\n", i, j) + 1
            i = j
        else:
            i += 1
    return comments, multiline


def _scan_jinja(text: str, opener: str = "{#", closer: str = "#}"):
    comments = []
    rows = _Rows(text)
    start = text.find(opener)
    while start >= 0:
        close = text.find(closer, start + len(opener))
        if close < 0:
            break  # an unclosed comment: nothing after it is a comment either
        end = close + len(closer)
        row = rows.row(start)
        col = start - rows.start(row)
        end_of_line = text.find("\n", end)
        after = text[end:len(text) if end_of_line < 0 else end_of_line]
        own = not text[start - col:start].strip() and not after.strip()
        comments.append((row, col, own, text[start:end]))
        rows.row(end)
        start = text.find(opener, end)
    return comments, []


def _scan_xml(text: str):
    """The comments of XML (POML) text, not the `<!--` inside CDATA, which is text."""
    blanked = _CDATA.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    return _scan_jinja(blanked, "<!--", "-->")


def apply_suppressions(
    diagnostics: Iterable[Diagnostic],
    read_text: Callable[[str], str | None],
    kind_of: Callable[[str], str | None] = file_kind,
) -> tuple[list[Diagnostic], dict[Suppression, set[str]]]:
    """Drop suppressed diagnostics.

    `read_text(filename)` returns a file's text or None (unreadable: nothing suppressed there).
    Returns the kept diagnostics, in their order, and the suppressions that suppressed something,
    each with the set of its selectors that matched (ALL for a code-less directive).
    """
    cache: dict[str, list[Suppression]] = {}
    used: dict[Suppression, set[str]] = {}
    kept: list[Diagnostic] = []
    for diagnostic in diagnostics:
        filename = diagnostic.span.filename
        if filename not in cache:
            text = read_text(filename)
            cache[filename] = [] if text is None else parse_suppressions(
                filename, text, kind_of(filename))
        hit = False
        for suppression in cache[filename]:
            selector = suppression.covers(diagnostic)
            if selector is not None:
                used.setdefault(suppression, set()).add(selector)
                hit = True
        if not hit:
            kept.append(diagnostic)
    return kept, used
