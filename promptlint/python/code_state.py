"""The state of a Python module's code without its layout: early cutoff for the persistent cache.

A module another file's analysis read is a dependency of that analysis (`promptlint.reads`),
recorded by the digest of its bytes. An edit that only adds or removes blank lines and comment
lines between its top-level statements (a header comment, a blank line between two functions)
changes those bytes, but not the module's code: each top-level statement keeps its text, only
its rows move. `code_digest` is the digest of that code: the text of each top-level statement
(from its first decorator to its last row, whole rows, comments on them included), in order. Two
texts with the same code digest parse to the same trees but for the rows of each top-level
statement, moved together: an analysis of another file that read the module sees the same
values, names and texts, and differs only in the rows of the module it reports, which the cache
refuses to keep when the result names the module (`promptlint.cache`). Edits inside a statement
(a comment in a function's body) change the digest: a comment line there is part of the text of
the statement (`Module.code` of a node may hold it).

A code state is "c:BYTES:CODE:CHARS" (`promptlint.reads.CODE`): BYTES the digest of the file's
bytes when read, CODE the code digest of its decoded text, CHARS the characters of that text
(`Project` counts them against `MAX_ANALYSIS_CHARS`, so the cache checks how much they grew).
"""
from __future__ import annotations

import ast
import hashlib

CODE = "c:"


def code_digest(tree: ast.Module, source: str, starts: list[int]) -> str:
    """sha256 (hex, 40 characters) of the rows of each top-level statement of `tree`, parsed
    from `source` (`starts`: the character offset of each row, `Module.line_starts`)."""
    h = hashlib.sha256()
    end = len(source)
    rows = len(starts)
    for stmt in tree.body:
        first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])
        last = getattr(stmt, "end_lineno", None) or stmt.lineno
        a = starts[min(first, rows) - 1]
        b = starts[last] if last < rows else end
        h.update(source[a:b].encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()[:40]


def code_state(state: str, module) -> str:
    """The code state of a module read with bytes digest `state` (a `promptlint.python.module.Module`)."""
    return f"{CODE}{state}:{code_digest(module.tree, module.source, module.line_starts)}:{len(module.source)}"


def split(recorded: str) -> tuple[str, str, int] | None:
    """(bytes digest, code digest, characters) of a code state, or None when it is not one."""
    parts = recorded[len(CODE):].split(":") if recorded.startswith(CODE) else []
    if len(parts) != 3 or not parts[2].isdigit():
        return None
    return parts[0], parts[1], int(parts[2])


def current(key: str) -> tuple[str, int] | None:
    """(code digest, characters) of the Python file at path `key` now (its unsaved text first),
    or None when it cannot be read or parsed."""
    from pathlib import Path
    from .. import source
    from .parsing import ParseError, parse
    try:
        text = source.read_python(Path(key))
        tree = parse(text, key)
    except (source.SourceError, ParseError):
        return None
    starts = [0]
    i = text.find("\n")
    while i != -1:
        starts.append(i + 1)
        i = text.find("\n", i + 1)
    return code_digest(tree, text, starts), len(text)
