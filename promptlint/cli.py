"""The command line: a thin click shell over `promptlint.api`.

Exit codes (README "Usage"): 0 when no finding at or above `--fail-on` remains, 1 when
one does, 2 for usage, configuration or internal errors.
"""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import click

from . import __version__
from .api import check as run_check, exit_code
from .report.fixes import fix_hint, fix_list, severity_hint
from .source import line_count
from .config import ConfigError, find_config, load_settings
from .cli_output import (FORMATS, ProgressBar, check_targets, echo_err, emit, fail, render, split_selectors,
                         use_color, warn_html_terminal)


class _Commands(click.Group):
    """The command group; `trace` (and what it imports) is loaded only when it runs or is listed."""

    def list_commands(self, ctx):
        return sorted({*super().list_commands(ctx), "trace"})

    def get_command(self, ctx, name):
        if name == "trace" and name not in self.commands:
            from .trace.command import trace_command
            self.add_command(trace_command)
        return super().get_command(ctx, name)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="promptlint")
def main() -> None:
    """Find what breaks LLM prompt caching in your code."""
    from .workers import limit_memory
    limit_memory()  # the analysis in this process too (one file, `--jobs 1`): an out-of-memory file is a PRM001


def _stdin_paths(paths: list[Path], stdin_filename: str | None) -> tuple[list[Path], dict | None]:
    """Paths with `-` replaced by `--stdin-filename`, and the overlay holding stdin's text."""
    reads_stdin = any(str(p) == "-" for p in paths) or (stdin_filename is not None and not paths)
    if not reads_stdin:
        if stdin_filename is not None:
            fail("--stdin-filename names the text read from stdin: pass `-` as the path")
        return paths, None
    if stdin_filename is None:
        fail("reading stdin (`-`) needs --stdin-filename NAME: the name gives its kind and config")
    name = Path(stdin_filename)
    stream = getattr(sys.stdin, "buffer", None)
    data = stream.read() if stream is not None else sys.stdin.read().encode("utf-8")
    from .source import SourceError, decode_python, decode_text
    try:
        text = decode_python(data) if name.suffix.lower() in (".py", ".pyi") else decode_text(data)
    except SourceError as exc:
        fail(f"stdin ({stdin_filename}): {exc}")
    return [name if str(p) == "-" else p for p in paths] or [name], {name: text}


class _EnvOption(click.Option):
    """An option that may come from an environment variable: a bad value read from the variable
    names the variable, not the option the user never typed."""

    def get_error_hint(self, ctx):
        from click.core import ParameterSource
        if ctx is not None and self.envvar and ctx.get_parameter_source(self.name) is ParameterSource.ENVIRONMENT:
            return f"environment variable {self.envvar}"
        return super().get_error_hint(ctx)


def _options(*decorators):
    """One decorator applying click options in the order given (as they are listed in --help)."""
    def apply(function):
        for decorator in reversed(decorators):
            function = decorator(function)
        return function
    return apply


_RULES_HELP = "codes, prefixes (PRM1), names or ALL; repeatable, or comma-separated"

