"""One line per diagnostic: `file:row:col: CODE [severity] message`."""
from __future__ import annotations

from ..model import Report


def render(report: Report) -> str:
    lines = [f"{d.span.filename}:{d.span.start.row}:{d.span.start.column}: {d.code} [{d.severity.value}] {d.message}"
             for d in report.diagnostics]
    return "\n".join(lines) + ("\n" if lines else "")
