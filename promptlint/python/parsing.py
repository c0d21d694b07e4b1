"""Parsing one Python source text into its `ast` tree: `parse` (with the syntax of newer Pythons
rewritten for an older one, `newer_syntax.py`, and messages that say why a file is not Python),
`syntax_error` (the fast check of a file that is not analysed), `ParseError`."""
from __future__ import annotations

import ast
import re
import sys

#: Recursion the parser and the walkers may use; deeper code is "too deeply nested to analyse".
RECURSION_LIMIT = 6000


class ParseError(Exception):
    """A file could not be read or parsed; `row`/`column` are 1-based where known; `too_large`
    marks a file skipped for its size (an info finding, not an error); `limit` marks valid code
    beyond what the analysis can handle (too deeply nested): an error of the run, not of the code."""

    def __init__(self, message: str, row: int = 1, column: int = 1, too_large: bool = False,
                 limit: bool = False):
        super().__init__(message)
        self.row, self.column, self.too_large, self.limit = row, column, too_large, limit

#: Jinja statements or expressions written where Python code would be: `{%- if x %}`, `{{ cookiecutter.name }}`.
_JINJA_MARKUP = re.compile(r"\{%-?\s*(if|for|set|raw|block|extends|include|macro|endif|endfor)\b|\{\{\s*[A-Za-z_][\w.]*\s*(\|[^}]*)?\}\}")


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """The `ast` tree of a source text. Raises ParseError: a syntax error at Python's own position,
    or "too deeply nested to analyse" when the parser runs out of recursion or memory."""
    old = sys.getrecursionlimit()
    if old < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)
    try:
        return ast.parse(source, filename=filename)
    except SyntaxError as err:
        newer = _parse_newer(source, filename, err)
        if isinstance(newer, ast.Module):
            return newer
        err = newer or err
        msg = err.msg if getattr(err, "msg", None) else str(err)
        if "too many nested" in msg:
            raise ParseError(f"too deeply nested to analyse ({msg})", err.lineno or 1, err.offset or 1,
                             limit=True) from None
        if sys.version_info < (3, 12) and msg.startswith("f-string"):
            msg += (f" (Python 3.12 accepts more f-strings, PEP 701; this is Python {sys.version_info[0]}."
                    f"{sys.version_info[1]}: if the code needs 3.12, run promptlint with Python 3.12 or newer)")
        elif newer is not None:
            msg += (f" (Python {sys.version_info[0]}.{sys.version_info[1]}'s parser, this file's PEP 695 type "
                    "parameters and `type` statements read as Python 3.12 reads them)")
        elif _JINJA_MARKUP.search(source):
            msg += (" (the file holds Jinja markup, `{{ ... }}` or `{% ... %}`: a template that renders Python, "
                    "not Python; exclude it with `extend-exclude`)")
        raise ParseError(f"syntax error: {msg}", err.lineno or 1, err.offset or 1) from None
    except (RecursionError, MemoryError):
        raise ParseError("too deeply nested to analyse", limit=True) from None
    except ValueError as err:  # null bytes
        raise ParseError(f"cannot parse: {err}") from None
    finally:
        if old < RECURSION_LIMIT:
            sys.setrecursionlimit(old)


def _parse_newer(source: str, filename: str, err: SyntaxError) -> ast.Module | SyntaxError | None:
    """When the running Python (before 3.12) rejects `source`: the tree of its PEP 695 syntax
    rewritten in place (`newer_syntax.rewrite`: rows and columns kept), or the syntax error of
    that rewritten text (at its place in `source`: what else this Python cannot read), or None
    when there is nothing to rewrite."""
    if sys.version_info >= (3, 12) or "too many nested" in (err.msg or ""):
        return None
    from ..newer_syntax import rewrite
    text = rewrite(source)
    if text is None:
        return None
    try:
        return ast.parse(text, filename=filename)
    except SyntaxError as again:
        return again
    except (RecursionError, MemoryError, ValueError):  # (the caller is handling `err`: reported instead)
        return None


def syntax_error(source: str, filename: str = "<unknown>") -> ParseError | None:
    """The syntax error of a file that is not analysed (no prompt can be in it), or None: exactly
    what `parse` rejects, found faster in the common case. `compile()` to bytecode parses into C
    structures only (`ast.parse` builds a Python object per node, which the garbage collector then
    walks): about a fifth less CPU (1.5 ms per file on the corpus' 2,104 files without a prompt,
    10 MB). Only when it fails is `parse` asked, so an error only the bytecode compiler sees (`return` outside a
    function) is none here either, as in an analysed file. The parser's own limits (too deeply
    nested) are None too: nothing in the file is analysed. Compiler warnings are silenced.
    The fast test is `symtable.symtable`: the same parser and the scopes of the bytecode compiler
    without its code generation (a third less CPU than `compile()` on the corpus' files); text it
    accepts the parser accepts, so `parse` accepts it too, and what it rejects `parse` judges."""
    import symtable
    import warnings
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            symtable.symtable(source, filename, "exec")
        return None
    except (SyntaxError, ValueError):
        pass
    except (RecursionError, MemoryError, OverflowError):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parse(source, filename)
    except ParseError as exc:
        return None if exc.limit else exc
    return None
