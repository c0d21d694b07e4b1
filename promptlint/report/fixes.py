"""The fix lines of the text report: how many findings `promptlint fix` can fix (as ruff counts
them), and the `--show-fixes` list. Pure functions of the diagnostics."""
from __future__ import annotations

from ..fix import hidden_unsafe, is_applicable
from ..model import Severity
from .names import escape


def fix_hint(diagnostics) -> str:
    """'[*] N fixable with `promptlint fix` (M hidden fixes can be enabled with `--unsafe-fixes`).',
    'No fixes available (M hidden fixes ...).' when only unsafe fixes exist, or "" when nothing can be
    fixed."""
    safe = sum(1 for d in diagnostics if is_applicable(d.fix, unsafe=False))
    unsafe = hidden_unsafe(diagnostics)
    if not safe and not unsafe:
        return ""
    hidden = (f" ({unsafe} hidden fix{'es' if unsafe != 1 else ''} can be enabled with "
              "`promptlint fix --unsafe-fixes`)") if unsafe else ""
    if not safe:  # as ruff says it
        return f"No fixes available{hidden}.\n"
    return f"[*] {safe} fixable with `promptlint fix`{hidden}.\n"


def fix_list(diagnostics, title: str) -> str:
    """`--show-fixes`: per file, each finding with an applicable fix and the fix's message;
    "<title>: none." when no finding has one (the flag always answers)."""
    lines = [f"{escape(d.span.filename)}:{d.span.start.row}:{d.span.start.column}: {d.code} "
             f"[{d.fix.applicability.value}] {d.fix.message}"
             for d in diagnostics if is_applicable(d.fix, unsafe=True)]
    return f"{title} ({len(lines)}):\n" + "".join(f"  {line}\n" for line in lines) if lines else f"{title}: none.\n"


def severity_hint(diagnostics, fail_on: str) -> str:
    """'None of these 43 findings fails the run ...' ('This finding does not fail ...') when there are findings and none is at or above
    `fail_on` (the exit status is 0), else "": a rule's severity in `promptlint rules` is its worst
    case, and a finding whose loss is small or not shown is info (docs/policies.md, Policy 7)."""
    if not diagnostics or any(d.severity.rank >= Severity(fail_on).rank for d in diagnostics):
        return ""
    n = len(diagnostics)
    head = "This finding does not fail" if n == 1 else f"None of these {n} findings fails"
    return (f"{head} the run (`fail-on` is {fail_on}): a finding is info when its loss is small or not shown, "
            f"whatever the rule's own severity; `--fail-on info` fails on {'it' if n == 1 else 'them'} too.\n")
