"""PEP 695 syntax (Python 3.12) rewritten for an older parser, every other token at its place.

A linter should read the code it is given whatever Python runs it. When the running Python is
older than 3.12 and rejects a file, `rewrite` offers a text of the same rows and columns that the
older parser may accept, where

- a type alias statement `type X[T] = value` (`type` a soft keyword at the start of a statement)
  becomes the assignment `X         = value`: the name moves to where `type` stood, the
  rest of its place and the type parameters become spaces, `=` and the value keep their columns;
- the type parameter list of a class or function (`class C[T]:`, `def f[T, *Ts, **P](x: T)`)
  becomes spaces (a list over several lines: spaces ended by a line continuation `\\`).

The text is read with `tokenize`, never searched as raw text: a string or a comment holding
`type X = 1` is left as it is. Only these constructs are rewritten; what else an older Python
lacks (PEP 701 f-strings such as `f"{d["k"]}"`, 3.12) stays a syntax error. The rewritten text is
for the `ast` tree only: the module's `source`, what fixes edit, stays the original.
"""
from __future__ import annotations

import io
import keyword
import tokenize

#: Tokens after which a new statement starts (at bracket depth 0).
_STATEMENT_START = {tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}


def rewrite(source: str) -> str | None:
    """`source` with its PEP 695 constructs rewritten (see the module), rows and columns kept;
    None when it holds none that can be rewritten, or cannot be tokenized."""
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline)
                  if t.type not in (tokenize.COMMENT, tokenize.NL)]
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None
    lines = source.splitlines(keepends=True)
    edits: list[tuple[tuple[int, int], tuple[int, int], str]] = []  # (start, end, same-width text)
    depth, start = 0, True
    for i, tok in enumerate(tokens):
        if tok.type == tokenize.OP and tok.string in "([{":
            depth += 1
        elif tok.type == tokenize.OP and tok.string in ")]}":
            depth = max(depth - 1, 0)
        at_start, start = start, depth == 0 and (
            tok.type in _STATEMENT_START or (tok.type == tokenize.OP and tok.string in (";", ":")))
        if tok.type != tokenize.NAME or i + 2 >= len(tokens):
            continue
        name, after = tokens[i + 1], tokens[i + 2]
        if name.type != tokenize.NAME or keyword.iskeyword(name.string) or name.start[0] != tok.start[0]:
            continue
        params = _brackets(tokens, i + 2) if after.type == tokenize.OP and after.string == "[" else None
        if tok.string in ("def", "class") and params is not None:
            edits.append((tokens[params[0]].start, tokens[params[1]].end, ""))
        elif tok.string == "type" and at_start:
            nxt = tokens[params[1] + 1] if params is not None and params[1] + 1 < len(tokens) else after
            if not (nxt.type == tokenize.OP and nxt.string == "="):
                continue
            width = name.end[1] - tok.start[1]
            edits.append((tok.start, name.end, name.string.ljust(width)))
            if params is not None:
                edits.append((tokens[params[0]].start, tokens[params[1]].end, ""))
    if not edits:
        return None
    for begin, end, text in reversed(edits):  # later first: earlier columns stay valid
        if not _apply(lines, begin, end, text):
            return None
    return "".join(lines)


def _brackets(tokens: list, i: int) -> tuple[int, int] | None:
    """(index of the `[` at `i`, index of the `]` that closes it), or None when unclosed."""
    depth = 0
    for j in range(i, len(tokens)):
        tok = tokens[j]
        if tok.type == tokenize.OP and tok.string in "([{":
            depth += 1
        elif tok.type == tokenize.OP and tok.string in ")]}":
            depth -= 1
            if depth == 0:
                return (i, j) if tok.string == "]" else None
    return None


def _apply(lines: list[str], begin: tuple[int, int], end: tuple[int, int], text: str) -> bool:
    """Replace the text from `begin` to `end` ((1-based row, 0-based column), end exclusive) in
    `lines` by `text` padded with spaces to the same width, on one row; over several rows by
    spaces, each row but the last ended by `\\` (a line continuation). False when a row in
    between is empty (no room for the `\\`)."""
    (r1, c1), (r2, c2) = begin, end
    if r1 == r2:
        line = lines[r1 - 1]
        lines[r1 - 1] = line[:c1] + text.ljust(c2 - c1) + line[c2:]
        return True
    for row in range(r1, r2):
        line = lines[row - 1]
        body = line.rstrip("\r\n")
        lo = c1 if row == r1 else 0
        if not body:
            return False
        blanked = body[:lo] + " " * (len(body) - lo)
        lines[row - 1] = blanked[:-1] + "\\" + line[len(body):]
    line = lines[r2 - 1]
    lines[r2 - 1] = " " * c2 + line[c2:]
    return True


def parse_tree(source: str, filename: str = "<unknown>"):
    """`ast.parse(source)`, or, when the running Python (before 3.12) rejects it, the tree of its
    `rewrite` (same rows and columns). Raises the SyntaxError of `source` when neither parses (and
    what `ast.parse` raises: ValueError, RecursionError, MemoryError)."""
    import ast
    import sys
    try:
        return ast.parse(source, filename=filename)
    except SyntaxError:
        text = rewrite(source) if sys.version_info < (3, 12) else None
        if text is None:
            raise
        try:
            return ast.parse(text, filename=filename)
        except SyntaxError:
            pass
        raise
