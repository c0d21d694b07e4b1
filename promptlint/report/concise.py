"""One line per diagnostic: `file:row:col: CODE [severity] message`; with none, the one summary
line of the text report ('No findings in 3 files; 1 prompt analysed.'), as ruff's concise
output says 'All checks passed!'."""
from __future__ import annotations

from ..model import Report
from .text import summary


def render(report: Report) -> str:
    lines = [f"{d.span.filename}:{d.span.start.row}:{d.span.start.column}: {d.code} [{d.severity.value}] {d.message}"
             for d in report.diagnostics]
    return "\n".join(lines) + "\n" if lines else summary(report) + "\n"
