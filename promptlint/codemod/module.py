"""A Python file parsed with libcst for building fixes: its tree, positions and imports.

The analysis reads `ast` trees; libcst parses a file only here, when a fix is built for it, so
that edits come from CST nodes (ruff's model: a fix edits syntax, not text patterns). `load(path)` reads the text through
`promptlint.source.read_python` (unsaved overlays first, PEP 263 decoding, lone CR read as LF)
and keeps the parsed modules in a small cache keyed by (resolved path, sha256 of the text).

Positions are libcst's (`positions[node].start.line` 1-based, `.column` 0-based in characters);
`CstModule` also has what the fix builders need of a module: `code(node)`, `qualified_name(expr)`
through the file's imports, and a parent map.
"""
from __future__ import annotations

import ast
import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from .. import source as _source
from ..newer_syntax import parse_tree

#: Parsed modules kept at once (each holds a whole libcst tree and its positions).
CACHE_SIZE = 8
#: Texts larger than this are not parsed for fixes (characters).
MAX_CHARACTERS = _source.DEFAULT_MAX_BYTES
_STACK = 64 * 1024 * 1024  # bytes of stack for the thread that parses and resolves positions


class NotParsable(Exception):
    """A text libcst cannot parse (or that is too large or too deeply nested to try)."""