#: The options `check` and `fix` share, with the same meaning and help.
_COMMON = _options(
    click.option("--output-format", type=click.Choice(FORMATS), default=None, envvar="PROMPTLINT_OUTPUT_FORMAT", cls=_EnvOption,
                 help="Report format (also PROMPTLINT_OUTPUT_FORMAT)."),
    click.option("--select", multiple=True, metavar="RULES", help=f"Rules to check: {_RULES_HELP}."),
    click.option("--ignore", multiple=True, metavar="RULES", help=f"Rules to skip: {_RULES_HELP}."),
    click.option("--extend-select", multiple=True, metavar="RULES",
                 help="Rules to add to the selection (of the config file or --select)."),
    click.option("--fail-on", type=click.Choice(["info", "warning", "error"]), default=None,
                 help="Lowest severity that makes the exit code 1 (default: warning)."),
    click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain (errors still exit 2)."),
    click.option("--config", "config_file", type=click.Path(path_type=Path, dir_okay=False),
                 help="Use this config file (promptlint.toml or pyproject.toml)."),
    click.option("--isolated", is_flag=True, help="Ignore every config file."),
    click.option("--target", "targets", multiple=True, metavar="PROVIDER:MODEL",
                 help="Model to estimate for prompts whose model is not known statically (repeatable)."),
    click.option("--output-file", type=click.Path(path_type=Path, dir_okay=False),
                 help="Write the report (with --diff, the diff) to this file instead of stdout (never coloured)."),
    click.option("--statistics", is_flag=True, help="Show the number of findings per rule (that remain, when fixing)."),
    click.option("--show-fixes", is_flag=True, help="List the fixes: those applied when fixing, else those available."),
    click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto",
                 help="Colour the text report: auto (a terminal, unless NO_COLOR; FORCE_COLOR forces it), always, "
                      "never."),
    click.option("--force-exclude", is_flag=True, default=None,
                 help="Apply `exclude` to files named on the command line too (pre-commit passes names)."),
    click.option("--docs-url", metavar="URL", envvar="PROMPTLINT_DOCS_URL", cls=_EnvOption,
                 help="Where your team hosts promptlint's docs/rules.md: SARIF links each rule there."),
    click.option("--no-cache", is_flag=True, help="Analyse every file again; read and write no cache."),
    click.option("--cache-dir", type=click.Path(path_type=Path, file_okay=False), envvar="PROMPTLINT_CACHE_DIR", cls=_EnvOption,
                 help="The cache folder (also PROMPTLINT_CACHE_DIR; default: .promptlint_cache in the folder of the "
                      "configuration file, else the current folder)."),
    click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
                 help="Worker processes (default: the CPUs this process may use)."),
    click.option("--quiet", "-q", is_flag=True,
                 help="Print the findings only: no summary line, no fix hint or count, no progress bar."),
)


@main.command(short_help="Lint files and folders (default: the current folder).")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--fix", is_flag=True, help="Apply safe fixes, then report what remains (as `promptlint fix`).")
@click.option("--unsafe-fixes", is_flag=True, help="With --fix or --diff, apply unsafe fixes too.")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff and write nothing (exit 1 if any).")
@_COMMON
@click.option("--baseline", type=click.Path(path_type=Path, dir_okay=False),
              help="Report only findings not recorded in this baseline file.")
@click.option("--write-baseline", type=click.Path(path_type=Path, dir_okay=False),
              help="Record the current findings in this baseline file and exit 0.")
@click.option("--diff-base", metavar="REF",
              help="Report only findings on lines changed since the merge base of git REF and HEAD "
                   "(as `git diff REF...`); `A...B` and `A..B` work as in git diff.")
@click.option("--stdin-filename", metavar="PATH",
              help="Lint the text read from stdin (path `-`) as if it were this file (editors' unsaved buffers).")
