"""GitHub Actions workflow commands: one annotation per diagnostic on the pull request.

`::warning file=F,line=L,col=C,endLine=L2,endColumn=C2,title=promptlint (PRM102)::message`;
`::error` for errors and `::notice` for info. Columns are left out when the span covers several
lines (GitHub only honours them on single-line annotations, as ruff does). Escaping follows the
runner's rules (actions/toolkit `command.ts`): in the message `%`, CR and LF; in properties also
`:` and `,`.
"""
from __future__ import annotations

import os
from ..model import Report, Severity

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    """Escape a command's message."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a command property's value."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(report: Report) -> str:
    """One workflow command per line for each diagnostic, then each run error."""
    lines = []
    for d in sorted(report.diagnostics, key=lambda d: d.sort_key):
        start, end = d.span.start, d.span.end
        props = [("file", d.span.filename.replace(os.sep, "/")), ("line", str(start.row))]
        if start.row == end.row:
            props.append(("col", str(start.column)))
        props.append(("endLine", str(end.row)))
        if start.row == end.row:
            props.append(("endColumn", str(end.column)))
        props.append(("title", f"promptlint ({d.code})"))
        rendered = ",".join(f"{k}={escape_property(v)}" for k, v in props)
        lines.append(f"::{COMMANDS[d.severity]} {rendered}::{escape_data(d.message)}")
    for error in report.errors:
        lines.append(f"::error title=promptlint::{escape_data(error)}")
    return "".join(line + "\n" for line in lines)
