"""promptlint lints its own package tree without a finding at warning or error severity.

Only `promptlint/` (and `benchmarks/`) are linted: `fixtures/` and `tests/` hold deliberate faults.
The check (`api.check`, as in this process: its worker processes, no cache) runs in a Python
subprocess started when collection ends (tests/early.py): the largest analysis of the suite runs
while other tests do; it writes what the test asserts of its `Report` as JSON.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from early import environment, spawn, started

ROOT = Path(__file__).resolve().parent.parent

CHECK = """
import json, sys
from pathlib import Path
from promptlint.api import check, exit_code
report = check([Path("promptlint"), Path("benchmarks")])
json.dump({
    "errors": report.errors,
    "files": report.files,
    "blocking": [f"{d.span.filename}:{d.span.start.row}: {d.code} [{d.severity.value}] {d.message}"
                 for d in report.diagnostics if d.severity.value in ("warning", "error")],
    "filenames": sorted({d.span.filename for d in report.diagnostics}),
    "exit_code": exit_code(report),
}, sys.stdout)
"""


def _check_own_package(folder: Path) -> subprocess.Popen:
    """`CHECK` run in the repository root; its JSON on stdout."""
    return spawn(folder, [sys.executable, "-c", CHECK], cwd=ROOT, env=environment())


@pytest.mark.early.with_args(_check_own_package)
def test_own_package_has_no_warnings():
    done = started(_check_own_package).wait(timeout=600)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["errors"] == []
    assert report["files"] >= 40  # the whole package was walked, not an empty folder
    assert report["blocking"] == []
    assert not any(name.startswith(("fixtures/", "tests/")) for name in report["filenames"])
    assert report["exit_code"] == 0