def check(paths, output_format, select, ignore, fail_on, exit_zero, extend_select, config_file,
          isolated, output_file, statistics, baseline, write_baseline, diff_base, fix=False,
          unsafe_fixes=False, diff=False, targets=(), stdin_filename=None, color="auto",
          show_fixes=False, force_exclude=None, docs_url=None, no_cache=False, cache_dir=None, jobs=None,
          quiet=False):
    """Lint PATHS (files or folders; default: the current folder; `-` reads stdin)."""
    from .baseline import BaselineError, changed_lines, filter_baseline, filter_changed
    from .baseline import write_baseline as save_baseline
    paths, overlays = _stdin_paths(list(paths), stdin_filename)
    paths = paths or [Path(".")]
    if overlays:  # stdin's text stands in for the file until the command ends: the report's excerpts,
        from .source import overlaid  # baseline fingerprints and --diff-base rows are read from it too
        click.get_current_context().with_resource(overlaid(overlays))
    if fix or diff:
        if overlays:
            fail("--stdin-filename cannot be combined with fixing: fix the file itself")
        refused = [name for name, value in (("--baseline", baseline), ("--diff-base", diff_base),
                                            ("--write-baseline", write_baseline)) if value]
        if refused:
            fail(f"{', '.join(refused)} cannot be combined with fixing: fixes apply to every finding; "
                  "run `promptlint check` with it after fixing")
    try:
        config = config_file or (None if isolated else find_config(paths))
        settings = load_settings(config, isolated=isolated, hierarchical=config_file is None, cli_overrides={
            "select": split_selectors(select), "ignore": split_selectors(ignore),
            "extend_select": split_selectors(extend_select),
            "fail_on": fail_on, "output_format": output_format,
            "targets": list(targets) or None, "force_exclude": force_exclude, "docs_url": docs_url,
        })
        check_targets(settings.targets, "--target" if targets else f"`targets` in {_config_name(settings)}")
    except ConfigError as exc:
        fail(str(exc))
    if output_file is not None and not output_file.absolute().parent.is_dir():
        fail(f"--output-file {output_file}: the folder does not exist")
    fmt = settings.output_format
    colored = output_file is None and fmt == "text" and use_color(color, sys.stdout.isatty())
    if fix or diff:  # `unsafe-fixes = true` in the config turns unsafe fixes on as the flag does
        from .cache import default_dir
        cache = None if no_cache else (cache_dir or default_dir(settings.config_path))
        if diff and cache is not None and not Path(cache).is_dir():
            cache = None  # --diff writes nothing: it reads a cache that a check made, never starts one
        sys.exit(_fix_mode(paths, settings, unsafe_fixes or settings.unsafe_fixes, diff, fmt, exit_zero, output_file,
                           statistics, show_fixes, colored, jobs, cache, quiet))
    try:
        bar = ProgressBar(enabled=not quiet)
        try:
            from .cache import default_dir
            cache = None if no_cache else (cache_dir or default_dir(settings.config_path))
            report = run_check(paths, settings, jobs=jobs, progress=bar, overlays=overlays, cache_dir=cache,
                               project=True, warn=echo_err)
        finally:
            bar.close()
        if report.files == 0:
            echo_err(_nothing_found(paths, settings.force_exclude))
        if write_baseline:
            try:
                count = save_baseline(report, write_baseline)
            except OSError as exc:
                fail(f"cannot write baseline {write_baseline}: {exc.strerror or exc}")
            echo_err(f"wrote {count} finding(s) to {write_baseline}")
            sys.exit(2 if report.errors else 0)
        if baseline:
            found = len(report.diagnostics)
            report = filter_baseline(report, baseline)
            echo_err(f"{found - len(report.diagnostics)} finding(s) baselined by {baseline}")
        if diff_base:
            report = filter_changed(report, changed_lines(diff_base, paths))
    except (FileNotFoundError, BaselineError, ConfigError) as exc:
        fail(str(exc))
    if statistics:
        from .report import statistics as stats
        output = stats.render(report, "json" if fmt == "json" else "text")
        if fmt == "json":  # stdout keeps only the JSON payload; the per-target table goes to stderr
            click.echo(stats.render_targets(report), err=True, nl=False)
    else:
        output = render(report, fmt, colored, settings.docs_url, quiet=quiet)
        if fmt in ("text", "concise") and not quiet:  # as ruff: the hint ends the report, on stdout
            hint = fix_hint(report.diagnostics) + (severity_hint(report.diagnostics, settings.fail_on)
                                                   if fmt == "text" else "")
            output += ("\n" if hint and output and not output.endswith("\n") else "") + hint
    if show_fixes:
        click.echo(fix_list(report.diagnostics, "Fixes available"), err=True, nl=False)
    warn_html_terminal(fmt, output_file, statistics)
    emit(output, output_file, colored)
    for error in report.errors:
        echo_err(f"error: {error}")
    if exit_zero and not report.errors:
        sys.exit(0)
    sys.exit(exit_code(report, settings.fail_on))


def _nothing_found(paths: list[Path], force_exclude: bool) -> str:
    """The warning of a run that found no file to check: what it looks for, and why a file named
    on the command line may not count (only when one was named)."""
    named = [p for p in paths if not p.is_dir()]
    why = ""
    if named:
        why = (" (named files of other kinds, such as a README, are skipped"
               + ("; so are excluded ones, with --force-exclude)" if force_exclude else ")"))
    from .report.names import listed
    where = listed([str(p) for p in paths])
    return f"warning: no Python, template, prompt or config file found to check in {where}{why}"


