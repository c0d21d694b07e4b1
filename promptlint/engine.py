"""Runs the analysis: read each file once, build prompt layouts, run the rules, dedupe.

`lint_files` is the whole pipeline for a list of files; it never raises for bad input: a file
that cannot be read or parsed becomes a PRM001 diagnostic and the run goes on.
"""
from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from .dedupe import dedupe
from .model import Diagnostic, Position, PromptLayout, Report, Severity, Span
from . import estimates as _estimates
from .paths import display_name
from .profiles import apply_overrides, parse_target
from .python.module import ParseError
from .python.prefilter import might_hold_prompt
from .rules import ALL_RULES
from .rules.base import Rule
from .source import SourceError, read_python, read_text

PARALLEL_MIN_FILES = 40
_STANDALONE = {"template", "prompt-text", "config-string"}


def _syntax_error(filename: str, exc: Exception) -> Diagnostic:
    """PRM001 for a file that cannot be read or parsed (info for a file skipped for its size)."""
    row, column = getattr(exc, "row", 1) or 1, getattr(exc, "column", 1) or 1
    severity = Severity.INFO if getattr(exc, "too_large", False) else Severity.ERROR
    pos = Position(row, column)
    return Diagnostic(code="PRM001", name="syntax-error", severity=severity,
                      message=f"Cannot analyse this file: {exc}", span=Span(filename, pos, pos))


class Linter:
    """Analyses files with one Project (module cache) and one Evaluator."""

    def __init__(self, rules: list[Rule] | None = None, roots: list[Path] | None = None,
                 targets: list[str] | None = None, profiles: list[dict] | None = None):
        if profiles:
            apply_overrides(profiles)
        self.targets = [parse_target(t) for t in targets or []]
        self.rules = rules if rules is not None else [r() for r in ALL_RULES]
        from .python.flow import Evaluator
        from .python import linking
        from .python.tree import Project
        self.project = Project(roots)
        self.evaluator = Evaluator(self.project, template_hook=linking.template_hook, config_hook=linking.config_hook)

    def lint_file(self, path: Path, kind: str, force: bool = False, layout_rules: bool = True) -> Report:
        """One file's report. With `layout_rules` the prefix rules run on its layouts here; a run
        over many files runs them once at the end instead (`check_layouts`), where it knows which
        layouts supersede which."""
        report = Report(files=1)
        filename = display_name(path)
        try:
            if kind == "python":
                self._python(path, filename, force, report)
            else:
                self._text_file(path, filename, kind, report)
        except Exception as exc:  # a bug of ours must not end the run: say so and go on
            report.errors.append(f"{filename}: internal error: {type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}")
        for layout in report.prompts:
            self._estimate(layout)
        if layout_rules:
            report.diagnostics.extend(self.check_layouts(report.prompts))
        return report

    def _python(self, path: Path, filename: str, force: bool, report: Report) -> None:
        """A Python file: parsed only when its text can hold a prompt (or `force`)."""
        from .python.sites import find_layouts
        try:
            source = read_python(path)
        except SourceError as exc:
            report.diagnostics.append(_syntax_error(filename, exc))
            return
        if not force and not might_hold_prompt(source):
            return  # no prompt can be here: never parsed
        try:
            module = self.project.load(path, source)
        except ParseError as exc:
            report.diagnostics.append(_syntax_error(filename, exc))
            return
        try:
            layouts = find_layouts(module, self.evaluator)
        except RecursionError:
            layouts = []
            report.diagnostics.append(_syntax_error(filename, ParseError("too deeply nested to analyse")))
        report.prompts.extend(layouts)
        for rule in self.rules:
            if type(rule).check_module is not Rule.check_module:
                report.diagnostics.extend(rule.check_module(module))
        if self.project.full:  # bounded memory: start over with the next file
            self.project.clear()
            self.evaluator.forget()

    def _text_file(self, path: Path, filename: str, kind: str, report: Report) -> None:
        try:
            from . import templates
        except ImportError:  # pragma: no cover
            return
        try:
            text = read_text(path)
        except SourceError as exc:
            report.diagnostics.append(_syntax_error(filename, exc))
            return
        layouts_for_file = getattr(templates, "layouts_for_file", None)
        if layouts_for_file is None:  # pragma: no cover - templates package being built
            return
        try:
            layouts = layouts_for_file(path, filename, text)
        except Exception as exc:  # a template the parser rejects is reported, never a crash
            report.diagnostics.append(_syntax_error(filename, ParseError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
                                                                         getattr(exc, "lineno", None) or getattr(exc, "row", None) or 1)))
            return
        report.prompts.extend(layouts)

    def _estimate(self, layout: PromptLayout) -> None:
        layout.static_prefix_tokens = _estimates.static_prefix_tokens(layout)
        layout.static_tokens = _estimates.static_tokens(layout)
        layout.estimates = _estimates.estimate(layout, _estimates.targets_for(layout, self.targets))

    def check_layouts(self, layouts: list[PromptLayout]) -> list[Diagnostic]:
        """Run the prefix rules on every layout of the run except those another layout
        supersedes: a template or config prompt that Python renders with known values, a
        LangChain prompt template whose `invoke(...)` values are known."""
        linked = {t for lt in layouts if lt.source == "python-call" for t in lt.templates}
        covered = {c for lt in layouts for c in lt.supersedes}
        sent = {s.span for lt in layouts if lt.source == "python-call" for _, _, _, s in lt.segments() if s.span}
        reached: dict = {}  # functions read to build a send site's tools
        for lt in layouts:
            if lt.source == "python-call" and any(p.role == "tools" for p in lt.parts):
                for span in lt.reaches:
                    reached.setdefault(span.filename, []).append(span)
        out: list[Diagnostic] = []
        for layout in layouts:
            if layout.id in covered or (layout.source in _STANDALONE and layout.site.filename in linked):
                continue
            if layout.source == "python-constant" and (
                    any(s.span in sent for _, _, _, s in layout.segments())
                    or all(p.role == "tools" for p in layout.parts) and _inside(layout.site, reached)):
                continue  # a prompt candidate whose text (or tools list) reaches a send site: judged there (Policy 9)
            for rule in self.rules:
                out.extend(rule.check_layout(layout))
        return out


