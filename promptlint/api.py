"""The programmatic API: `check(paths, settings) -> Report`. The CLI is a thin shell over it."""
from __future__ import annotations

from pathlib import Path

from .config import Settings
from .discovery import discover, file_kind
from .engine import lint_files
from .model import Report, Severity

__all__ = ["check", "exit_code", "Settings"]


def check(paths: list[str | Path], settings: Settings | None = None, jobs: int | None = None,
          progress=None) -> Report:
    """Lint files and folders. Raises FileNotFoundError for a path that does not exist.

    Diagnostics of rules not enabled for a file (select / ignore / per-file-ignores) are dropped;
    suppression comments are applied.
    """
    settings = settings or Settings()
    roots = [Path(p) for p in paths] or [Path(".")]
    files = [f for f in discover(roots) if not settings.is_excluded(f)]
    kinds = [(f, file_kind(f) or "python") for f in files]
    report = lint_files(kinds, roots=None, jobs=jobs, force=False, progress=progress)
    report.files = len(files)
    report.diagnostics = [d for d in report.diagnostics if settings.is_enabled(d.code, d.span.filename)]
    return report


def exit_code(report: Report, fail_on: str = "warning") -> int:
    """0 when no finding at or above `fail_on` remains, 1 when one does."""
    threshold = Severity(fail_on).rank
    return 1 if any(d.severity.rank >= threshold for d in report.diagnostics) else 0