def _config_name(settings) -> str:
    """The configuration file as messages name it ("the configuration" without one)."""
    if settings.config_path is None:
        return "the configuration"
    from .paths import display_name
    return display_name(settings.config_path)


def _fix_mode(paths, settings, unsafe: bool, diff: bool, fmt: str, exit_zero: bool, output_file,
              statistics: bool = False, show_fixes: bool = False, colored: bool = False,
              jobs: int | None = None, cache_dir: Path | None = None, quiet: bool = False) -> int:
    """`check --fix` / `--diff`: fix (or show the diff), report what remains; the exit code.
    A file or folder that cannot be written is a message and exit 2. `quiet`: the findings (or
    the diff) and errors only, no summary line and no count of fixes."""
    from .fix import summary
    from .api import fix as run_fix
    try:
        run = run_fix(paths, settings, unsafe=unsafe, write=not diff, jobs=jobs, cache_dir=cache_dir, warn=echo_err)
    except (FileNotFoundError, ConfigError) as exc:
        echo_err(str(exc))
        return 2
    except OSError as exc:
        echo_err(f"cannot write {exc.filename or 'a fixed file'}: {exc.strerror or exc}; "
                  "the files written before it keep their fixes")
        return 2
    for error in run.errors:
        echo_err(error)
    for error in run.write_errors:
        echo_err(error)
    counts = summary(run.fixed, len(run.report.diagnostics), run.hidden_unsafe(unsafe), run.surfaced(unsafe))
    if show_fixes:
        applied = [d for f in run.files for d in f.result.applied]
        click.echo(fix_list(applied, "Would fix" if diff else "Fixed"), err=True, nl=False)
    if diff:
        emit("".join(f.diff for f in run.changed), output_file)
        if not quiet:
            echo_err(f"would change {len(run.changed)} file(s): {counts}")
        for error in run.report.errors:
            echo_err(f"error: {error}")
        return 2 if run.report.errors else 1 if run.changed else 0
    if statistics:
        from .report import statistics as stats
        output = stats.render(run.report, "json" if fmt == "json" else "text")
    else:
        output = render(run.report, fmt, colored, settings.docs_url, quiet=quiet)
    emit(output, output_file, colored)
    if not quiet:
        echo_err(counts)
    for error in run.report.errors:  # as `check` prints them
        echo_err(f"error: {error}")
    if run.report.errors or run.write_errors:
        return 2
    return 0 if exit_zero else exit_code(run.report, settings.fail_on)


@main.command("fix", short_help="Apply fixes (= check --fix); --unsafe-fixes for the unsafe ones.")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--unsafe-fixes", is_flag=True, help="Apply unsafe fixes too (they reorder prompt content).")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff and write nothing (exit 1 if any).")
@_COMMON
@click.option("--baseline", "refused_baseline", hidden=True, default=None)
@click.option("--write-baseline", "refused_write_baseline", hidden=True, default=None)
@click.option("--diff-base", "refused_diff_base", hidden=True, default=None)
@click.pass_context
def fix_command(ctx, paths, unsafe_fixes, diff, refused_baseline, refused_write_baseline, refused_diff_base,
                **options):
    """Apply fixes to PATHS (= check --fix): the safe ones, and the unsafe ones too with
    --unsafe-fixes. The options are those of `check`, but for the ones that report only part of
    the findings (--baseline, --write-baseline, --diff-base) or read stdin."""
    for option, given in (("--baseline", refused_baseline), ("--write-baseline", refused_write_baseline),
                          ("--diff-base", refused_diff_base)):
        if given is not None:
            fail(f"{option} cannot be combined with fixing: `promptlint fix` applies to every finding "
                  f"(fix first, then run `promptlint check {option} ...`)")
    ctx.invoke(check, paths=paths, fix=True, unsafe_fixes=unsafe_fixes, diff=diff, **options)


@main.command(short_help="Draw a prompt: segments, breakpoints, cached tokens.")
@click.argument("location", metavar="PATH[:LINE[:COLUMN]]")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", help="Drawing or JSON.")
@click.option("--target", "targets", multiple=True, metavar="PROVIDER:MODEL",
              help="Model to estimate for, instead of the prompt's own (repeatable).")
