"""Runs the analysis: read each file once, build prompt layouts, run the rules, dedupe.

`lint_files` is the whole pipeline for a list of files; it never raises for bad input: a file
that cannot be read or parsed becomes a PRM001 diagnostic and the run goes on, and so does a
file whose analysis crashed its worker process (`promptlint.workers`). With a persistent cache
(`promptlint.cache`) only the files whose result is not cached are analysed; the prefix rules,
the deduplication and the suppressions always run on every layout, cached or not.

Every file is analysed from the same state (the evaluator forgets its values after each file;
parsed modules are shared but their reads are recorded on every use), so a file's result
depends only on the files its analysis read, whatever ran before it in the same process.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from . import collect, reads
from .cache import Result
from .dedupe import dedupe
from .model import Diagnostic, Position, PromptLayout, Related, Report, Severity, Span
from .paths import display_name
from .source import SourceError, read_python, read_text
from .suppress import might_suppress

if TYPE_CHECKING:  # the analysis is imported when a file is analysed (a cached run needs none of it)
    from .rules.base import Rule

PARALLEL_MIN_FILES = 40  # files to analyse (not cached) before worker processes pay off
#: Modules the workers' fork server imports once (`promptlint.workers`): the analysis and the rules.
#: Not the tokenizer: the parent estimates the layouts that workers send (`_estimate_layouts`), so
#: no worker holds its 49 MiB, which its resident set would count against `workers.RECYCLE_BYTES`
#: (with it, five workers a corpus run were replaced and parsed their packages' modules again).
WORKER_PRELOAD = ("promptlint.engine", "promptlint.python.flow", "promptlint.python.sites", "promptlint.rules",
                  "promptlint.estimates", "promptlint.cache")
def _syntax_error(filename: str, exc: Exception) -> Diagnostic:
    """PRM001 for a file that cannot be read or parsed (info for a file skipped for its size)."""
    row, column = getattr(exc, "row", 1) or 1, getattr(exc, "column", 1) or 1
    severity = Severity.INFO if getattr(exc, "too_large", False) else Severity.ERROR
    pos = Position(row, column)
    return Diagnostic(code="PRM001", name="syntax-error", severity=severity,
                      message=f"Cannot analyse this file: {exc}", span=Span(filename, pos, pos))


class _Failure(Exception):
    """Why an analysis failed as a whole (the message of its PRM001)."""

    limit = True


def _failed(report: Report, filename: str, exc: Exception) -> None:
    """Record that a file could not be read, parsed or analysed: its PRM001 and, when the
    analysis itself gave up on the file (too deeply nested, out of memory, a worker that died or
    ran over its budget: `exc.limit`), a line of `report.errors` too, so the run exits 2 (the file
    was not checked; excluding it is the way out), as a syntax error of the code does not."""
    report.diagnostics.append(_syntax_error(filename, exc))
    if getattr(exc, "limit", False):
        report.errors.append(f"{filename}: cannot analyse: {exc}")


def _internal_error(result: Result, filename: str, exc: Exception) -> None:
    """Report an exception of the analysis of one file as a line of its `errors` (its result is
    then not cached): a bug of ours must not end the run."""
    message = str(exc).splitlines()[0][:200] if str(exc) else ""
    result.report.errors.append(f"{filename}: internal error: {type(exc).__name__}: {message}")
    result.cacheable = False


def _failure(path: Path, reason: str) -> Report:
    """The report of a file whose analysis failed as a whole (its worker crashed)."""
    report = Report(files=1)
    _failed(report, display_name(path), _Failure(reason))
    return report


class Linter:
    """Analyses files with one Project (module cache) and one Evaluator."""

    def __init__(self, rules: list[Rule] | None = None, roots: list[Path] | None = None,
                 targets: list[str] | None = None, profiles: list[dict] | None = None,
                 bounds: list[Path] | None = None):
        from .profiles import apply_overrides, parse_target
        from .rules import ALL_RULES
        if profiles:
            apply_overrides(profiles)
        self.targets = [parse_target(t) for t in targets or []]
        self.rules = rules if rules is not None else [r() for r in ALL_RULES]
        from .python.flow import Evaluator
        from .python import linking
        from .python.tree import Project
        from .templates import forget_project_readings
        forget_project_readings()
        self.project = Project(roots, bounds)
        self.evaluator = Evaluator(self.project, template_hook=linking.template_hook, config_hook=linking.config_hook)

    def lint_file(self, path: Path, kind: str, force: bool = False, layout_rules: bool = True) -> Report:
        """One file's report. With `layout_rules` the prefix rules run on its layouts here; a run
        over many files runs them once at the end instead (`check_layouts`), where it knows which
        layouts supersede which."""
        report = self.analyse(path, kind, force).report
        if layout_rules:
            report.diagnostics.extend(self.check_layouts(report.prompts))
        return report

    def analyse(self, path: Path, kind: str, force: bool = False, estimate: bool = True) -> Result:
        """One file's analysis (layouts with estimates, module diagnostics, PRM001) and what it
        read (`promptlint.reads`), as the cache stores it. Never raises: an internal error is a
        line of `report.errors` (not cacheable), running out of memory or recursion a PRM001.
        `estimate=False`: the layouts' token estimates are left to the caller (a worker's parent)."""
        report = Report(files=1)
        filename = display_name(path)
        result = Result(report)
        self.project.start()
        reads.RAW.clear()
        with reads.tracking() as seen:
            try:
                if kind == "python":
                    text = self._python(path, filename, force, report)
                else:
                    text = self._text_file(path, filename, kind, report)
                result.quiet = text is None or not might_suppress(text)
                if estimate:
                    _estimate_layouts(report.prompts, self.targets)
            except MemoryError:
                report.prompts.clear()
                _failed(report, filename, _Failure("the analysis ran out of memory"))
                result.cacheable, result.restart = False, True
            except RecursionError:
                report.prompts.clear()
                _failed(report, filename, _Failure("too deeply nested to analyse"))
            except Exception as exc:  # a bug of ours must not end the run: say so and go on
                _internal_error(result, filename, exc)
            finally:
                over, used = self.project.over, self.project.used_chars
                self.project.finish()  # bounded memory: drop the least recently used modules
                self.evaluator.forget()  # the next file starts from the same state (with what it may keep of them)
        result.deps = dict(seen)
        result.state = result.deps.pop(reads.key_of(path), None)
        if self.project.code_states and not over:  # (past the budget, which modules are read depends on their lengths)
            from .python.tree import MAX_ANALYSIS_CHARS
            codes = reads.CODE
            result.codes = {k: codes[(k, v)] for k, v in result.deps.items()
                            if v is not None and (k, v) in codes and k not in reads.RAW}
            result.slack = MAX_ANALYSIS_CHARS - used
        if result.state in (None, reads.EXISTS) or result.state.startswith("o:"):
            result.cacheable = False  # unreadable, or an unsaved text: nothing to key it by
        return result

    def _python(self, path: Path, filename: str, force: bool, report: Report) -> str | None:
        """A Python file: parsed only when its text can hold a prompt (or `force`). Returns its
        text (None when it cannot be read)."""
        from .python.parsing import ParseError, syntax_error
        from .python.prefilter import in_prompt_module, might_hold_prompt
        from .python.sites import find_layouts
        from .rules.base import Rule
        try:
            source = read_python(path)
        except SourceError as exc:
            report.diagnostics.append(_syntax_error(filename, exc))
            return None
        if not force and not might_hold_prompt(source) and not in_prompt_module(path, source):
            # no prompt can be here: only checked for syntax, as ruff reports a syntax error in every
            # file it checks (not again when an earlier analysis parsed this very text)
            problem = None if self.project.holds(path, source) else syntax_error(source, str(path))
            if problem is not None:
                report.diagnostics.append(_syntax_error(filename, problem))
            return source
        try:
            module = self.project.load(path, source)
        except ParseError as exc:
            _failed(report, filename, exc)
            return source
        try:
            layouts = find_layouts(module, self.evaluator)
        except RecursionError:
            layouts = []
            _failed(report, filename, ParseError("too deeply nested to analyse", limit=True))
        report.prompts.extend(layouts)
        for rule in self.rules:
            if type(rule).check_module is not Rule.check_module:
                report.diagnostics.extend(rule.check_module(module))
        report.diagnostics.extend(self._imported_failures(module))
        return source

    def _imported_failures(self, module) -> list[Diagnostic]:
        """PRM001 of each module of the tree that this analysis imported and that cannot be read
        or parsed (its values were unknown here), with the import statement of `module` that
        names it as a related location (none when it is imported through another module)."""
        from .python.module import import_of
        out = []
        own = module.path.resolve()
        for dotted, (path, exc) in sorted(self.project.failed.items()):
            if path.resolve() == own:
                continue
            diagnostic = _syntax_error(display_name(path), exc)
            node = import_of(module, dotted)
            if node is not None:
                diagnostic.related.append(Related(module.span(node), "imported here: its values are unknown to this analysis"))
            out.append(diagnostic)
        return out

    def _text_file(self, path: Path, filename: str, kind: str, report: Report) -> str | None:
        """A template, prompt or config file. Returns its text (None when it cannot be read)."""
        from . import templates
        from .python.parsing import ParseError
        try:
            text = read_text(path)
        except SourceError as exc:
            report.diagnostics.append(_syntax_error(filename, exc))
            return None
        try:
            layouts = templates.layouts_for_file(path, filename, text, kind=kind)
        except (MemoryError, RecursionError):
            raise
        except Exception as exc:  # a template the parser rejects is reported, never a crash
            report.diagnostics.append(_syntax_error(filename, ParseError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
                                                                         getattr(exc, "lineno", None) or getattr(exc, "row", None) or 1)))
            return text
        report.prompts.extend(layouts)
        return text

    def check_layouts(self, layouts: list[PromptLayout]) -> list[Diagnostic]:
        """The prefix rules' findings on `layouts` (see `check_layouts`)."""
        return check_layouts(layouts, self.rules)