def _inside(site, reached: dict) -> bool:
    """True when `site` lies inside one of the function spans of its file in `reached`."""
    return any(f.start <= site.start and site.end <= f.end for f in reached.get(site.filename, ()))


_WORKER: Linter | None = None


def _init_worker(roots, targets, profiles) -> None:
    global _WORKER
    _WORKER = Linter(roots=roots, targets=targets, profiles=profiles)


def _worker(args) -> Report:
    """Lint one chunk in a worker process; the worker's Linter (and its module cache) lives as
    long as the process, so modules imported by several files are parsed once per process."""
    paths, force = args
    linter = _WORKER
    out = Report()
    for path, kind in paths:
        part = linter.lint_file(path, kind, force, layout_rules=False)
        out.diagnostics.extend(part.diagnostics)
        out.prompts.extend(part.prompts)
        out.errors.extend(part.errors)
        out.files += part.files
    return out


def lint_files(files: list[tuple[Path, str]], roots: list[Path] | None = None, jobs: int | None = None,
               force: bool = False, progress=None, targets: list[str] | None = None,
               profiles: list[dict] | None = None) -> Report:
    """Lint `files` ([(path, kind)]) and return one Report, deduplicated and sorted.

    Runs in `jobs` processes (default: the CPU count) when there are many files. `force` analyses
    every Python file, not only those that mention an LLM API. `progress(n)` is called as files
    complete. `targets` are PROVIDER:MODEL strings for prompts whose provider is not static;
    `profiles` user provider-profile rows.
    """
    jobs = jobs or os.cpu_count() or 1
    report = Report()
    if jobs > 1 and len(files) >= PARALLEL_MIN_FILES:
        # contiguous chunks keep a package's files (and the modules they import) together
        size = max(8, len(files) // (jobs * 16))
        chunks = [files[i:i + size] for i in range(0, len(files), size)]
        with ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker,
                                 initargs=(roots, targets, profiles)) as pool:
            for part, chunk in zip(pool.map(_worker, [(c, force) for c in chunks]), chunks):
                _merge(report, part)
                if progress:
                    progress(len(chunk))
    else:
        linter = Linter(roots=roots, targets=targets, profiles=profiles)
        for path, kind in files:
            _merge(report, linter.lint_file(path, kind, force, layout_rules=False))
            if progress:
                progress(1)
    report.prompts = _unique_layouts(report.prompts)
    report.diagnostics.extend(Linter(roots=roots, targets=targets, profiles=profiles).check_layouts(report.prompts))
    report.diagnostics = dedupe(report.diagnostics)
    return report


def _merge(report: Report, part: Report) -> None:
    report.diagnostics.extend(part.diagnostics)
    report.prompts.extend(part.prompts)
    report.errors.extend(part.errors)
    report.files += part.files


def _unique_layouts(layouts: list[PromptLayout]) -> list[PromptLayout]:
    seen: dict[str, PromptLayout] = {}
    for layout in layouts:
        seen.setdefault(layout.id + (layout.api or ""), layout)
    return sorted(seen.values(), key=lambda lt: (lt.site.filename, lt.site.start))