@click.option("--config", "config_file", type=click.Path(path_type=Path, dir_okay=False),
              help="Use this config file (promptlint.toml or pyproject.toml), as `check --config`.")
@click.option("--isolated", is_flag=True, help="Ignore every config file, as `check --isolated`.")
@click.option("--no-cache", is_flag=True, help="Analyse without reading or writing the cache.")
@click.option("--cache-dir", type=click.Path(path_type=Path, file_okay=False), envvar="PROMPTLINT_CACHE_DIR",
              cls=_EnvOption, help="The cache folder, as `check --cache-dir` (also PROMPTLINT_CACHE_DIR).")
def explain(location, output_format, targets, no_cache, config_file=None, isolated=False, cache_dir=None):
    """Draw each prompt of PATH (or the one at PATH:LINE, or of the finding there; a finding's PATH:LINE:COLUMN as `check` prints it works too): segments, breakpoints, cacheable prefix, tokens."""
    import json

    from .profiles import apply_overrides, parse_target
    from .report.explain import explain_json, nearby_prompts, parse_location, render_explain, select_layouts
    from .api import display_path
    from .discovery import file_kind
    from .scope import surroundings
    path, line = parse_location(location)
    target = Path(path)
    if not target.exists():
        fail(f"{path}: no such file or directory")
    if line is not None:  # the arguments are checked before any analysis (seconds on a large package)
        if target.is_dir():
            fail(f"{location}: {path} is a folder; a line is a line of a file (FILE:LINE)")
        rows = line_count(target)
        if rows is not None and line > rows:
            fail(f"{path}:{line}: the file has {rows} line{'s' if rows != 1 else ''}")
    # a template or prompt file: check the project around it too, to find the calls that render it
    roots, (around, note) = [target], surroundings(target) if target.is_file() else ([target], None)
    if target.is_file() and file_kind(target) != "python":
        roots = around
        if note:  # a loose file: the files beside it, not the tree under the current folder
            echo_err(note)
    try:
        config = config_file or (None if isolated else find_config([target]))
        settings = load_settings(config, isolated=isolated, cli_overrides={})
        apply_overrides(settings.profiles)
        chosen = [parse_target(t) for t in targets]
        defaults = [parse_target(t) for t in settings.targets]
        from .cache import default_dir
        cache = None if no_cache else (cache_dir or default_dir(settings.config_path))  # as `check`: warm runs are fast
        # the folders it reads around the file are its module roots: the file is analysed as a
        # check of them analyses it, with the same cache entries (a check before it makes it warm)
        report = run_check(roots, settings, cache_dir=cache, module_roots=[d for d in around if d.is_dir()])
    except (ConfigError, ValueError, FileNotFoundError) as exc:
        echo_err(str(exc))
        sys.exit(2)
    filename = display_path(target) if target.is_file() else None
    layouts = select_layouts(report.prompts, line, filename, report.diagnostics)
    if line is not None and roots == [target] and file_kind(target) == "python" and \
            not any(lay.source == "python-call" for lay in layouts):
        # a line of prompt text built here and sent elsewhere (a helper): the findings located on
        # it name their prompt, which the files around this one may send
        try:
            if note:
                echo_err(note)
            wider = run_check(around, settings, cache_dir=cache)
        except (ConfigError, ValueError, FileNotFoundError) as exc:
            echo_err(str(exc))
            sys.exit(2)
        layouts = select_layouts(wider.prompts, line, filename, wider.diagnostics) or layouts
        report.diagnostics.extend(d for d in wider.diagnostics if d not in report.diagnostics)
    said = []
    if not layouts:  # a framework's send method (`agent.run_sync(q)`): the prompt of the object it is called on
        from .python.unread_calls import receivers_prompts
        layouts, said = receivers_prompts(report.prompts, target, filename, line)
        for note in said:
            echo_err(note)
    if not layouts:
        unbound = [d for d in report.diagnostics if line is not None and d.span.start.row == line
                   and d.span.filename == filename]
        if unbound:  # a finding of no one prompt (a conversation cut in a helper, a tool set changed)
            for d in unbound:
                click.echo(f"{d.span.filename}:{d.span.start.row}:{d.span.start.column}: {d.code} [{d.severity.value}] "
                           f"{d.message}")
                for rel in d.related:
                    click.echo(f"  = related: {rel.span.filename}:{rel.span.start.row}: {rel.message}")
            if all(d.code == "PRM001" for d in unbound):  # a file that could not be read or parsed
                click.echo("This file could not be read or parsed, so no prompt in it was analysed: "
                           "there is no prompt layout to draw.")
            else:
                click.echo("This finding is judged where the code changes the request, not on one prompt: "
                           "there is no prompt layout to draw.")
            return
        else:
            echo_err(f"no prompt found at {location}{nearby_prompts(report.prompts, filename, line)}")
            from .python.unread_calls import at_line  # a call named like a request, not read as one: why
            from .templates.unread import why_not_read_file  # a prompt or config file: why its text is none
            for said in [*at_line(target, filename, line), *why_not_read_file(target, line, settings)]:
                echo_err(said)
        sys.exit(2)
    if output_format == "json":
        click.echo(json.dumps(explain_json(layouts, chosen, defaults), indent=2, ensure_ascii=False))
        return
    if line is not None and layouts and not said and not any(lay.site.start.row == line and lay.site.filename == filename
                                                for lay in layouts):  # drawn under the lines where they are built
        sites = ", ".join(f"{lay.site.filename}:{lay.site.start.row}" for lay in layouts)
        echo_err(f"{path}:{line} is a line of the prompt{'s' if len(layouts) > 1 else ''} drawn below ({sites})")
    color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    click.echo(render_explain(layouts, shutil.get_terminal_size().columns if color else 100, color=color, targets=chosen,
                              default_targets=defaults, crop=sys.stdout.isatty()),
               nl=False)
    from .python.unread_calls import unread_parts  # a request read with no part: what its arguments are
    for said in (unread_parts(layouts, target, filename) if target.is_file() else []):
        click.echo(said)


