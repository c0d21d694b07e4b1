"""One line per diagnostic: `file:row:col: CODE [severity] message`, then the one summary line of
the text report ('Found 3 findings (1 warning, 2 info) in 2 of 12 files checked; 5 prompts analysed.', or
'No findings in 3 files checked; ...'), as ruff's concise output ends with 'Found 3 errors.' or says 'All
checks passed!'."""
from __future__ import annotations

from ..model import Report
from .text import summary


def render(report: Report, summary_line: bool = True) -> str:
    """The lines, then the summary line unless `summary_line` is false (`check --quiet`)."""
    lines = [f"{d.span.filename}:{d.span.start.row}:{d.span.start.column}: {d.code} [{d.severity.value}] {d.message}"
             for d in report.diagnostics]
    return "".join(line + "\n" for line in lines) + (summary(report) + "\n" if summary_line else "")
