"""The programmatic API: `check(paths, settings) -> Report`. The CLI is a thin shell over it."""
from __future__ import annotations

import os
from pathlib import Path

from .config import Settings
from .discovery import Problem, discover, file_kind
from .engine import lint_files
from .fix import offer_fixes
from .model import Diagnostic, Position, Report, Severity, Span

__all__ = ["check", "fix", "exit_code", "Settings"]


def check(paths: list[str | Path], settings: Settings | None = None, jobs: int | None = None,
          progress=None, overlays: dict[Path, str] | None = None, cache_dir: str | Path | None = None,
          project: bool = False, warn=None, module_roots: list[Path] | None = None,
          search_paths: list[str | Path] | None = None) -> Report:
    """Lint files and folders. Raises FileNotFoundError for a path that does not exist (a path
    of `overlays` need not exist) and ConfigError for a nested config file that cannot be used.

    Diagnostics of rules not enabled for a file (select / ignore / per-file-ignores, from the
    settings that apply to that file: `Settings.for_path`) are dropped; suppression comments are
    applied. A walked file or folder that the settings exclude is skipped, a named one too with
    `settings.force_exclude`. A named file whose kind is unknown (a README) is not checked.
    A folder that cannot be read is a line of `report.errors`; a file whose symlinks loop or that
    is not a regular file is its PRM001. `progress(total_files)` may return a callback that is
    called with the number of files done as they complete (the CLI draws a bar with it).
    `overlays` maps paths to unsaved texts read instead of the files (an editor's buffers,
    `--stdin-filename`); they stand in for the files only during this call.

    `jobs`: worker processes (default: the CPUs this process may use). `cache_dir`: the
    persistent cache folder (`promptlint.cache`; None: no cache). `project`: when every path is
    a file (pre-commit passes the changed files), analyse the project they belong to
    (`promptlint.scope`) and report the findings that concern them (their location, a related
    location or their prompt's site is in one of them), so a change that breaks a prompt in
    another file is reported. `warn(message)` receives one-line warnings (a cache folder that
    cannot be used: the run goes on without it). `module_roots`: the folders imported modules
    are searched from besides the files' own packages (default: the folders among `paths`, or
    the project); `explain` of one file passes those of the package it reads around it, so the
    file is analysed as `check` of that package analyses it (and their cache entries are shared).
    The text searches for callers, definitions and breakpoint keys read no folder above the
    checked paths (or the project) unless a project marker says so (`python.search_bounds`);
    `search_paths` stand for the checked paths there (`fix` checks a fixed file again alone, its
    searches bounded as those of the check of the paths it fixes), else `module_roots` when given.
    """
    if overlays:
        from . import source
        with source.overlaid(overlays):
            return check(paths, settings, jobs, progress, cache_dir=cache_dir, project=project, warn=warn,
                         module_roots=module_roots, search_paths=search_paths)
    from . import scope, source
    settings = settings or Settings()
    roots = [Path(p) for p in paths] or [Path(".")]
    base = scope.project_root(roots) if project else None
    problems: list[Problem] = []

    kind_of = kind_function(settings)

    def found(where: list[Path], named_problems: list[Problem]) -> list[Path]:
        return discover(where, excluded=lambda p, is_dir: settings.for_path(p, is_dir).is_excluded(p),
                        problems=named_problems, force_exclude=settings.force_exclude,
                        extra=lambda p: source.overlay_text(p) is not None, kind_of=kind_of)

    files = found(roots, problems)
    named = files
    if base is not None:
        files = scope.merge(files, found([base], []))
        roots = [base]
    kinds = [(f, kind_of(f) or "python") for f in files]
    dirs = [r for r in roots if r.is_dir()] if module_roots is None else list(module_roots)
    # where the text searches stop (no project marker): the checked paths, or the folders read
    # around a file that are given as its module roots (`explain`: analysed as a check of them)
    bounds = [Path(p) for p in search_paths] if search_paths is not None else \
        roots if module_roots is None else [Path(m) for m in module_roots]
    cache = _open_cache(cache_dir, settings, dirs, warn, bounds) if cache_dir is not None else None
    quiet: set[Path] = set()
    report = lint_files(kinds, roots=dirs, jobs=jobs, force=False, bounds=bounds,
                        progress=progress(len(kinds)) if progress is not None else None,
                        targets=settings.targets, profiles=settings.profiles, cache=cache, quiet=quiet)
    if base is not None:
        report = scope.concerning(report, named)
        kinds = [(f, kind_of(f) or "python") for f in named]
    else:  # a finding located in a file read beside the checked ones is theirs only through them
        from .paths import display_name
        report.diagnostics = scope.of_files(report.diagnostics, report.prompts, {display_name(f) for f in named})
    report.files = len(named) + sum(1 for p in problems if not p.is_dir)
    report.errors[:0] = [f"{display_path(p.path)}: {p.reason}" for p in problems if p.is_dir]
    report.diagnostics.extend(_unreadable(p) for p in problems if not p.is_dir)
    enabled = [d for d in report.diagnostics
               if settings.for_path(d.span.filename).is_enabled(d.code, d.span.filename)]
    report.diagnostics = offer_fixes(sorted(_suppress(enabled, kinds, settings, quiet), key=lambda d: d.sort_key),
                                     paths)
    return report


