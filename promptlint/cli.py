"""The command line: a thin click shell over `promptlint.api`.

Exit codes (DESIGN.md "Command line"): 0 when no finding at or above `--fail-on` remains, 1 when
one does, 2 for usage, configuration or internal errors.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from . import __version__
from .api import check as run_check, exit_code
from .config import ConfigError, find_config, load_settings

FORMATS = ["text", "concise", "json"]


def _echo_err(message: str) -> None:
    click.echo(f"promptlint: {message}", err=True)


def _render(report, fmt: str) -> str:
    if fmt == "json":
        from .report import json as renderer
        return renderer.render(report)
    if fmt == "concise":
        from .report import concise
        return concise.render(report)
    from .report import text
    color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    return text.render(report, color=color, width=click.get_terminal_size()[0] if color else 100)


def _progress_factory(total: int):
    """A rich progress bar on stderr for long runs, only when stderr is a terminal."""
    if not sys.stderr.isatty() or total < 200:
        return None, None
    from rich.console import Console
    from rich.progress import Progress
    progress = Progress(console=Console(stderr=True), transient=True)
    task = progress.add_task("Checking", total=total)
    progress.start()
    return progress, (lambda n: progress.advance(task, n))


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
def check(paths, output_format, select, ignore, fail_on, exit_zero):
    """Lint PATHS (files or folders; default: the current folder)."""
    paths = list(paths) or [Path(".")]
    try:
        config = find_config(paths)
        settings = load_settings(config, cli_overrides={
            "select": list(select) or None, "ignore": list(ignore) or None,
            "fail_on": fail_on, "output_format": output_format,
        })
    except ConfigError as exc:
        _echo_err(str(exc))
        sys.exit(2)
    fmt = settings.output_format
    try:
        report = run_check(paths, settings)
    except FileNotFoundError as exc:
        _echo_err(str(exc))
        sys.exit(2)
    click.echo(_render(report, fmt), nl=False)
    if exit_zero:
        sys.exit(0)
    sys.exit(exit_code(report, settings.fail_on))


if __name__ == "__main__":  # pragma: no cover
    main()
