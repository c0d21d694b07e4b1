"""`promptlint fix`: run the fix engine (`promptlint.fix`) over the files of a check.

One full check finds the diagnostics of every file; each file with an applicable fix then goes
through `fix.fix_file`: its first pass uses those diagnostics, later passes re-lint the unsaved
text of that file alone (through `project.OVERLAY`, so imports, suppressions and templates are
read as in a normal run). Nothing is written when `write` is false (`--diff`).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from .config import Settings
from .fix import FixResult, fix_file, hidden_unsafe, is_applicable, unified_diff, write_atomic
from .model import Diagnostic, Report


@dataclass
class FileFix:
    """One file the fixer worked on: its display name, path and `FixResult`; `written` when the
    new text was saved."""

    filename: str
    path: Path
    result: FixResult
    written: bool = False

    @property
    def diff(self) -> str:
        return unified_diff(self.filename, self.result.original, self.result.new_text)


@dataclass
class FixRun:
    """The outcome of `fix_paths`: `report` holds the diagnostics that remain in every file;
    `files` the files that had applicable fixes; `errors` one line per file whose fixes were
    dropped or did not converge."""

    report: Report
    files: list[FileFix] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def fixed(self) -> int:
        return sum(f.result.fixed_count for f in self.files)

    @property
    def changed(self) -> list[FileFix]:
        return [f for f in self.files if f.result.changed]

    def hidden_unsafe(self, unsafe: bool) -> int:
        """Remaining findings with an unsafe fix, when unsafe fixes were not enabled."""
        return 0 if unsafe else hidden_unsafe(self.report.diagnostics)


def parse_check_for(path: Path, original: str):
    """A `parse_check(text) -> bool` for the file's kind: libcst and Python's own parser for
    Python (the latter only when it accepts the original: newer syntax is left to libcst), jinja2
    for templates, PyYAML / tomllib for config files, always True for plain prompt text."""
    suffix = path.suffix.lower()
    if suffix in (".py", ".pyi"):
        import libcst as cst

        def python_ok(text: str, strict: bool) -> bool:
            try:
                cst.parse_module(text)
                if strict:
                    ast.parse(text)
            except (SyntaxError, ValueError, RecursionError, cst.ParserSyntaxError):
                return False
            return True

        strict = python_ok(original, True)
        return lambda text: python_ok(text, strict)
    if suffix in (".yaml", ".yml"):
        import yaml
        return lambda text: _no_error(lambda: yaml.safe_load(text), yaml.YAMLError)
    if suffix == ".toml":
        try:
            import tomllib
        except ImportError:  # pragma: no cover - Python 3.10
            import tomli as tomllib
        return lambda text: _no_error(lambda: tomllib.loads(text), tomllib.TOMLDecodeError)
    if suffix in (".j2", ".jinja", ".jinja2"):
        import jinja2
        return lambda text: _no_error(lambda: jinja2.Environment().parse(text), jinja2.TemplateSyntaxError)
    return lambda text: True


def _no_error(action, error) -> bool:
    try:
        action()
    except error:
        return False
    return True


def _lint_text(path: Path, filename: str, kind: str, text: str, settings: Settings) -> list[Diagnostic]:
    """This file's diagnostics for unsaved `text`, with the check's selection and suppressions."""
    from .api import _suppress
    from .engine import Linter, dedupe
    from .python import project
    key = path.resolve()
    project.OVERLAY[key] = text
    try:
        report = Linter().lint_file(path, kind)
        found = [d for d in dedupe(report.diagnostics)
                 if d.span.filename == filename and settings.is_enabled(d.code, filename)]
        return _suppress(found, [(path, kind)], settings)
    finally:
        project.OVERLAY.pop(key, None)


def fix_paths(paths: list[str | Path], settings: Settings | None = None, unsafe: bool = False,
              write: bool = True, report: Report | None = None) -> FixRun:
    """Fix the files under `paths` (safe fixes; unsafe ones too when `unsafe`) to a fixpoint.

    `report` is a check already run over `paths` (else `api.check` runs one). Files are written
    atomically when `write` and their fixes applied cleanly. Raises FileNotFoundError as
    `api.check` does.
    """
    from .api import check
    from .discovery import file_kind
    settings = settings or Settings()
    report = report if report is not None else check(paths, settings)
    by_file: dict[str, list[Diagnostic]] = {}
    for diag in report.diagnostics:
        by_file.setdefault(diag.span.filename, []).append(diag)
    run = FixRun(Report(prompts=report.prompts, errors=list(report.errors), files=report.files))
    remaining: list[Diagnostic] = []
    for filename, diagnostics in by_file.items():
        if not any(is_applicable(d.fix, unsafe) for d in diagnostics):
            remaining.extend(diagnostics)
            continue
        path = Path(filename)
        kind = file_kind(path) or "python"
        try:
            original = path.read_bytes().decode("utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            run.errors.append(f"{filename}: cannot read file: {exc}")
            remaining.extend(diagnostics)
            continue

        def lint(text: str, _path=path, _name=filename, _kind=kind, _first=diagnostics,
                 _original=original) -> list[Diagnostic]:
            if text == _original:
                return _first
            return _lint_text(_path, _name, _kind, text, settings)

        result = fix_file(path, lint, unsafe, parse_check_for(path, original), text=original)
        item = FileFix(filename, path, result)
        run.files.append(item)
        remaining.extend(result.remaining)
        if result.error:
            run.errors.append(f"{filename}: {result.error}")
        if write and result.changed:
            write_atomic(path, result.new_text)
            item.written = True
    run.report.diagnostics = sorted(remaining, key=lambda d: d.sort_key)
    return run
