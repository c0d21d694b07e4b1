"""`promptlint fix`: run the fix engine (`promptlint.fix`) over the files of a check.

One full check finds the files with an applicable fix. Each of them is then read once
(`writer.read_snapshot`) and fixed from that exact text: every pass, the first included, lints
that unsaved text alone (through the overlay of `promptlint.source`, so imports, suppressions and
templates are read as in a normal run), so no edit is ever applied to another text than the one
it was computed from. The result must parse and compile. It is written only if the file still
holds the text that was read (`writer.write_atomic`); a file another program changed meanwhile is
read and fixed again (up to MAX_ATTEMPTS times), so a user's edit is never reverted. A file that
cannot be written (read-only, hard links, owner, permissions) is left as it is with a message in
`write_errors`. Nothing is written when `write` is false (`--diff`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .config import Settings
from .fix import FixResult, fix_file, hidden_unsafe, is_applicable, rewritable, unified_diff
from .model import Diagnostic, Report
from .source import SourceError
from .writer import ChangedError, WriteError, read_snapshot, write_atomic

#: Times a file is read and fixed again when another program changes it while it is fixed.
MAX_ATTEMPTS = 3


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
    dropped, withheld or did not converge; `write_errors` one line per file whose fixes could
    not be written (the CLI exits 2 for them)."""

    report: Report
    files: list[FileFix] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    write_errors: list[str] = field(default_factory=list)

    @property
    def fixed(self) -> int:
        return sum(f.result.fixed_count for f in self.files)

    @property
    def changed(self) -> list[FileFix]:
        return [f for f in self.files if f.result.changed]

    def hidden_unsafe(self, unsafe: bool) -> int:
        """Remaining findings with an unsafe fix, when unsafe fixes were not enabled."""
        return 0 if unsafe else hidden_unsafe(self.report.diagnostics)

    def surfaced(self, unsafe: bool) -> int:
        """Fixes applied to findings not reported before fixing (behind an earlier finding of the
        same prompt, reported once that one was fixed): `fixed` less the applicable fixes of the
        files' first reports (`fix.summary`'s `surfaced`)."""
        first = sum(1 for f in self.files for d in f.result.initial if is_applicable(d.fix, unsafe))
        return max(self.fixed - first, 0)


def parse_check_for(path: Path, original: str):
    """A `parse_check(text) -> bool` for the file's kind: for Python, libcst parses it and, when
    the original compiles with the running Python, `compile()` too (a parse alone misses errors
    such as `return` outside a function or a duplicate argument; newer syntax than the running
    Python is left to libcst); jinja2 for templates, the POML reader for POML files, PyYAML /
    tomllib for config files, always True for plain prompt text."""
    suffix = path.suffix.lower()
    if suffix in (".py", ".pyi"):
        import libcst as cst

        def python_ok(text: str, strict: bool) -> bool:
            try:
                cst.parse_module(text)
                if strict:
                    compile(text, str(path), "exec", dont_inherit=True)
            except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError, cst.ParserSyntaxError):
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
    if suffix == ".poml":
        from .templates import PromptFileError
        from .templates.poml import poml_layouts
        return lambda text: _no_error(lambda: poml_layouts(path, path.name, text), PromptFileError)
    return lambda text: True


def _no_error(action, error) -> bool:
    try:
        action()
    except error:
        return False
    return True


def _lint_text(path: Path, filename: str, text: str, settings: Settings, check) -> Report:
    """The check (`api.check`) of the file with unsaved `text` as an overlay, so the findings left
    after a fix are the ones a check reports; its diagnostics of this file are those of
    `_mine(report, filename)`."""
    return check([path], settings, jobs=1, overlays={path: text})


def _mine(report: Report, filename: str) -> list[Diagnostic]:
    return [d for d in report.diagnostics if d.span.filename == filename]


def _cacheable(report: Report) -> dict[str, dict[str, int]]:
    """Prompt id -> target -> tokens cached per request (`impact.cacheable`) of a report."""
    from .impact import cacheable
    return {layout.id: cacheable(layout) for layout in report.prompts}


