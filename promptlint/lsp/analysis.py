"""One analysis run of the language server: check the open documents as `promptlint check` would.

A run checks every open document at once (unsaved buffers as `api.check` overlays, never written
to disk), so a change in one buffer refreshes the findings it causes in another (a constant
imported from a module, a template a Python call renders). Documents are grouped by the config
file that governs them (`[tool.promptlint]` in the nearest pyproject.toml or promptlint.toml) and
each group is checked with its settings. An open template or prompt file is checked together with
the Python files of its project that mention its name (`TextCallers`), so its findings are those
of the call that renders it, as `check` on the project reports them.

Where a persistent analysis cache would plug in: `checker` (any callable with `api.check`'s
signature: a cached check re-analyses only what changed) and `callers` (a cache that records
which files render which template answers `callers_of` exactly). Nothing here depends on pygls.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from ..config import ConfigError, Settings, find_config, load_settings
from ..model import Diagnostic, Report

CONFIG_NAMES = ("pyproject.toml", "promptlint.toml")


@dataclass
class Document:
    """An open buffer: its file (resolved absolute path), text and LSP version."""

    path: Path
    text: str
    version: int | None = None


@dataclass
class Analysis:
    """The result of one run.

    `diagnostics` maps every file with findings (resolved absolute paths; open or not) to them, in
    `check`'s order; `documents` are the open documents as they were analysed (their text and
    version, which the findings' positions refer to); `errors` are one-line problems of the run
    (a broken config file, an internal error), shown to the user, never raised.
    """

    diagnostics: dict[Path, list[Diagnostic]] = field(default_factory=dict)
    documents: dict[Path, Document] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def absolute(filename: str) -> Path:
    """The resolved absolute path of a `Span.filename` (relative names are relative to the
    current directory, as `check` writes them)."""
    path = Path(filename)
    return (path if path.is_absolute() else Path.cwd() / path).resolve()


def is_checked(path: Path) -> bool:
    """Whether `check` looks at this kind of file (Python, template, prompt or config file)."""
    from ..discovery import file_kind
    return file_kind(path) is not None


class SettingsCache:
    """Settings per config file, re-read when the file changes (by mtime and size)."""

    def __init__(self):
        self._by_config: dict[Path | None, tuple[tuple, Settings]] = {}

    def for_path(self, path: Path, fallback_root: Path | None = None) -> tuple[Path | None, Settings, str | None]:
        """(config file or None, its settings, a one-line error or None). A broken config file
        gives default settings and the error, as promptlint cannot read the user's intent."""
        try:
            config = find_config([path])
        except ConfigError as exc:
            return None, Settings(root=fallback_root or path.parent), str(exc)
        stamp = _stamp(config)
        cached = self._by_config.get(config)
        if cached is not None and cached[0] == stamp:
            return config, cached[1], None
        try:
            settings = load_settings(config) if config is not None else Settings(root=fallback_root or path.parent)
        except ConfigError as exc:
            return config, Settings(root=config.parent if config else path.parent), str(exc)
        self._by_config[config] = (stamp, settings)
        return config, settings, None

    def forget(self) -> None:
        self._by_config.clear()


def _stamp(path: Path | None) -> tuple:
    if path is None:
        return ()
    try:
        st = path.stat()
    except OSError:
        return ()
    return st.st_mtime_ns, st.st_size


class TextCallers:
    """The Python files of a project that mention a file by name (`"system.md.j2"`,
    `with_name("policy.md")`): the candidates that render or read it. Which of them really use it
    is the analysis' business; this only chooses what to check with it. Projects with more than
    `max_files` Python files are not scanned (the run then checks the template alone)."""

    def __init__(self, max_files: int = 2000):
        self.max_files = max_files
        self._files: dict[Path, list[Path]] = {}
        self._texts: dict[Path, tuple[tuple, str]] = {}

    def callers_of(self, path: Path, root: Path, settings: Settings,
                   overlays: dict[Path, str]) -> list[Path]:
        name = path.name
        out = []
        for candidate in self._python_files(root, settings):
            text = overlays.get(candidate)
            if text is None:
                text = self._text(candidate)
            if name in text:
                out.append(candidate)
        return out

    def _python_files(self, root: Path, settings: Settings) -> list[Path]:
        if root not in self._files:
            from ..discovery import discover
            found: list[Path] = []
            try:
                for f in discover([root]):
                    if f.suffix == ".py" and not settings.is_excluded(f):
                        found.append(f.resolve())
                        if len(found) > self.max_files:
                            found = []
                            break
            except OSError:
                found = []
            self._files[root] = found
        return self._files[root]

    def _text(self, path: Path) -> str:
        stamp = _stamp(path)
        cached = self._texts.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        self._texts[path] = (stamp, text)
        return text

    def forget(self, created_or_deleted: bool) -> None:
        """Drop cached texts; with `created_or_deleted`, also the file lists."""
        if created_or_deleted:
            self._files.clear()


Checker = Callable[..., Report]


class Analyzer:
    """Runs `check` over the open documents; see the module docstring.

    `checker` is `promptlint.api.check` unless given; `folders` are the workspace folders (the
    fallback root of files without a config file).
    """

    def __init__(self, checker: Checker | None = None, folders: Iterable[Path] = ()):
        if checker is None:
            from ..api import check as checker
        self.checker = checker
        self.folders = [Path(f).resolve() for f in folders]
        self.settings = SettingsCache()
        self.callers = TextCallers()

    def folder_of(self, path: Path) -> Path:
        inside = [f for f in self.folders if path == f or f in path.parents]
        return max(inside, key=lambda f: len(f.parts)) if inside else path.parent

    def file_changed(self, path: Path, created_or_deleted: bool = False) -> None:
        """A file changed on disk (saved, created, deleted): config files are re-read on the next
        run anyway (by mtime); new or deleted files change the project's file lists."""
        if path.name in CONFIG_NAMES:
            self.settings.forget()
        self.callers.forget(created_or_deleted)

    def analyse(self, documents: Iterable[Document]) -> Analysis:
        """Check the open documents; never raises (problems go to `Analysis.errors`)."""
        docs = {d.path: d for d in documents}
        analysis = Analysis(documents=docs)
        overlays = {p: d.text for p, d in docs.items()}
        groups: dict[Path | None, tuple[Settings, list[Path]]] = {}
        for path in docs:
            if not is_checked(path) or not path.is_file():  # new buffers are checked once saved
                continue
            config, settings, error = self.settings.for_path(path, self.folder_of(path))
            if error and error not in analysis.errors:
                analysis.errors.append(error)
            groups.setdefault(config, (settings, []))[1].append(path)
        for settings, paths in groups.values():
            context = []
            for path in paths:
                if path.suffix != ".py":
                    root = settings.root if settings.config_path else self.folder_of(path)
                    context += self.callers.callers_of(path, root, settings, overlays)
            targets = list(dict.fromkeys([*paths, *context]))
            try:
                report = self.checker(targets, settings, jobs=1, overlays=overlays)
            except Exception as exc:  # a bug or a bad setting must not stop the server
                analysis.errors.append(f"promptlint: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
                continue
            analysis.errors.extend(e for e in report.errors if e not in analysis.errors)
            for d in report.diagnostics:
                analysis.diagnostics.setdefault(absolute(d.span.filename), []).append(d)
        return analysis