def _estimate_layouts(layouts: list[PromptLayout], targets: list) -> None:
    """Set the token estimates of `layouts` (`targets`: the parsed `--target`s, `profiles.parse_target`)."""
    if not layouts:
        return
    from . import estimates as _estimates
    for layout in layouts:
        layout.static_prefix_tokens = _estimates.static_prefix_tokens(layout)
        layout.static_tokens = _estimates.static_tokens(layout)
        layout.estimates = _estimates.estimate(layout, _estimates.targets_for(layout, targets))


def check_layouts(layouts: list[PromptLayout], rules: list[Rule] | None = None, cache=None,
                  keys: dict[int, str] | None = None, found: dict[int, list] | None = None) -> list[Diagnostic]:
    """Run the prefix rules (`rules`, default every rule) on every layout of the run except those
    another layout supersedes: a template or config prompt that Python renders with known
    values, a LangChain prompt template whose `invoke(...)` values are known, a prompt candidate
    whose text (or tools list) reaches a send site (judged there: Policy 9). With a `cache` (and
    the default rules), the findings of a layout seen before are read from it: they depend on
    nothing but the layout (and the run's fingerprint); `keys` maps `id(layout)` to its key when
    the cache entry it came from knows it. `found` maps `id(layout)` to the findings of the
    default rules on it when they were computed already (`layout_findings`, while workers ran)."""
    from .judged import judged
    if rules is not None:
        cache, found = None, None
    out: list[Diagnostic] = []
    for layout in judged(layouts):  # a layout another supersedes is judged there (Policy 9)
        key = (keys or {}).get(id(layout))
        got = cache.findings(layout, key) if cache is not None else None
        if got is None:
            got = (found or {}).get(id(layout))
            if got is None:
                if rules is None:
                    rules = _default_rules()
                got = layout_findings(layout, rules)
            if cache is not None:
                cache.store_findings(layout, got, key)
        out.extend(got)
    return out