def kind_function(settings: Settings):
    """`kind_of(path)`: what a file is (`promptlint.discovery.file_kind`) under the settings that
    apply to it (its template-globs and prompt-globs)."""
    def kind_of(path: Path) -> str | None:
        applied = settings.for_path(path, False)
        return file_kind(path, applied.template_globs, applied.prompt_globs)
    return kind_of


def _open_cache(cache_dir: str | Path, settings: Settings, roots: list[Path], warn, bounds: list[Path] = ()):
    """The persistent cache for this run's settings, or None (with a warning) when its folder
    cannot be used. `bounds`: the checked paths (`lint_files`)."""
    from .cache import Cache, fingerprint
    from .scope import module_roots, unmarked
    # the module roots, not the folders named: what the analysis of a file depends on (`check
    # src/app`, `check src` and `explain` of a file of package `app` share their entries)
    facts = {"targets": settings.targets, "profiles": settings.profiles, "force": False,
             "roots": module_roots(roots)}
    loose = unmarked(bounds)
    if loose:  # in no project, where the text searches stop depends on the paths named
        facts["bounds"] = loose
    try:
        return Cache.open(Path(cache_dir), fingerprint(facts))
    except OSError as exc:
        if warn is not None:
            warn(f"warning: cannot use the cache folder {cache_dir}: {exc.strerror or exc}; running without a cache")
        return None


def display_path(path: str | os.PathLike) -> str:
    """A path as reports name files: relative to the current folder when under it (posix)."""
    absolute = os.path.abspath(path)
    relative = os.path.relpath(absolute)
    return Path(absolute if relative.startswith("..") else relative).as_posix()


def _unreadable(problem: Problem) -> Diagnostic:
    start = Position(1, 1)
    return Diagnostic(code="PRM001", name="syntax-error", severity=Severity.ERROR,
                      message=f"Cannot analyse this file: {problem.reason}",
                      span=Span(display_path(problem.path), start, start))


def _suppress(diagnostics, kinds, settings: Settings, quiet: set[Path] = frozenset()):
    """Apply suppression comments and add PRM901 for unused ones (promptlint.suppress). The
    files of `kinds` in `quiet` cannot hold a suppression comment: they are not read (unless
    a diagnostic is in one)."""
    from .baseline import read_source
    from .paths import display_name
    from .rules import ALL_RULES
    from .rules.prm901_unused_suppression import suppress
    from .suppress import file_kind as comment_kind

    def comment_syntax(path: Path, kind: str) -> str | None:
        if kind == "prompt-text" or path.suffix == ".prompt":  # no comments: all of it is prompt
            return None
        return {"python": "python", "template": "jinja", "prompty": "jinja", "poml": "xml"}.get(kind) or comment_kind(path.name)

    by_name = {display_name(f): comment_syntax(f, k) for f, k in kinds if f not in quiet}

    def is_enabled(code: str, filename: str | None = None) -> bool:
        return settings.for_path(filename).is_enabled(code, filename) if filename else settings.is_enabled(code)

    return suppress(diagnostics, list(by_name), read_source, is_enabled,
                    lambda name: by_name[name] if name in by_name else comment_kind(name), ALL_RULES)


def fix(paths: list[str | Path], settings: Settings | None = None, unsafe: bool | None = None,
        write: bool = True, report: Report | None = None, jobs: int | None = None,
        cache_dir: str | Path | None = None, warn=None):
    """Apply fixes to the files under `paths` (safe ones; unsafe ones too with `unsafe`, default:
    `settings.unsafe_fixes`) and return the `promptlint.fixer.FixRun`: its `report` holds the
    findings that remain, as `check` reports them; nothing is written when `write` is false.
    `report`: a check already run over `paths`; `jobs`, `cache_dir` and `warn`: as for `check`,
    for the check that finds what to fix (the files a fix changes are checked again without the
    cache). Raises FileNotFoundError as `check` does."""
    from functools import partial
    from .fixer import fix_paths
    settings = settings or Settings()
    if report is None and cache_dir is not None:
        report = check(paths, settings, jobs, cache_dir=cache_dir, warn=warn)
    # (a fixed file is checked again alone: its searches bounded as the check of `paths` bounds them)
    bounded = partial(check, search_paths=[Path(p) for p in paths] or [Path(".")])
    return fix_paths(paths, settings, settings.unsafe_fixes if unsafe is None else unsafe, write=write,
                     report=report, check=bounded if jobs is None else partial(bounded, jobs=jobs))


def exit_code(report: Report, fail_on: str = "warning") -> int:
    """0 when no finding at or above `fail_on` remains, 1 when one does, 2 when the run had an
    error (`report.errors`: a file that could not be analysed, a folder that could not be read)."""
    if report.errors:
        return 2
    threshold = Severity(fail_on).rank
    return 1 if any(d.severity.rank >= threshold for d in report.diagnostics) else 0
