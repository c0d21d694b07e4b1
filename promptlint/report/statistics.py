"""`--statistics`: the number of findings per rule, most frequent first (ruff's
`printer.rs:write_statistics`, flake8's `--statistics`)."""
from __future__ import annotations

import json
from collections import Counter

from ..model import Report


def statistics(report: Report) -> list[dict]:
    """[{"code", "name", "count", "fixable"}] sorted by count (descending), then code.

    `fixable` counts findings with a safe or unsafe fix (display-only fixes are not applied).
    """
    counts: Counter = Counter()
    fixable: Counter = Counter()
    names: dict[str, str] = {}
    for d in report.diagnostics:
        counts[d.code] += 1
        names[d.code] = d.name
        if d.fix is not None and d.fix.edits and d.fix.applicability.value != "display-only":
            fixable[d.code] += 1
    return [{"code": c, "name": names[c], "count": n, "fixable": fixable[c]}
            for c, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]


def render(report: Report, fmt: str = "text") -> str:
    """Text lines `  3  PRM102  timestamp-in-prefix  [*]` (`[*]` when some are fixable), or the
    list of `statistics()` as JSON for `--output-format json`."""
    rows = statistics(report)
    if fmt == "json":
        return json.dumps(rows, indent=2) + "\n"
    if not rows:
        return ""
    width = max(len(str(r["count"])) for r in rows)
    name_width = max(len(r["name"]) for r in rows)
    return "".join(
        f"{r['count']:>{width}}  {r['code']}  {r['name']:<{name_width}}"
        f"{'  [*]' if r['fixable'] else ''}".rstrip() + "\n" for r in rows)
