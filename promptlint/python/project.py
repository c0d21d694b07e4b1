"""Parsed Python modules of the analysed tree, loaded lazily from disk and cached.

A `Module` is one parsed file: its libcst tree, positions, imports and top-level definitions.
`Project` finds and parses modules by path or dotted name, so a value imported from another
module of the tree is read from disk even when only one file was passed (pre-commit passes only
changed files).
"""
from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..model import Position, Span
from .. import source as _source


class ParseError(Exception):
    """A file could not be read or parsed; `row`/`column` are 1-based where known."""

    def __init__(self, message: str, row: int = 1, column: int = 1):
        super().__init__(message)
        self.row, self.column = row, column


def display_name(path: Path) -> str:
    """The path relative to the current directory when it is under it, else absolute (posix)."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.resolve().as_posix()


#: Unsaved texts that stand in for files (resolved path -> text): the same dict as
#: `promptlint.source.OVERLAY`, read by `read_source` and `overlay_text`.
OVERLAY: dict[Path, str] = _source.OVERLAY


def overlay_text(path: Path) -> str | None:
    """The unsaved text standing in for `path` during a fix loop, or None."""
    return OVERLAY.get(Path(path).resolve()) if OVERLAY else None


def read_source(path: Path) -> str:
    """The text of a UTF-8 file. Raises ParseError for unreadable, binary or non-UTF-8 files."""
    if (text := overlay_text(path)) is not None:
        return text
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ParseError(f"cannot read file: {exc.strerror or exc}") from exc
    if b"\0" in data[:8192]:
        raise ParseError("binary file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        prefix = data[: exc.start]
        raise ParseError(f"not valid UTF-8 (byte {exc.start})", prefix.count(b"\n") + 1) from exc


def dotted_parts(expr: cst.BaseExpression) -> tuple[str, list[str]] | None:
    """`a.b.c` -> ("a", ["b", "c"]); None when the expression is not a dotted name."""
    attrs: list[str] = []
    node = expr
    while isinstance(node, cst.Attribute):
        attrs.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    return node.value, attrs[::-1]


def _resolve_positions(tree: cst.Module):
    """PositionProvider for a module, computed in a thread of its own: positions are asked for
    deep inside the evaluator's recursion, and libcst's code generation recurses as deep as the
    code nests, so a fresh stack keeps the two from adding up."""
    result: list = []
    errors: list = []

    def work():
        try:
            result.append(MetadataWrapper(tree, unsafe_skip_copy=True).resolve(PositionProvider))
        except BaseException as exc:  # pragma: no cover - reported to the caller
            errors.append(exc)

    old = threading.stack_size()
    threading.stack_size(64 * 1024 * 1024)
    try:
        thread = threading.Thread(target=work)
        thread.start()
    finally:
        threading.stack_size(old)
    thread.join()
    if errors:
        raise errors[0]
    return result[0]


def syntax_error(source: str, path: Path, exc: Exception | None = None) -> ParseError:
    """A ParseError placed where Python's own parser puts the error (libcst's positions are
    off for tokenizer errors); falls back to libcst's position and message."""
    import ast
    try:
        ast.parse(source, filename=str(path))
    except SyntaxError as err:
        return ParseError(f"syntax error: {err.msg}", err.lineno or 1, err.offset or 1)
    except (ValueError, RecursionError, MemoryError):  # pragma: no cover - null bytes, deep nesting
        pass
    if isinstance(exc, cst.ParserSyntaxError):
        return ParseError(f"syntax error: {exc.message}", exc.raw_line, exc.raw_column + 1)
    return ParseError(f"syntax error: {exc}")


def check_syntax(source: str, path: Path) -> ParseError | None:
    """A cheap syntax check for files not analysed for prompts: Python's parser first (fast),
    libcst to confirm (it knows newer syntax than the running Python)."""
    import ast
    try:
        ast.parse(source, filename=str(path))
        return None
    except SyntaxError:
        pass
    except (ValueError, RecursionError, MemoryError):  # pragma: no cover
        return None
    try:
        cst.parse_module(source)
        return None
    except cst.ParserSyntaxError as exc:
        return syntax_error(source, path, exc)
    except Exception:  # pragma: no cover
        return None


