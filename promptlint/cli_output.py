"""What the command line writes: reports rendered per `--output-format`, one-line errors on
stderr, colour choice, the progress bar, and checks of command-line values (selectors, targets).

Kept apart from `promptlint.cli` (the click commands) so that module stays the thin shell.
"""
from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import click

from .config import ConfigError

FORMATS = ["text", "concise", "json", "sarif", "github", "gitlab", "html"]


def echo_err(message: str) -> None:
    from .report.names import escape
    click.echo(f"promptlint: {escape(message)}", err=True)


def fail(message: str) -> None:
    """A usage, configuration or write error: one line on stderr, exit 2."""
    echo_err(message)
    sys.exit(2)


def use_color(choice: str, isatty: bool, environ=os.environ) -> bool:
    """Whether to emit ANSI styles: `always` / `never`, else (`auto`) NO_COLOR (set and not
    empty) turns them off, FORCE_COLOR (set and not empty) on, otherwise only on a terminal."""
    if choice != "auto":
        return choice == "always"
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    return isatty


def render(report, fmt: str, color: bool = False, docs_url: str | None = None, quiet: bool = False) -> str:
    from .report.names import printable
    report = printable(report)
    if fmt == "json":
        from .report import json as renderer
        return renderer.render(report)
    if fmt == "concise":
        from .report import concise
        return concise.render(report, summary_line=not quiet)
    if fmt == "sarif":
        from .report import sarif
        from .rules import ALL_RULES
        return sarif.render(report, rules=ALL_RULES, docs_url=docs_url)
    if fmt in ("github", "gitlab", "html"):
        from importlib import import_module
        return import_module(f".report.{fmt}", __package__).render(report)
    from .report import text
    width = shutil.get_terminal_size().columns if color else 100
    return text.render(report, color=color, width=width, summary_line=not quiet)


def warn_html_terminal(fmt: str, output_file: Path | None, statistics: bool = False,
                        isatty=None) -> None:
    """An HTML report bound for a terminal is written there all the same (as every format is:
    `> report.html` and pipes keep working), after a one-line note on stderr naming
    `--output-file`; a redirected stdout gets no note."""
    tty = sys.stdout.isatty() if isatty is None else isatty
    if fmt == "html" and output_file is None and not statistics and tty:
        echo_err("the HTML report is written to the terminal; to open it in a browser, write it to a file: "
                  "--output-file report.html")


def emit(output: str, output_file: Path | None, color: bool = False) -> None:
    """Write a report to `output_file` (UTF-8, never ANSI: the caller renders without colour)
    or stdout (`color`: keep ANSI styles even when stdout is no terminal, as `--color always`
    asks). An unwritable file is a message and exit 2."""
    if output_file is None:
        click.echo(output, nl=False, color=color or None)
        return
    try:
        output_file.write_text(output, encoding="utf-8", errors="backslashreplace")
    except OSError as exc:
        fail(f"cannot write --output-file {output_file}: {exc.strerror or exc}")


def split_selectors(values) -> list[str] | None:
    """Selectors given as repeated options and/or comma-separated lists (`--ignore PRM1,PRM3`)."""
    out = [v.strip() for value in values for v in value.split(",") if v.strip()]
    return out or None


def check_targets(targets, origin: str = "--target") -> None:
    """Raise ConfigError (one line, naming where the target was given, `origin`, and `promptlint
    models`) for a `targets` entry that is not PROVIDER:MODEL of a known provider, or whose model
    matches no row of that provider (packaged or added in the configuration): a typo would
    otherwise be estimated silently with the provider's default row."""
    from .profiles import lookup, parse_target
    for target in targets:
        try:
            parsed = parse_target(target)
        except ValueError as exc:
            where = str(exc).replace(f"target `{target}`", f"target `{target}` (in {origin})", 1)
            raise ConfigError(f"{where}; `promptlint models` lists the known models") from None
        if parsed.model and lookup(parsed.provider, parsed.model)[1] is not None:
            raise ConfigError(f"target `{target}` (in {origin}): unknown {parsed.provider} model "
                              f"`{parsed.model}`; `promptlint models {parsed.provider}` lists the known models")


class ProgressBar:
    """Progress of a run over many files on stderr: a transient rich bar when stderr is a
    terminal; otherwise (a CI log, a pipe, a hook) a plain line `promptlint: checked N of M files
    (S s)` once a run has taken `EVERY` seconds, and again every `EVERY` seconds, so a long run is
    seen to move. `clock` (seconds, monotonic) and `stream` are for tests."""

    MIN_FILES = 100
    EVERY = 30.0

    def __init__(self, enabled: bool = True, *, clock=time.monotonic, stream=None):
        self.bar = None
        self.enabled = enabled
        self.clock = clock
        self.stream = stream

    def __call__(self, total: int):
        if not self.enabled or total < self.MIN_FILES:
            return None
        stream = self.stream or sys.stderr
        if not stream.isatty():
            return self._lines(total, stream)
        from rich.console import Console
        from rich.progress import Progress
        self.bar = Progress(console=Console(stderr=True), transient=True)
        task = self.bar.add_task("Checking", total=total)
        self.bar.start()
        return lambda n: self.bar.advance(task, n)

    def _lines(self, total: int, stream):
        """The callback of a run not on a terminal: counts files, writes a line each `EVERY` s."""
        start = self.clock()
        state = {"done": 0, "next": start + self.EVERY}

        def advance(n: int) -> None:
            state["done"] += n
            now = self.clock()
            if now >= state["next"] and state["done"] < total:
                stream.write(f"promptlint: checked {state['done']} of {total} files ({now - start:.0f} s)\n")
                stream.flush()
                state["next"] = now + self.EVERY
        return advance

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