def _default_rules() -> list[Rule]:
    from .rules import ALL_RULES
    return [r() for r in ALL_RULES]


def layout_findings(layout: PromptLayout, rules: list[Rule]) -> list[Diagnostic]:
    """The prefix rules' findings on one layout (a list of Diagnostics): they depend on nothing
    but the layout (and the file its fixes edit), so with worker processes the parent computes
    them as each file's result arrives, while the workers analyse the next files (the libcst
    parses that fixes need then overlap the analysis instead of following it)."""
    return [d for rule in rules for d in rule.check_layout(layout)]


_WORKER: Linter | None = None
_WORKER_OPTIONS: dict = {}


def _init_worker(roots, targets, profiles, force, cache_args, shared=None, bounds=None) -> None:
    global _WORKER
    _WORKER_OPTIONS["gc"] = collect.start()  # a fresh process that lives for the run: never undone
    _WORKER = Linter(roots=roots, targets=targets, profiles=profiles, bounds=bounds)
    _WORKER.project.shared = shared  # package indexes one worker scanned, for those that replace it
    _WORKER.project.code_states = cache_args is not None
    _WORKER_OPTIONS.update(force=force, cache=_open_cache(cache_args))


def _work(path: Path, kind: str) -> Result:
    """Analyse one file in a worker process (its Linter and module cache live as long as the
    process) and store the result in the cache from there. A result with layouts is sent
    unestimated and with its dependencies: the parent estimates its layouts and stores it
    (`lint_files`); a worker never loads the tokenizer."""
    result = _WORKER.analyse(path, kind, _WORKER_OPTIONS["force"], estimate=False)
    _WORKER_OPTIONS["gc"].tick()
    if result.report.prompts:
        return result
    cache = _WORKER_OPTIONS.get("cache")
    if cache is not None:
        cache.store(path, kind, result)
    result.drop_deps()  # stored: the parent needs none of them
    return result