@main.command("rule", short_help="Show one rule's documentation (PRM102 or its name).")
@click.argument("code")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Text or JSON.")
def rule_command(code, output_format):
    """Show the documentation of rule CODE (a code such as PRM102 or a name)."""
    from .report.rules import render_rule
    from .rules import ALL_RULES, rule_by_code
    found = rule_by_code(code)
    if found is None:
        import difflib
        near = difflib.get_close_matches(code, [r.code for r in ALL_RULES] + [r.name for r in ALL_RULES], 1)
        echo_err(f"unknown rule `{code}`" + (f"; did you mean `{near[0]}`?" if near else ""))
        sys.exit(2)
    click.echo(render_rule(found, output_format), nl=False)


@main.command("rules", short_help="List every rule: code, name, severity, fix.")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="A table or JSON.")
def rules_command(output_format):
    """List every rule: code, name, default severity and fix availability."""
    from .report.rules import render_rules
    from .rules import ALL_RULES
    click.echo(render_rules(ALL_RULES, output_format), nl=False)


@main.command("models", short_help="List the models --target accepts.")
@click.argument("provider", required=False)
def models_command(provider):
    """List the known models (for --target PROVIDER:MODEL): per provider, each profile row with
    its model-name patterns and minimum cacheable tokens."""
    from .profiles import active_profiles, canonical_provider
    wanted = canonical_provider(provider) if provider else None
    rows = [p for p in active_profiles() if wanted is None or p.provider == wanted]
    if not rows:
        fail(f"unknown provider `{provider}`; `promptlint models` lists every provider")
    for row in rows:
        click.echo(f"{row.provider}  {', '.join(row.model_patterns)}  ({row.minimum}; row {row.name})")


@main.command("server", short_help="Run the language server (for editors).")
@click.option("--debounce-ms", type=click.IntRange(min=0), default=250, show_default=True,
              help="Quiet time after a change before the unsaved buffers are checked again.")
def server_command(debounce_ms):
    """Run the language server on stdin/stdout (for editors; see docs/editors.md)."""
    from .lsp import serve
    serve(debounce_ms / 1000)


if __name__ == "__main__":  # pragma: no cover
    main()