@dataclass
class Module:
    """One parsed Python file.

    `imports` maps a local name to the dotted name it stands for (`dt` -> `datetime.datetime`,
    `np` -> `numpy`, relative imports made absolute when the package is known). `functions` and
    `classes` hold the top-level definitions by name; `assigns` the top-level assignments
    (name -> list of assigned value nodes, in source order).
    """

    path: Path
    filename: str
    dotted: str | None
    source: str
    tree: cst.Module
    _positions: Any = field(repr=False, default=None)
    imports: dict[str, str] = field(default_factory=dict)
    functions: dict[str, cst.FunctionDef] = field(default_factory=dict)
    classes: dict[str, cst.ClassDef] = field(default_factory=dict)
    assigns: dict[str, list[cst.BaseExpression]] = field(default_factory=dict)

    @property
    def positions(self):
        """libcst CodeRange of every node, computed on first use (it is the slow part of a parse)."""
        if self._positions is None:
            self._positions = _resolve_positions(self.tree)
        return self._positions

    def span(self, node: cst.CSTNode) -> Span:
        """The node's span (1-based rows and columns); row 1 col 1 when unknown."""
        rng = self.positions.get(node)
        if rng is None:
            return Span(self.filename, Position(1, 1), Position(1, 1))
        return Span(self.filename, Position(rng.start.line, rng.start.column + 1),
                    Position(rng.end.line, rng.end.column + 1))

    def code(self, node: cst.CSTNode) -> str:
        """Source text of a node, on one line when short."""
        return self.tree.code_for_node(node).strip()

    def qualified_name(self, expr: cst.BaseExpression) -> str | None:
        """The dotted name an expression stands for through the imports (`dt.now` ->
        `datetime.datetime.now`), the plain dotted text for unimported names, None otherwise."""
        split = dotted_parts(expr)
        if split is None:
            return None
        name, attrs = split
        return ".".join([self.imports.get(name, name), *attrs])


def _dotted_for(path: Path) -> tuple[str | None, Path]:
    """The module's dotted name and the directory its top package lives in."""
    parts = [path.stem] if path.stem != "__init__" else []
    folder = path.parent
    while (folder / "__init__.py").exists() and folder.parent != folder:
        parts.insert(0, folder.name)
        folder = folder.parent
    return (".".join(parts) or None), folder


def _index(module: Module, package: str) -> None:
    """Fill the module's top-level definitions and imports (also inside top-level `if` / `try`
    blocks such as `if TYPE_CHECKING:`) without walking the whole tree."""
    stack = list(module.tree.body)
    while stack:
        stmt = stack.pop(0)
        if isinstance(stmt, cst.FunctionDef):
            module.functions[stmt.name.value] = stmt
        elif isinstance(stmt, cst.ClassDef):
            module.classes[stmt.name.value] = stmt
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                _index_small(module, small, package)
        elif isinstance(stmt, cst.If):
            stack.extend(stmt.body.body)
            orelse = stmt.orelse
            while orelse is not None:
                if isinstance(orelse, cst.If):
                    stack.extend(orelse.body.body)
                    orelse = orelse.orelse
                else:
                    stack.extend(orelse.body.body)
                    orelse = None
        elif isinstance(stmt, (cst.Try, getattr(cst, "TryStar", cst.Try))):
            stack.extend(stmt.body.body)
            for handler in stmt.handlers:
                stack.extend(handler.body.body)


def _index_small(module: Module, node, package: str) -> None:
    if isinstance(node, cst.Assign):
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                module.assigns.setdefault(target.target.value, []).append(node.value)
    elif isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name) and node.value is not None:
        module.assigns.setdefault(node.target.value, []).append(node.value)
    elif isinstance(node, cst.Import):
        for alias in node.names:
            full = module.tree.code_for_node(alias.name)
            if alias.asname and isinstance(alias.asname.name, cst.Name):
                module.imports[alias.asname.name.value] = full
            else:
                head = full.split(".")[0]
                module.imports.setdefault(head, head)
    elif isinstance(node, cst.ImportFrom):
        base = module.tree.code_for_node(node.module) if node.module else ""
        if node.relative:
            levels = len(node.relative)
            pkg = package.split(".") if package else []
            pkg = pkg[: len(pkg) - (levels - 1)] if levels > 1 else pkg
            base = ".".join([*pkg, base] if base else pkg)
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            name = module.tree.code_for_node(alias.name)
            local = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else name
            module.imports[local] = f"{base}.{name}" if base else name


