"""The programmatic API: `check(paths, settings) -> Report`. The CLI is a thin shell over it."""
from __future__ import annotations

from pathlib import Path

from .config import Settings
from .discovery import discover, file_kind
from .engine import lint_files
from .model import Report, Severity

__all__ = ["check", "exit_code", "Settings"]


def check(paths: list[str | Path], settings: Settings | None = None, jobs: int | None = None,
          progress=None, overlays: dict[Path, str] | None = None) -> Report:
    """Lint files and folders. Raises FileNotFoundError for a path that does not exist.

    Diagnostics of rules not enabled for a file (select / ignore / per-file-ignores) are dropped;
    suppression comments are applied. `progress(total_files)` may return a callback that is
    called with the number of files done as they complete (the CLI draws a bar with it).
    `overlays` maps paths to unsaved texts read instead of the files (an editor's buffers,
    `--stdin-filename`); they stand in for the files only during this call.
    """
    if overlays:
        from . import source
        keys = [Path(p).resolve() for p in overlays]
        source.OVERLAY.update(zip(keys, overlays.values()))
        try:
            return check(paths, settings, jobs, progress)
        finally:
            for key in keys:
                source.OVERLAY.pop(key, None)
    settings = settings or Settings()
    roots = [Path(p) for p in paths] or [Path(".")]
    files = [f for f in discover(roots) if not settings.is_excluded(f)]
    kinds = [(f, file_kind(f) or "python") for f in files]
    report = lint_files(kinds, roots=None, jobs=jobs, force=False,
                        progress=progress(len(kinds)) if progress is not None else None,
                        targets=settings.targets, profiles=settings.profiles)
    report.files = len(files)
    enabled = [d for d in report.diagnostics if settings.is_enabled(d.code, d.span.filename)]
    report.diagnostics = _suppress(enabled, kinds, settings)
    return report


def _suppress(diagnostics, kinds, settings: Settings):
    """Apply suppression comments and add PRM901 for unused ones (promptlint.suppress)."""
    from .baseline import read_source
    from .paths import display_name
    from .suppress import file_kind as comment_kind, suppress

    def comment_syntax(path: Path, kind: str) -> str | None:
        if kind == "prompt-text" or path.suffix == ".prompt":  # no comments: all of it is prompt
            return None
        return {"python": "python", "template": "jinja"}.get(kind) or comment_kind(path.name)

    by_name = {display_name(f): comment_syntax(f, k) for f, k in kinds}
    return suppress(diagnostics, list(by_name), read_source, settings.is_enabled,
                    lambda name: by_name[name] if name in by_name else comment_kind(name))


def exit_code(report: Report, fail_on: str = "warning") -> int:
    """0 when no finding at or above `fail_on` remains, 1 when one does."""
    threshold = Severity(fail_on).rank
    return 1 if any(d.severity.rank >= threshold for d in report.diagnostics) else 0
