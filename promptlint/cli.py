"""The command line: a thin click shell over `promptlint.api`.

Exit codes (DESIGN.md "Command line"): 0 when no finding at or above `--fail-on` remains, 1 when
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
from .config import ConfigError, find_config, load_settings

FORMATS = ["text", "concise", "json", "sarif", "github", "gitlab"]


def _echo_err(message: str) -> None:
    click.echo(f"promptlint: {message}", err=True)


def _render(report, fmt: str) -> str:
    if fmt == "json":
        from .report import json as renderer
        return renderer.render(report)
    if fmt == "concise":
        from .report import concise
        return concise.render(report)
    if fmt in ("sarif", "github", "gitlab"):
        from importlib import import_module
        return import_module(f".report.{fmt}", __package__).render(report)
    from .report import text
    color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    return text.render(report, color=color, width=shutil.get_terminal_size().columns if color else 100)


def _split(values) -> list[str] | None:
    """Selectors given as repeated options and/or comma-separated lists (`--ignore PRM1,PRM3`)."""
    out = [v.strip() for value in values for v in value.split(",") if v.strip()]
    return out or None


def _check_targets(targets) -> None:
    """Raise ConfigError for a `targets` entry that is not PROVIDER:MODEL of a known provider."""
    from .profiles import parse_target
    for target in targets:
        try:
            parse_target(target)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None


class _ProgressBar:
    """A transient rich progress bar on stderr for runs over many files, only when stderr is a
    terminal (never in CI logs or when output is piped)."""

    MIN_FILES = 100

    def __init__(self):
        self.bar = None

    def __call__(self, total: int):
        if not sys.stderr.isatty() or total < self.MIN_FILES:
            return None
        from rich.console import Console
        from rich.progress import Progress
        self.bar = Progress(console=Console(stderr=True), transient=True)
        task = self.bar.add_task("Checking", total=total)
        self.bar.start()
        return lambda n: self.bar.advance(task, n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="promptlint")
def main() -> None:
    """Find what breaks LLM prompt caching in your code."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--output-format", type=click.Choice(FORMATS), default=None, help="Report format.")
@click.option("--select", multiple=True, help="Rules to check: codes, prefixes (PRM1), names or ALL.")
@click.option("--ignore", multiple=True, help="Rules to skip: codes, prefixes or names.")
@click.option("--fail-on", type=click.Choice(["info", "warning", "error"]), default=None,
              help="Lowest severity that makes the exit code 1 (default: warning).")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain.")
@click.option("--extend-select", multiple=True, help="Rules to add to the selection.")
@click.option("--config", "config_file", type=click.Path(path_type=Path, dir_okay=False),
              help="Use this config file (promptlint.toml or pyproject.toml).")
@click.option("--isolated", is_flag=True, help="Ignore every config file.")
@click.option("--output-file", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the report to this file instead of stdout.")
@click.option("--statistics", is_flag=True, help="Show the number of findings per rule.")
@click.option("--baseline", type=click.Path(path_type=Path, dir_okay=False),
              help="Report only findings not recorded in this baseline file.")
@click.option("--write-baseline", type=click.Path(path_type=Path, dir_okay=False),
              help="Record the current findings in this baseline file and exit 0.")
@click.option("--diff-base", metavar="REF", help="Report only findings on lines changed since git REF.")
@click.option("--fix", is_flag=True, help="Apply safe fixes, then report what remains.")
@click.option("--unsafe-fixes", is_flag=True, help="With --fix or --diff, apply unsafe fixes too.")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff and write nothing (exit 1 if any).")
@click.option("--target", "targets", multiple=True, metavar="PROVIDER:MODEL",
              help="Model to estimate for prompts whose model is not known statically (repeatable).")
def check(paths, output_format, select, ignore, fail_on, exit_zero, extend_select, config_file,
          isolated, output_file, statistics, baseline, write_baseline, diff_base, fix=False,
          unsafe_fixes=False, diff=False, targets=()):
    """Lint PATHS (files or folders; default: the current folder)."""
    from .baseline import BaselineError, changed_lines, filter_baseline, filter_changed
    from .baseline import write_baseline as save_baseline
    paths = list(paths) or [Path(".")]
    try:
        config = config_file or (None if isolated else find_config(paths))
        settings = load_settings(config, isolated=isolated, cli_overrides={
            "select": _split(select), "ignore": _split(ignore),
            "extend_select": _split(extend_select),
            "fail_on": fail_on, "output_format": output_format,
            "targets": list(targets) or None,
        })
        _check_targets(settings.targets)
    except ConfigError as exc:
        _echo_err(str(exc))
        sys.exit(2)
    if output_file is not None and not output_file.absolute().parent.is_dir():
        _echo_err(f"--output-file {output_file}: the folder does not exist")
        sys.exit(2)
    fmt = settings.output_format
    if fix or diff:
        sys.exit(_fix_mode(paths, settings, unsafe_fixes, diff, fmt, exit_zero, output_file))
    try:
        bar = _ProgressBar()
        try:
            report = run_check(paths, settings, progress=bar)
        finally:
            bar.close()
        if report.files == 0:
            _echo_err("warning: no Python, template, prompt or config file found to check")
        if write_baseline:
            count = save_baseline(report, write_baseline)
            _echo_err(f"wrote {count} finding(s) to {write_baseline}")
            sys.exit(0)
        if baseline:
            report = filter_baseline(report, baseline)
        if diff_base:
            report = filter_changed(report, changed_lines(diff_base, paths))
    except (FileNotFoundError, BaselineError) as exc:
        _echo_err(str(exc))
        sys.exit(2)
    if statistics:
        from .report import statistics as stats
        output = stats.render(report, "json" if fmt == "json" else "text")
        if fmt == "json":  # stdout keeps only the JSON payload; the per-target table goes to stderr
            click.echo(stats.render_targets(report), err=True, nl=False)
    else:
        output = _render(report, fmt)
    if output_file:
        output_file.write_text(output, encoding="utf-8")
    else:
        click.echo(output, nl=False)
    if exit_zero:
        sys.exit(0)
    sys.exit(exit_code(report, settings.fail_on))


def _fix_mode(paths, settings, unsafe: bool, diff: bool, fmt: str, exit_zero: bool, output_file) -> int:
    """`check --fix` / `--diff`: fix (or show the diff), report what remains; the exit code: 2
    when a fixed file or the report could not be written (each said in one line), else as check."""
    from .fix import summary
    from .fixer import fix_paths
    try:
        run = fix_paths(paths, settings, unsafe=unsafe, write=not diff)
    except FileNotFoundError as exc:
        _echo_err(str(exc))
        return 2
    except OSError as exc:  # a folder the walk or the fixer cannot use: a message, never a traceback
        _echo_err(f"promptlint: {exc.filename or ''}: {exc.strerror or exc}" if exc.filename else f"promptlint: {exc}")
        return 2
    for error in run.errors:
        _echo_err(error)
    for error in run.write_errors:
        _echo_err(error)
    counts = summary(run.fixed, len(run.report.diagnostics), run.hidden_unsafe(unsafe))
    if diff:
        click.echo("".join(f.diff for f in run.changed), nl=False)
        _echo_err(f"would change {len(run.changed)} file(s): {counts}")
        return 1 if run.changed else 0
    output = _render(run.report, fmt)
    if output_file:
        try:
            output_file.write_text(output, encoding="utf-8")
        except OSError as exc:
            _echo_err(f"--output-file {output_file}: cannot write: {exc.strerror or exc}")
            return 2
    else:
        click.echo(output, nl=False)
    _echo_err(counts)
    if run.write_errors:
        return 2
    return 0 if exit_zero else exit_code(run.report, settings.fail_on)


@main.command("fix")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--unsafe-fixes", is_flag=True, help="Apply unsafe fixes too (they reorder prompt content).")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff and write nothing (exit 1 if any).")
@click.option("--output-format", type=click.Choice(FORMATS), default=None, help="Report format.")
@click.option("--select", multiple=True, help="Rules to fix: codes, prefixes (PRM1), names or ALL.")
@click.option("--ignore", multiple=True, help="Rules to skip: codes, prefixes or names.")
@click.option("--config", "config_file", type=click.Path(path_type=Path, dir_okay=False),
              help="Use this config file (promptlint.toml or pyproject.toml).")