def fix_paths(paths: list[str | Path], settings: Settings | None = None, unsafe: bool = False,
              write: bool = True, report: Report | None = None, *, check) -> FixRun:
    """Fix the files under `paths` (safe fixes; unsafe ones too when `unsafe`) to a fixpoint.

    `check` is the check pipeline (`api.check(paths, settings, jobs=, overlays=)`: passed in, the
    fixer does not import the API that calls it); `report` a check already run over `paths` (else
    `check` runs one): it says which files have applicable fixes. Files are written atomically
    when `write` and their fixes applied cleanly (module docstring). Raises FileNotFoundError as
    `api.check` does.
    """
    from .discovery import file_kind
    settings = settings or Settings()
    report = report if report is not None else check(paths, settings)
    by_file: dict[str, list[Diagnostic]] = {}
    for diag in report.diagnostics:
        by_file.setdefault(diag.span.filename, []).append(diag)
    run = FixRun(Report(prompts=report.prompts, errors=list(report.errors), files=report.files))
    remaining: list[Diagnostic] = []
    for filename, diagnostics in by_file.items():
        path = Path(filename)
        if not rewritable(filename, paths) or not any(is_applicable(d.fix, unsafe) for d in diagnostics):
            # (a finding in a module the analysis read outside the paths given, as an imported
            # package found beside them, concerns them but is not theirs to rewrite: `check`
            # offers no fix for it either, `fix.offer_fixes`)
            remaining.extend(diagnostics)
            continue
        applied = settings.for_path(path, False)
        kind = file_kind(path, applied.template_globs, applied.prompt_globs) or "python"
        item = _fix_one(path, filename, kind, settings, unsafe, write, run, diagnostics, check, report.prompts)
        if item is None:
            remaining.extend(diagnostics)
            continue
        run.files.append(item)
        remaining.extend(item.result.remaining)
    run.report.diagnostics = sorted(remaining, key=lambda d: d.sort_key)
    return run


def _computed_from(diagnostics: list[Diagnostic], text: str, unsafe: bool) -> bool:
    """True when every applicable fix of the check says it was computed from `text` (its
    digest): the check's diagnostics can then serve as the first pass without linting again."""
    from .codemod.module import digest
    fixes = [d.fix for d in diagnostics if is_applicable(d.fix, unsafe)]
    if not fixes or any(not f.digest for f in fixes):
        return False
    current = digest(text)
    return all(f.digest == current for f in fixes)


def _fix_one(path: Path, filename: str, kind: str, settings: Settings, unsafe: bool, write: bool,
             run: FixRun, checked: list[Diagnostic], check, prompts: list | None = None) -> FileFix | None:
    """Read, fix and (when `write`) save one file; None when it cannot be read. `checked` are the
    check's diagnostics of the file (the first pass when their fixes name the text read), `prompts`
    the check's prompt layouts (what the first pass caches)."""
    for _ in range(MAX_ATTEMPTS):
        try:
            snapshot = read_snapshot(path, python=kind == "python")
        except (SourceError, OSError) as exc:
            run.errors.append(f"{filename}: {exc}" if str(exc).startswith("cannot read") else
                              f"{filename}: cannot read file: {exc}")
            return None

        first = checked if _computed_from(checked, snapshot.text, unsafe) else None
        reports: dict[str, Report] = {}
        if first is not None and prompts is not None:
            reports[snapshot.text] = Report(prompts=prompts)

        def report_of(text: str) -> Report:
            if text not in reports:
                reports[text] = _lint_text(path, filename, text, settings, check)
            return reports[text]

        def lint(text: str) -> list[Diagnostic]:
            if first is not None and text == snapshot.text:
                return first
            return _mine(report_of(text), filename)

        result = fix_file(path, lint, unsafe, parse_check_for(path, snapshot.text), text=snapshot.text,
                          cacheable=lambda text: _cacheable(report_of(text)))
        item = FileFix(filename, path, result)
        run.errors.extend(f"{filename}: {note}" for note in result.withheld)
        if result.error:
            run.errors.append(f"{filename}: {result.error}")
        if not write or not result.changed:
            return item
        try:
            write_atomic(path, result.new_text, expected=snapshot)
        except ChangedError:
            run.errors[:] = [e for e in run.errors if not e.startswith(f"{filename}: ")]
            continue  # another program wrote the file: read it again and fix what it holds now
        except WriteError as exc:
            run.write_errors.append(f"cannot write {filename}: {exc}")
            return FileFix(filename, path, FixResult(snapshot.text, 0, result.initial, None, [], snapshot.text,
                                                     result.initial))
        item.written = True
        return item
    run.write_errors.append(f"cannot write {filename}: another program changed it each time it was fixed "
                            f"({MAX_ATTEMPTS} times); left as it is, run fix again")
    return FileFix(filename, path, FixResult(snapshot.text, 0, result.initial, None, [], snapshot.text,
                                             result.initial))
