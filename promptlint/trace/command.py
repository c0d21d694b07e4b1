"""The `promptlint trace` command (registered on the CLI group by `promptlint.cli`).

Exit codes as `check`: 0 when no divergence at or above `--fail-on` (default: warning, i.e. one
that costs cached tokens) was found, 1 when one was, 2 for usage, configuration or input errors
(the log cannot be opened, a path does not exist). Malformed lines are reported on stderr with
their line number and skipped; they do not change the exit code.
"""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import click

from ..config import ConfigError, find_config, load_settings
from ..model import Severity
from ..source import SourceError

FORMATS = ["text", "json", "sarif"]
_STDERR_ERRORS = 20  # skipped lines echoed on stderr (all are in the report)


def _echo_err(message: str) -> None:
    click.echo(f"promptlint: {message}", err=True)


def _render(report, fmt: str) -> str:
    if fmt == "json":
        from .json_report import render
        return render(report)
    if fmt == "sarif":
        from .sarif_report import render
        return render(report)
    from .text_report import render
    color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    return render(report, color=color, width=shutil.get_terminal_size().columns if color else 100)


def exit_code(report, fail_on: str) -> int:
    """1 when a divergence at or above `fail_on` was found, else 0."""
    threshold = Severity(fail_on).rank
    return 1 if any(Severity(d.severity).rank >= threshold for d in report.divergences) else 0


@click.command("trace", short_help="Map logged requests to the code that breaks their prefix.")
@click.argument("requests", metavar="REQUESTS", type=click.Path(path_type=Path, allow_dash=True))
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--output-format", type=click.Choice(FORMATS), default="text", show_default=True, help="Report format.")
@click.option("--fail-on", type=click.Choice(["info", "warning", "error"]), default=None,
              help="Lowest severity that makes the exit code 1 (default: warning: a divergence that costs cached tokens).")
@click.option("--show-text", is_flag=True, help="Show the request text around each divergence (redacted by default).")
@click.option("--output-file", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the report to this file instead of stdout.")
@click.option("--config", "config_file", type=click.Path(path_type=Path, dir_okay=False),
              help="Use this config file for the static analysis of PATHS.")
@click.option("--isolated", is_flag=True, help="Ignore every config file.")
@click.option("--no-cache", is_flag=True, help="Analyse PATHS again; read and write no cache (as `check`).")
@click.option("--cache-dir", type=click.Path(path_type=Path, file_okay=False), envvar="PROMPTLINT_CACHE_DIR",
              help="The cache folder of the static analysis (also PROMPTLINT_CACHE_DIR; default: "
                   ".promptlint_cache in the folder of the configuration file, else the current folder, "
                   "as `check`).")
def trace_command(requests, paths, output_format, fail_on, show_text, output_file, config_file, isolated,
                  no_cache=False, cache_dir=None):
    """Trace logged request bodies (REQUESTS, JSONL; - for stdin) back to the code in PATHS.

    Groups the requests by prompt, finds where each one stops repeating the prefix it should
    share (the previous request of its conversation, or the tools and system text of the
    others), and maps each divergence to the line of code whose value or text changed, with
    the cached tokens it costs. Offline: nothing is sent anywhere.
    """
    from ..api import check
    from .engine import TraceOptions, trace

    paths = list(paths) or [Path(".")]
    try:
        config = config_file or (None if isolated else find_config(paths))
        settings = load_settings(config, isolated=isolated, cli_overrides={"fail_on": fail_on})
    except ConfigError as exc:
        _echo_err(str(exc))
        sys.exit(2)
    if output_file is not None and not output_file.absolute().parent.is_dir():
        _echo_err(f"--output-file {output_file}: the folder does not exist")
        sys.exit(2)
    from ..cache import default_dir
    try:
        static = check(paths, settings, cache_dir=None if no_cache else (cache_dir or default_dir(settings.config_path)))
    except FileNotFoundError as exc:
        _echo_err(str(exc))
        sys.exit(2)
    if not static.prompts:
        _echo_err("warning: no prompt found in the analysed paths: divergences cannot be mapped to the code")
    try:
        report = trace(requests, static.prompts, static.diagnostics, TraceOptions(show_text=show_text))
    except SourceError as exc:
        _echo_err(f"{requests}: {exc}")
        sys.exit(2)
    if str(requests) == "-":
        report.requests_file = "<stdin>"
    if output_format != "text":  # the text report lists them itself
        for line, message in report.errors[:_STDERR_ERRORS]:
            _echo_err(f"{report.requests_file}:{line}: skipped: {message}")
    if output_format != "text" and report.skipped > _STDERR_ERRORS:
        _echo_err(f"{report.skipped - _STDERR_ERRORS:,} more skipped line(s): see the report")
    output = _render(report, output_format)
    if output_file:
        output_file.write_text(output, encoding="utf-8")
    else:
        click.echo(output, nl=False)
    sys.exit(exit_code(report, settings.fail_on))