def digest(text: str) -> str:
    """The sha256 (hex) of a decoded text, as `Anchor.digest` states it."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


_FIELDS: dict[type, tuple[str, ...]] = {}


def iter_children(node: cst.CSTNode):
    """The child nodes of a libcst node in source order, read from its fields (libcst's own
    `children` rebuilds nothing either, but this avoids its per-call overhead)."""
    names = _FIELDS.get(type(node))
    if names is None:
        import dataclasses
        names = _FIELDS[type(node)] = tuple(f.name for f in dataclasses.fields(type(node)))
    for name in names:
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            yield value
        elif isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, cst.CSTNode):
                    yield item


def _dotted(expr) -> tuple[str, list[str]] | None:
    attrs: list[str] = []
    node = expr
    while isinstance(node, cst.Attribute):
        attrs.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    return node.value, attrs[::-1]


@dataclass(eq=False)
class CstModule:
    """One file parsed with libcst. `source` is the text the positions refer to; `imports` maps
    a local name to the dotted name it stands for (`dt` -> `datetime.datetime`; relative imports
    stay relative, with their leading dots)."""

    path: Path
    source: str
    tree: cst.Module
    positions: Any
    imports: dict[str, str] = field(default_factory=dict)
    digest: str = ""

    def code(self, node: cst.CSTNode) -> str:
        """Source text of a node, stripped."""
        return self.tree.code_for_node(node).strip()

    def qualified_name(self, expr) -> str | None:
        """The dotted name an expression stands for through the imports (`dt.now` ->
        `datetime.datetime.now`), the plain dotted text for unimported names, None otherwise."""
        split = _dotted(expr)
        if split is None:
            return None
        name, attrs = split
        return ".".join([self.imports.get(name, name), *attrs])

    def parents(self) -> dict:
        """Node -> parent for the whole tree, computed once."""
        cache = self.__dict__.get("_fix_parents")
        if cache is None or cache[0] is not self.tree:
            parents: dict = {}
            stack = [self.tree]
            while stack:
                node = stack.pop()
                for child in iter_children(node):
                    parents[child] = node
                    stack.append(child)
            cache = (self.tree, parents)
            self.__dict__["_fix_parents"] = cache
        return cache[1]


def _index_imports(tree: ast.Module) -> dict[str, str]:
    """Local name -> dotted name for the imports of a module (at any depth: a function-level
    `import json` names json as well), read from its `ast` tree (libcst's isinstance checks on
    its abstract node classes made this walk a third of a fix's parse). The statements are read
    last first, depth first: of two imports of one local name, the first one written names it
    (`import a.b` only when no `as` import names `a`)."""
    imports: dict[str, str] = {}
    stack: list = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    imports[alias.asname] = alias.name
                else:
                    head = alias.name.split(".")[0]
                    imports.setdefault(head, head)
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            for alias in node.names:
                if alias.name == "*":
                    continue
                local = alias.asname or alias.name
                imports[local] = f"{base}.{alias.name}" if base and not base.endswith(".") else base + alias.name
        elif isinstance(node, (ast.expr, ast.arguments, ast.keyword)):
            continue  # imports are statements
        else:
            stack.extend(ast.iter_child_nodes(node))
    return imports


def _focused(tree: ast.Module, text: str, rows: tuple[int, int] | None) -> str:
    """`text` with the lines of every top-level function and class blanked but the one holding
    rows `rows` (1-based, inclusive): the text libcst parses for a fix there. Rows, columns and
    line breaks stay those of `text`; what a builder reads outside the edited definition (the
    module's own statements: its imports and constants) stays. `text` itself when `rows` is None
    or no definition holds them."""
    if rows is None:
        return text
    lines = text.split("\n")  # (the reader made every line break a LF or a CRLF)
    blank = bytearray(len(lines) + 2)
    kept = False
    for stmt in tree.body:
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        first = min([stmt.lineno, *(d.lineno for d in stmt.decorator_list)])
        last = stmt.end_lineno or stmt.lineno
        if first <= rows[0] and rows[1] <= last:
            kept = True
            continue
        for row in range(first, last + 1):
            blank[row] = 1
    if not kept:
        return text
    return "\n".join("\r" if blank[i] and line.endswith("\r") else "" if blank[i] else line
                     for i, line in enumerate(lines, 1))


def _in_thread(work):
    """Run `work()` in a thread with a large stack (libcst's code generation and position
    resolution recurse as deep as the code nests) and return its result or raise its error."""
    result: list = []
    errors: list = []

    def run():
        try:
            result.append(work())
        except BaseException as exc:  # reported to the caller
            errors.append(exc)

    old = threading.stack_size()
    threading.stack_size(_STACK)
    try:
        thread = threading.Thread(target=run, name="promptlint-codemod")
        thread.start()
    finally:
        threading.stack_size(old)
    thread.join()
    if errors:
        raise errors[0]
    return result[0]


def parse(path: Path, text: str, text_digest: str | None = None,
          rows: tuple[int, int] | None = None) -> CstModule:
    """A CstModule for `text`; with `rows` (1-based, inclusive: where a fix edits), its tree holds
    only the top-level definition that holds them and the module's own statements (`_focused`),
    the positions and `source` still those of the whole text. Raises NotParsable for text
    Python's own parser rejects (libcst is only asked about code `ast` accepts, which bounds its
    nesting; PEP 695 syntax an older Python lacks is read by `newer_syntax.parse_tree`, libcst
    then parses the original text), text libcst rejects, and text over `MAX_CHARACTERS`."""
    if len(text) > MAX_CHARACTERS:
        raise NotParsable("file too large to build a fix")
    try:
        ast_tree = parse_tree(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise NotParsable(f"not valid Python: {exc}") from None
    parsed = _focused(ast_tree, text, rows)

    def work():
        tree = cst.parse_module(parsed)
        positions = MetadataWrapper(tree, unsafe_skip_copy=True).resolve(PositionProvider)
        return tree, positions

    try:
        tree, positions = _in_thread(work)
    except (cst.ParserSyntaxError, RecursionError, MemoryError, ValueError, TypeError) as exc:
        raise NotParsable(f"libcst cannot parse it: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
    return CstModule(Path(path), text, tree, positions, _index_imports(ast_tree), text_digest or digest(text))


class _Cache:
    """A small LRU of parsed modules keyed by (resolved path, text digest, rows parsed); thread-safe."""

    def __init__(self, size: int):
        self.size = size
        self.items: OrderedDict[tuple, CstModule] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key):
        with self.lock:
            module = self.items.get(key)
            if module is not None:
                self.items.move_to_end(key)
            return module

    def put(self, key, module: CstModule) -> None:
        with self.lock:
            self.items[key] = module
            self.items.move_to_end(key)
            while len(self.items) > self.size:
                self.items.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.items.clear()


_CACHE = _Cache(CACHE_SIZE)


def _key_path(path: Path) -> str:
    try:
        return str(Path(path).resolve())
    except (OSError, RuntimeError):
        return str(Path(path).absolute())


def read(path: Path) -> str:
    """The decoded text of a Python file as the analysis reads it. Raises SourceError."""
    return _source.read_python(Path(path))


def load(path: Path, text: str | None = None, rows: tuple[int, int] | None = None) -> CstModule:
    """The parsed module of the file at `path` (its current text, or `text` when given), from
    the cache when that text was parsed already; `rows`: only the top-level definition holding
    them is parsed (see `parse`). Raises `promptlint.source.SourceError` when the file cannot be
    read and NotParsable when it cannot be parsed."""
    if text is None:
        text = read(path)
    text_digest = digest(text)
    key_path = _key_path(path)
    if rows is not None:  # one parse per definition, however many fixes it holds
        rows = _definition_holding(key_path, text_digest, text, rows)
    key = (key_path, text_digest, rows)
    module = _CACHE.get(key)
    if module is None:
        module = parse(path, text, text_digest, rows)
        _CACHE.put(key, module)
    return module


#: (resolved path, text digest) -> the (first, last) rows of each top-level function and class.
_RANGES: OrderedDict = OrderedDict()


def _definition_holding(key_path: str, text_digest: str, text: str,
                        rows: tuple[int, int]) -> tuple[int, int] | None:
    """The (first, last) rows (1-based, decorators included) of the top-level function or class
    that holds `rows`, or None (none holds them, or the text does not parse: `parse` says why)."""
    key = (key_path, text_digest)
    ranges = _RANGES.get(key)
    if ranges is None:
        try:
            tree = parse_tree(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        ranges = [(min([n.lineno, *(d.lineno for d in n.decorator_list)]), n.end_lineno or n.lineno)
                  for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        with _CACHE.lock:  # (the language server builds fixes from several threads)
            _RANGES[key] = ranges
            while len(_RANGES) > 4 * CACHE_SIZE:
                _RANGES.popitem(last=False)
    return next(((a, b) for a, b in ranges if a <= rows[0] and rows[1] <= b), None)


def clear_cache() -> None:
    """Forget every parsed module."""
    _CACHE.clear()
    _RANGES.clear()
