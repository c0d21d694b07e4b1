"""The analysed tree: Python modules loaded lazily from disk by path or dotted name, and cached.

A value imported from another module of the tree is read from disk even when only one file was
passed (pre-commit passes only changed files). Every file read here is recorded in `read`, so a
persistent cache can tell which files a result depends on.
"""
from __future__ import annotations

import ast
import os
import re
from pathlib import Path

from .. import source
from .module import Module, ParseError, load, package_of

MAX_TREE_FILES = 20_000  # a folder with more Python files is not a package tree (a home, a disk)
#: Characters of source whose parsed modules are kept; past it the cache is emptied (a tree takes
#: about 40 times the memory of its source, so this bounds a process's memory on any tree).
MAX_CACHED_CHARS = 3_000_000
_SKIP = ("node_modules", "__pycache__", "venv", "site-packages")


class Project:
    """All modules seen in one run, parsed on first use and cached by resolved path.

    `roots` are directories searched for dotted module names, in order (the checked folders); the
    directory above each analysed file's top package is added as files are loaded, and the
    current folder is searched last (an application without `__init__.py` files, run from its
    root, imports its modules from there).
    """

    def __init__(self, roots: list[Path] | None = None):
        self.roots: list[Path] = [r.resolve() for r in (roots or [])]
        self.fallback = Path.cwd().resolve()  # apps without __init__.py run from their root
        self._modules: dict[Path, Module | ParseError] = {}
        self._files: dict[Path, list[Path]] = {}
        self._texts: dict[Path, str | None] = {}
        self._found: dict[str, Path | None] = {}
        self.cached_chars = 0
        self.read: set[Path] = set()

    @property
    def full(self) -> bool:
        """True when the cached modules hold more than `MAX_CACHED_CHARS` of source."""
        return self.cached_chars > MAX_CACHED_CHARS

    def clear(self) -> None:
        """Forget every parsed module and read text (the file lookups stay)."""
        self._modules.clear()
        self._texts.clear()
        self.cached_chars = 0

    def load(self, path: Path, text: str | None = None) -> Module:
        """The parsed module at `path` (`text`: its source, when already read). Raises ParseError
        (cached) when it cannot be read or parsed."""
        key = path.resolve()
        cached = self._modules.get(key)
        if cached is None:
            try:
                cached = self._parse(key, text)
            except ParseError as exc:
                cached = exc
            else:
                self.cached_chars += len(cached.source)
            self._modules[key] = cached
        if isinstance(cached, ParseError):
            raise cached
        return cached

    def _parse(self, path: Path, text: str | None) -> Module:
        self.read.add(path)
        if text is None:
            try:
                text = source.read_python(path)
            except source.SourceError as exc:
                raise ParseError(str(exc), exc.row, exc.column, too_large=exc.too_large) from None
        module = load(path, text)
        _, root = package_of(path)
        if root not in self.roots:
            self.roots.append(root)
            self._found = {k: v for k, v in self._found.items() if v is not None}  # a new root may hold them
        return module

    def find(self, dotted: str) -> Module | None:
        """The module of the analysed tree with this dotted name, or None (also when it fails to
        parse: the caller treats its values as unknown)."""
        if dotted not in self._found:
            self._found[dotted] = self._locate(dotted)
        path = self._found[dotted]
        if path is None:
            return None
        try:
            return self.load(path)
        except ParseError:
            return None

    def _locate(self, dotted: str) -> Path | None:
        rel = Path(*dotted.split("."))
        for root in [*self.roots, self.fallback]:
            for candidate in (root / rel.with_suffix(".py"), root / rel / "__init__.py"):
                if candidate.is_file():
                    return candidate
        return None

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

    def definitions(self, name: str, near: Path) -> list[tuple[Module, ast.ClassDef | None, ast.expr]]:
        """Every module-level or class-level assignment of `name` in the Python files of the
        package tree that holds `near`: (module, class or None, value node). The files are found
        by a text search first, so only those that assign the name are parsed."""
        pattern = re.compile(rf"^[ \t]*{re.escape(name)}\s*(:[^=\n]*)?=", re.M)
        out = []
        _, root = package_of(near.resolve())
        for path in self._python_files(root):
            text = self._text(path)
            if text is None or name not in text or not pattern.search(text):
                continue
            try:
                module = self.load(path, text)
            except ParseError:
                continue
            for node in module.assigns.get(name, []):
                out.append((module, None, node))
            for cls in module.classes.values():
                for stmt in cls.body:
                    targets, value = [], None
                    if isinstance(stmt, ast.Assign):
                        targets, value = stmt.targets, stmt.value
                    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                        targets, value = [stmt.target], stmt.value
                    if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                        out.append((module, cls, value))
        return out

    def _python_files(self, root: Path) -> list[Path]:
        """The .py files of one package tree (cached)."""
        if root not in self._files:
            files: list[Path] = []
            for dirpath, dirnames, filenames in os.walk(root, onerror=lambda exc: None):
                dirnames[:] = [d for d in dirnames if not d.startswith(".") and d not in _SKIP
                               and not (Path(dirpath) / d / "pyvenv.cfg").exists()]
                files.extend(Path(dirpath) / f for f in filenames if f.endswith(".py"))
                if len(files) > MAX_TREE_FILES:
                    break
            self._files[root] = sorted(files)
        return self._files[root]

    def _text(self, path: Path) -> str | None:
        if path not in self._texts:
            self.read.add(path)
            try:
                self._texts[path] = source.read_python(path)
                self.cached_chars += len(self._texts[path])
            except source.SourceError:
                self._texts[path] = None
        return self._texts[path]
