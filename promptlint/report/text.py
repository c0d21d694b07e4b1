"""The human report: each diagnostic with its place, a code frame, related places and advice,
then a summary. Rendered with rich into a string (pure: the caller prints it); honours NO_COLOR
through rich's Console.
"""
from __future__ import annotations

import io
from collections import Counter

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from ..baseline import read_source
from ..judged import handed_on, prompts_analysed, reads_nothing
from ..model import Diagnostic, Report
from .names import listed

_STYLE = {"error": "bold red", "warning": "bold yellow", "info": "bold cyan"}


#: Characters of source shown per frame line; a longer line (minified or generated code) is cut
#: to a window of this width around the finding's column, with "…" where text was cut.
FRAME_WIDTH = 120


def _frame(d: Diagnostic, read_line) -> list[str]:
    """The source lines of a finding (the one before and its own) and a caret under its column
    (1-based characters); lines longer than FRAME_WIDTH are cut to a window around the column."""
    row, column = d.span.start.row, max(d.span.start.column - 1, 0)
    start = 0 if column < FRAME_WIDTH - 20 else column - FRAME_WIDTH // 2
    lines = []
    for r in (row - 1, row):
        if r < 1:
            continue
        text = read_line(d.span.filename, r)
        if text is None:
            continue
        text = text.rstrip()
        shown = text[start:start + FRAME_WIDTH]
        if start and not shown:
            continue  # the line before ends left of the window
        if start:
            shown = "…" + shown
        if len(text) > start + FRAME_WIDTH:
            shown += "…"
        lines.append(f"{r:>5} | {shown}")
    if lines:
        lines.append(" " * 6 + "| " + " " * (column - start + (1 if start else 0)) + "^")
    return lines


def _reader():
    cache: dict[str, list[str] | None] = {}

    def read_line(filename: str, row: int) -> str | None:
        if filename not in cache:
            text = read_source(filename)  # regular files only, size-limited
            cache[filename] = text.splitlines() if text is not None else None
        lines = cache[filename]
        if lines is None or row > len(lines):
            return None
        return lines[row - 1]
    return read_line


def render(report: Report, color: bool = False, width: int = 100, show_frames: bool = True,
           summary_line: bool = True) -> str:
    """The text report. `color` emits ANSI styles; NO_COLOR is handled by the caller's choice;
    without `summary_line` (`check --quiet`) only the findings."""
    buf = io.StringIO()
    # emoji off: "file.py:100:4" must not become a 💯; soft wrap: long lines stay whole in CI logs
    console = Console(file=buf, width=width, force_terminal=color, no_color=not color, highlight=False,
                      soft_wrap=True, emoji=False)
    read_line = _reader()
    sites = {layout.id: layout for layout in report.prompts}
    for d in report.diagnostics:
        head = Text()
        head.append(f"{d.span.filename}:{d.span.start.row}:{d.span.start.column}", style="bold")
        head.append(": ")
        head.append(d.code, style=_STYLE[d.severity.value])
        head.append(f" [{d.severity.value}] ", style=_STYLE[d.severity.value])
        head.append(d.message)
        console.print(head)
        if show_frames:
            for line in _frame(d, read_line):
                console.print(Text(line, style="dim"))
        for r in d.related:
            console.print(f"      [dim]= related:[/] {escape(str(r.span))}: {escape(r.message)}")
        prompt = _elsewhere(d, sites)
        if prompt is not None:
            console.print(f"      [dim]= prompt:[/] {escape(prompt)}")
        if d.fix is not None:
            console.print(f"      [green]= fix ({d.fix.applicability.value}):[/] {escape(d.fix.message)}")
        elif d.advice:
            console.print(f"      [green]= help:[/] {escape(d.advice)}")
        console.print()
    if summary_line:
        console.print(summary(report))
    return buf.getvalue()


def _elsewhere(d: Diagnostic, sites: dict) -> str | None:
    """'app.py:8:12: sent here' for a finding located in another file than its prompt (prompt
    text built in a helper, sent in app.py); None when the prompt is in the finding's file."""
    if d.prompt is None:
        return None
    layout = sites.get(d.prompt)
    if layout is None:
        filename = d.prompt.rpartition(":")[0]
        return f"{d.prompt}: the prompt of this finding" if filename and filename != d.span.filename else None
    if layout.site.filename == d.span.filename or any(str(r.span) == str(layout.site) for r in d.related):
        return None  # (a related location names it already: `scope.of_files`)
    what = "sent here" if layout.source == "python-call" else "the prompt of this finding"
    return f"{layout.site}: {what}"


def summary(report: Report) -> str:
    """'Found 3 findings (2 warnings, 1 info) in 2 of 12 files checked; 5 prompts analysed.' (the files
    the findings are in, of the files checked; 'in 12 files checked' when they are in every one; 'in 2
    files (1 file checked and the files it reads)' when a finding is in a file the checked one reads)."""
    counts = Counter(d.severity.value for d in report.diagnostics)
    n = len(report.diagnostics)
    if not n:
        head = "No findings"
    else:
        detail = ", ".join(f"{counts[s]} {s}{'s' if counts[s] != 1 and s != 'info' else ''}"
                           for s in ("error", "warning", "info") if counts[s])
        head = f"Found {n} finding{'s' if n != 1 else ''} ({detail})"
    n_prompts = len(prompts_analysed(report.prompts))
    checked = f"{report.files} file{'s' if report.files != 1 else ''} checked"
    where = len({d.span.filename for d in report.diagnostics})
    if n and where > report.files:  # findings in files the checked ones read (a template, an imported helper)
        files = f"in {where} files ({checked} and the files {'it reads' if report.files == 1 else 'they read'})"
    else:
        files = f"in {where} of {checked}" if n and where != report.files else f"in {checked}"
    tail = f" {files}; {n_prompts} prompt{'s' if n_prompts != 1 else ''} analysed."
    errors = f"\n{len(report.errors)} error(s): " + "; ".join(report.errors) if report.errors else ""
    return head + tail + _unread(report) + _no_request(report) + errors


def _no_request(report: Report) -> str:
    """A line for a report whose prompts built in Python are none of them sent by a request read
    here ('' otherwise): the code sends them through an API promptlint does not know (a
    framework's agents, another client library), so their findings are judged on the text alone
    and what the requests do with it (its order, the history after it) is not seen."""
    if any(lt.source == "python-call" for lt in report.prompts):
        return ""
    if not any(lt.source.startswith("python-") for lt in prompts_analysed(report.prompts)):
        return ""
    return ("\nNo request promptlint recognises sends the prompt text built in Python (the SDK calls it reads "
            "are listed in the README): that text is judged alone, so defects in how the requests order it "
            "may be missing (`promptlint explain FILE:LINE` at a call says why it is not read)")


def _unread(report: Report, shown: int = 3) -> str:
    """A line for the requests sent with no text the analysis could read ('' when none): calls
    whose every part is content of unknown origin and volatility (a prompt built where the
    analysis does not follow it, an adapter's parameter), or that have no part at all (messages
    passed as `*args`). Nothing can be said of their prefix, so a clean report does not vouch for
    them; `explain` says why each part is unknown."""
    unread = [lt for lt in report.prompts if lt.source == "python-call" and (reads_nothing(lt) or handed_on(lt))]
    if not unread:
        return ""
    where = listed([str(lt.site) for lt in unread], shown)
    return (f"\n{len(unread)} of them {'hold' if len(unread) != 1 else 'holds'} no text promptlint could read "
            f"(built where it does not follow), so findings in that text may be missing "
            f"(`promptlint explain` says why): {where}")