def _open_cache(cache_args):
    if cache_args is None:
        return None
    from .cache import Cache
    return Cache(*cache_args)


def lint_files(files: list[tuple[Path, str]], roots: list[Path] | None = None, jobs: int | None = None,
               force: bool = False, progress=None, targets: list[str] | None = None,
               profiles: list[dict] | None = None, cache=None, quiet: set[Path] | None = None,
               bounds: list[Path] | None = None) -> Report:
    """Lint `files` ([(path, kind)]) and return one Report, deduplicated and sorted.

    Files whose result `cache` (a `promptlint.cache.Cache`, or None) holds are not analysed
    again; the others are, in `jobs` worker processes (default `available_cpus()`) when there
    are at least `PARALLEL_MIN_FILES` of them, and their results are stored. `force` analyses
    every Python file, not only those that mention an LLM API. `progress(n)` is called as files
    complete. `targets` are PROVIDER:MODEL strings for prompts whose model is not static (of the
    call's provider when that is known: `estimates.targets_for`);
    `profiles` user provider-profile rows. `quiet`, when given, receives the paths (as in
    `files`) whose text cannot hold a suppression comment (the suppression pass skips them).
    `bounds`: the checked paths, above which no text search reads without a project marker
    (`python.search_bounds`; None: only markers bound them).
    """
    jobs = jobs or available_cpus()
    if cache is not None:
        cache.load_token_counts()
    results: list[Result | None] = [None] * len(files)
    todo: list[tuple[int, Path, str]] = []
    for i, (path, kind) in enumerate(files):
        hit = cache.lookup(path, kind) if cache is not None else None
        if hit is None:
            todo.append((i, path, kind))
            continue
        results[i] = hit
        if progress:
            progress(1)

    found: dict[int, list] = {}  # id(layout) -> the prefix rules' findings, computed meanwhile
    rules: list = []

    def done(index: int, result: Result) -> None:
        results[index] = result
        if parallel and result.report.prompts:
            # the parent waits for the workers anyway: the findings of each layout (libcst parses
            # for fixes) now, as results arrive, instead of all of them after the last one
            rules[:] = rules or _default_rules()
            found.update((id(layout), layout_findings(layout, rules)) for layout in result.report.prompts)
            from . import codemod
            codemod.clear_cache()  # no libcst tree kept: workers forked later start from this memory
        if cache is not None:
            cache.remember(files[index][0], files[index][1], result)
        result.drop_deps()  # kept to the end: only what the report needs
        if progress:
            progress(1)

    def received(index: int, result: Result) -> None:
        """A worker's result: its layouts are estimated here, and it is stored when it has any
        (the worker stored the others, `_work`)."""
        if result.report.prompts:
            try:
                _estimate_layouts(result.report.prompts, parsed_targets)
            except Exception as exc:  # as the analysis reports its own (`Linter.analyse`)
                _internal_error(result, display_name(files[index][0]), exc)
            if cache is not None:
                cache.store(files[index][0], files[index][1], result)
        done(index, result)

    parallel = jobs > 1 and len(todo) >= PARALLEL_MIN_FILES and not profiles  # (profiles: set below)
    if jobs > 1 and len(todo) >= PARALLEL_MIN_FILES:
        from . import workers
        from .profiles import apply_overrides, parse_target
        if profiles:
            apply_overrides(profiles)  # (the estimates made here read them)
        parsed_targets = [parse_target(t) for t in targets or []]
        cache_args = (cache.root, cache.fingerprint) if cache is not None else None
        import shutil
        import tempfile
        shared = Path(tempfile.mkdtemp(prefix="promptlint-indexes-"))
        try:
            workers.run(todo, jobs, _init_worker, (roots, targets, profiles, force, cache_args, shared, bounds), _work, received,
                        lambda index, path, reason: done(index, Result(_failure(path, reason), cacheable=False)),
                        preload=WORKER_PRELOAD)
        finally:
            shutil.rmtree(shared, ignore_errors=True)
    elif todo:
        linter = Linter(roots=roots, targets=targets, profiles=profiles, bounds=bounds)
        linter.project.code_states = cache is not None
        with collect.paced() as pacer:
            for index, path, kind in todo:
                result = linter.analyse(path, kind, force)
                pacer.tick()
                if cache is not None:
                    cache.store(path, kind, result)
                done(index, result)
    report = Report()
    keys: dict[int, str] = {}
    for (path, _), result in zip(files, results):
        part = result.report
        keys.update(zip(map(id, part.prompts), result.layout_keys))
        report.diagnostics.extend(part.diagnostics)
        report.prompts.extend(part.prompts)
        report.errors.extend(part.errors)
        report.files += part.files
        if quiet is not None and result.quiet:
            quiet.add(path)
    if profiles:
        from .profiles import apply_overrides
        apply_overrides(profiles)
    report.prompts = _unique_layouts(report.prompts)
    report.diagnostics.extend(check_layouts(report.prompts, cache=cache, keys=keys, found=found))
    report.diagnostics = dedupe(report.diagnostics, report.prompts)
    if cache is not None:
        cache.save_token_counts()
        cache.save_index()
    return report


