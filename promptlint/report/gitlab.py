"""GitLab Code Quality report (a JSON array), for merge-request widgets.

Each diagnostic gives `description`, `check_name` (the code), `fingerprint`, `severity` and
`location.path` with `location.lines.begin` / `end`. The fingerprint is the baseline's
(sha256 of path, code and the whitespace-normalised source line; `promptlint.baseline`), never a
line number, so a finding keeps its identity when code moves; repeats of the same key get an
occurrence suffix to stay unique. Severities: info -> `info`, warning -> `major`,
error -> `critical` (GitLab's scale: info, minor, major, critical, blocker).
"""
from __future__ import annotations

import os
import json
from collections import Counter
from typing import Callable

from ..baseline import fingerprint, read_source, snippet
from ..model import Report, Severity

SEVERITIES = {Severity.INFO: "info", Severity.WARNING: "major", Severity.ERROR: "critical"}


def render(report: Report, *, read_text: Callable[[str], str | None] = read_source) -> str:
    """The Code Quality JSON of `report`; `read_text` supplies source lines for fingerprints."""
    seen: Counter = Counter()
    issues = []
    for d in sorted(report.diagnostics, key=lambda d: d.sort_key):
        path = d.span.filename.replace(os.sep, "/")
        fp = fingerprint(path, d.code, snippet(d, read_text))
        seen[fp] += 1
        if seen[fp] > 1:
            fp = fingerprint(path, d.code, f"{snippet(d, read_text)}\0{seen[fp]}")
        issues.append({
            "description": f"{d.code} {d.name}: {d.message}",
            "check_name": d.code,
            "fingerprint": fp,
            "severity": SEVERITIES[d.severity],
            "location": {"path": path,
                         "lines": {"begin": d.span.start.row, "end": d.span.end.row}},
        })
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"
