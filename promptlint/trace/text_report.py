"""The human report of `promptlint trace`: each divergence at its source line with a code frame,
the example pair of requests and the text around the divergence, then skipped lines and a
summary. Rendered with rich into a string (pure: the caller prints it)."""
from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from ..source import SourceError, read_any
from .model import Divergence, TraceReport

__all__ = ["render", "summary"]

_STYLE = {"error": "bold red", "warning": "bold yellow", "info": "bold cyan"}


def _line(filename: str, row: int, cache: dict) -> str | None:
    if filename not in cache:
        try:
            cache[filename] = read_any(Path(filename)).splitlines()
        except SourceError:
            cache[filename] = None
    lines = cache[filename]
    return lines[row - 1] if lines is not None and 0 < row <= len(lines) else None


def _place(d: Divergence, requests_file: str) -> str:
    if d.source is not None:
        return f"{d.source.filename}:{d.source.row}:{d.source.column}"
    return f"{requests_file}:{d.example.line}"


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def render(report: TraceReport, color: bool = False, width: int = 100, show_frames: bool = True) -> str:
    buf = io.StringIO()
    console = Console(file=buf, width=width, force_terminal=color, no_color=not color, highlight=False,
                      soft_wrap=True, emoji=False)
    cache: dict = {}
    name = report.requests_file
    for d in report.divergences:
        head = Text()
        head.append(_place(d, name), style="bold")
        head.append(": ")
        head.append(f"[{d.severity}] ", style=_STYLE[d.severity])
        head.append(d.message)
        console.print(head)
        if show_frames and d.source is not None:
            text = _line(d.source.filename, d.source.row, cache)
            if text is not None:
                console.print(Text(f"{d.source.row:>5} | {text.rstrip()}", style="dim"))
                console.print(Text(" " * 6 + "| " + " " * max(d.source.column - 1, 0) + "^", style="dim"))
        if d.source is not None and d.source.origin:
            console.print(f"      [dim]= related:[/] {escape(d.source.origin)}: value produced here")
        ex = d.example
        console.print(f"      [dim]= example:[/] {escape(name)}:{ex.line} against {escape(name)}:{ex.previous_line}")
        console.print(f"      [dim]= before:[/]   {escape(_quote(ex.before))}")
        console.print(f"      [dim]= previous:[/] {escape(_quote(ex.previous))}")
        console.print(f"      [dim]= current:[/]  {escape(_quote(ex.current))}")
        # (redacted, a changed digit or letter looks the same: `05` and `07` are both `00`)
        alike = " (alike once redacted: --show-text shows the characters)" if ex.previous == ex.current else ""
        console.print(f"      [dim]= changed:[/]  {ex.previous_changed:,} character(s) in the previous request, "
                      f"{ex.current_changed:,} in this one, before the texts agree again{alike}")
        console.print()
    for line, message in report.errors:
        console.print(f"{escape(name)}:{line}: [bold red]skipped[/]: {escape(message)}")
    if report.errors:
        console.print()
    console.print(summary(report))
    return buf.getvalue()


def summary(report: TraceReport) -> str:
    """'Traced 40 requests in 5 groups (4 matched to prompts); 3 divergences: 12,345 cached tokens lost.'"""
    n, lost = len(report.divergences), sum(d.cached_tokens_lost for d in report.divergences)
    matched = sum(1 for g in report.groups if g.prompt)
    head = (f"Traced {report.requests:,} request{'s' if report.requests != 1 else ''} in {len(report.groups):,} "
            f"group{'s' if len(report.groups) != 1 else ''} ({matched} matched to the {report.prompts} prompts analysed)")
    if report.skipped:
        head += f"; {report.skipped:,} line{'s' if report.skipped != 1 else ''} skipped"
    if not n:
        return head + "; no prefix divergence."
    costly = sum(1 for d in report.divergences if d.cached_tokens_lost)
    return (head + f"; {n} prefix divergence{'s' if n != 1 else ''}, {costly} costing cached tokens: "
            f"{lost:,} cached tokens lost.")