def available_cpus() -> int:
    """The CPUs this process may use: its affinity mask (`os.sched_getaffinity`), bounded by the
    cgroup's CPU quota (`cpu.max` of cgroup v2, `cpu.cfs_quota_us` / `cpu.cfs_period_us` of v1:
    a container limited to 2 CPUs on a 64-CPU host gets 2), at least 1."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    quota = _cgroup_quota()
    if quota is not None:
        cpus = min(cpus, max(1, int(quota + 0.5)))
    return max(1, cpus)


def _cgroup_quota(root: Path = Path("/sys/fs/cgroup")) -> float | None:
    """CPUs allowed by the cgroup quota of this process, or None when unlimited or unknown."""
    candidates = [(root / "cpu.max", None)]
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, where = line.split(":", 2)
            if controllers == "":
                candidates.insert(0, (root / where.lstrip("/") / "cpu.max", None))
            elif "cpu" in controllers.split(","):
                for base in (root / "cpu", root / "cpu,cpuacct"):
                    candidates.append((base / where.lstrip("/") / "cpu.cfs_quota_us", base / where.lstrip("/") / "cpu.cfs_period_us"))
                    candidates.append((base / "cpu.cfs_quota_us", base / "cpu.cfs_period_us"))
    except (OSError, ValueError):
        pass
    for quota_file, period_file in candidates:
        try:
            if period_file is None:
                quota, period = quota_file.read_text().split()[:2]
            else:
                quota, period = quota_file.read_text().strip(), period_file.read_text().strip()
            if quota in ("max", "-1"):
                return None
            return int(quota) / int(period)
        except (OSError, ValueError):
            continue
    return None


def _unique_layouts(layouts: list[PromptLayout]) -> list[PromptLayout]:
    seen: dict[tuple, PromptLayout] = {}
    for layout in layouts:
        seen.setdefault((layout.id, layout.api or "", layout.variant), layout)
    return sorted(seen.values(), key=lambda lt: (lt.site.filename, lt.site.start))