@click.option("--isolated", is_flag=True, help="Ignore every config file.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain.")
@click.pass_context
def fix_command(ctx, paths, unsafe_fixes, diff, output_format, select, ignore, config_file, isolated, exit_zero):
    """Apply fixes to PATHS (= check --fix): safe ones, unsafe ones with --unsafe-fixes."""
    ctx.invoke(check, paths=paths, fix=True, unsafe_fixes=unsafe_fixes, diff=diff,
               output_format=output_format, select=select, ignore=ignore, config_file=config_file,
               isolated=isolated, exit_zero=exit_zero)


@main.command()
@click.argument("location", metavar="PATH[:LINE]")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", help="Drawing or JSON.")
@click.option("--target", "targets", multiple=True, help="PROVIDER:MODEL to estimate for (repeatable).")
def explain(location, output_format, targets):
    """Draw each prompt of PATH (or the one at PATH:LINE): segments, breakpoints, cacheable prefix, tokens."""
    import json

    from .profiles import apply_overrides, parse_target
    from .report.explain import explain_json, parse_location, render_explain, select_layouts
    path, line = parse_location(location)
    try:
        settings = load_settings(find_config([Path(path)]), cli_overrides={})
        apply_overrides(settings.profiles)
        chosen = [parse_target(t) for t in targets]
        defaults = [parse_target(t) for t in settings.targets]
        report = run_check([Path(path)], settings)
    except (ConfigError, ValueError, FileNotFoundError) as exc:
        _echo_err(str(exc))
        sys.exit(2)
    layouts = select_layouts(report.prompts, line)
    if not layouts:
        _echo_err(f"no prompt found at {location}")
        sys.exit(2)
    if output_format == "json":
        click.echo(json.dumps(explain_json(layouts, chosen, defaults), indent=2, ensure_ascii=False))
        return
    color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    click.echo(render_explain(layouts, shutil.get_terminal_size().columns if color else 100, color=color, targets=chosen,
                              default_targets=defaults),
               nl=False)


@main.command("rule")
@click.argument("code")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text")
def rule_command(code, output_format):
    """Show the documentation of rule CODE (a code such as PRM102 or a name)."""
    from .report.rules import render_rule
    from .rules import ALL_RULES, rule_by_code
    found = rule_by_code(code)
    if found is None:
        import difflib
        near = difflib.get_close_matches(code, [r.code for r in ALL_RULES] + [r.name for r in ALL_RULES], 1)
        _echo_err(f"unknown rule `{code}`" + (f"; did you mean `{near[0]}`?" if near else ""))
        sys.exit(2)
    click.echo(render_rule(found, output_format), nl=False)


@main.command("rules")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text")
def rules_command(output_format):
    """List every rule: code, name, default severity and fix availability."""
    from .report.rules import render_rules
    from .rules import ALL_RULES
    click.echo(render_rules(ALL_RULES, output_format), nl=False)


if __name__ == "__main__":  # pragma: no cover
    main()