class Project:
    """All modules seen in one run, parsed on first use and cached by resolved path.

    `roots` are directories searched for dotted module names, in order; the directory above each
    analysed file's top package is added as files are loaded.
    """

    def __init__(self, roots: list[Path] | None = None):
        self.roots: list[Path] = [r.resolve() for r in (roots or [])]
        self._modules: dict[Path, Module | ParseError] = {}

    def load(self, path: Path) -> Module:
        """The parsed module at `path`. Raises ParseError (cached) when it cannot be parsed."""
        key = path.resolve()
        cached = self._modules.get(key)
        if cached is None:
            try:
                cached = self._parse(key)
            except ParseError as exc:
                cached = exc
            self._modules[key] = cached
        if isinstance(cached, ParseError):
            raise cached
        return cached

    def _parse(self, path: Path) -> Module:
        source = read_source(path)
        try:
            tree = cst.parse_module(source)
        except cst.ParserSyntaxError as exc:
            raise syntax_error(source, path, exc) from exc
        except (RecursionError, ValueError) as exc:  # pragma: no cover - pathological input
            raise ParseError(f"cannot parse: {exc}") from exc
        dotted, root = _dotted_for(path)
        if root not in self.roots:
            self.roots.append(root)
        module = Module(path=path, filename=display_name(path), dotted=dotted, source=source,
                        tree=tree)
        package = dotted if path.stem == "__init__" else (dotted.rpartition(".")[0] if dotted else "")
        _index(module, package or "")
        return module

    def find(self, dotted: str) -> Module | None:
        """The module of the analysed tree with this dotted name, or None (also when it fails to
        parse: the caller treats its values as unknown)."""
        rel = Path(*dotted.split("."))
        for root in self.roots:
            for candidate in (root / rel.with_suffix(".py"), root / rel / "__init__.py"):
                if candidate.is_file():
                    try:
                        return self.load(candidate)
                    except ParseError:
                        return None
        return None

    def definitions(self, name: str, near: Path) -> list[tuple[Module, cst.ClassDef | None, cst.BaseExpression]]:
        """Every module-level or class-level assignment of `name` in the Python files of the
        package tree that holds `near`: (module, class or None, value node). The files are found
        by a text search first, so only those that assign the name are parsed."""
        pattern = re.compile(rf"^[ \t]*{re.escape(name)}\s*(:[^=\n]*)?=", re.M)
        out = []
        _, root = _dotted_for(near.resolve())
        for path in self._python_files(root):
            text = self._text(path)
            if text is None:
                continue
            if not pattern.search(text):
                continue
            try:
                module = self.load(path)
            except ParseError:
                continue
            for node in module.assigns.get(name, []):
                out.append((module, None, node))
            for cls in module.classes.values():
                for stmt in cls.body.body:
                    if isinstance(stmt, cst.SimpleStatementLine):
                        for small in stmt.body:
                            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else (
                                [small.target] if isinstance(small, cst.AnnAssign) and small.value is not None else [])
                            if any(isinstance(t, cst.Name) and t.value == name for t in targets):
                                out.append((module, cls, small.value))
        return out

    def _python_files(self, root: Path) -> list[Path]:
        """The .py files of one package tree (cached)."""
        cache = self.__dict__.setdefault("_files", {})
        if root not in cache:
            files: list[Path] = []
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames[:] = [d for d in dirnames if not d.startswith(".") and d not in ("node_modules", "__pycache__", "venv")
                               and not (Path(dirpath) / d / "pyvenv.cfg").exists()]
                files.extend(Path(dirpath) / f for f in filenames if f.endswith(".py"))
                if len(files) > 20000:  # not a package tree: a home folder or a whole disk
                    break
            cache[root] = sorted(files)
        return cache[root]

    def _text(self, path: Path) -> str | None:
        cache = self.__dict__.setdefault("_texts", {})
        if path not in cache:
            try:
                cache[path] = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                cache[path] = None
        return cache[path]

    def resolve_symbol(self, dotted: str) -> tuple[Module, str] | None:
        """Split `pkg.mod.NAME` into the module of the tree that defines it and the name."""
        head, _, name = dotted.rpartition(".")
        while head:
            module = self.find(head)
            if module is not None:
                return module, name
            head, _, rest = head.rpartition(".")
            name = f"{rest}.{name}"
        return None


_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        import dataclasses
        names = tuple(f.name for f in dataclasses.fields(cls))
        _FIELDS[cls] = names
    return names


def iter_children(node: cst.CSTNode):
    """The child nodes of a libcst node, in source order, read from its fields (libcst's own
    `children` and visitors rebuild every node, which dominates the cost of a run)."""
    for name in _child_fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            yield value
        elif isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, cst.CSTNode):
                    yield item


def walk(tree: cst.CSTNode, visitor) -> None:
    """Call `visitor.visit_<Type>(node)` before and `visitor.leave_<Type>(node)` after each
    node's children, like a libcst CSTVisitor (a visit method returning False skips the
    children), without rebuilding nodes."""
    cache: dict[type, tuple] = {}
    stack: list = [(tree, False)]
    while stack:
        node, leaving = stack.pop()
        cls = type(node)
        hooks = cache.get(cls)
        if hooks is None:
            hooks = cache[cls] = (getattr(visitor, "visit_" + cls.__name__, None),
                                  getattr(visitor, "leave_" + cls.__name__, None))
        if leaving:
            hooks[1](node)
            continue
        if hooks[0] is not None and hooks[0](node) is False:
            continue
        if hooks[1] is not None:
            stack.append((node, True))
        stack.extend((child, False) for child in reversed(list(iter_children(node))))
