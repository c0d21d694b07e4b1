"""promptlint lints its own package tree without a finding at warning or error severity.

Only `promptlint/` (and `benchmarks/`) are linted: `fixtures/` and `tests/` hold deliberate faults.
"""
from __future__ import annotations

from pathlib import Path

from promptlint.api import check, exit_code

ROOT = Path(__file__).resolve().parent.parent


def test_own_package_has_no_warnings(monkeypatch):
    monkeypatch.chdir(ROOT)
    report = check([Path("promptlint"), Path("benchmarks")])
    assert report.errors == []
    assert report.files >= 40  # the whole package was walked, not an empty folder
    blocking = [f"{d.span.filename}:{d.span.start.row}: {d.code} [{d.severity.value}] {d.message}"
                for d in report.diagnostics if d.severity.value in ("warning", "error")]
    assert blocking == []
    assert not any(d.span.filename.startswith(("fixtures/", "tests/")) for d in report.diagnostics)
    assert exit_code(report) == 0
