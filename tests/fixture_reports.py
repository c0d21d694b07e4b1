"""The report of `api.check(["."], Settings())` run in a folder of fixtures/, made once per folder
for the session.

Three test modules assert different things of the same reports of every fixture folder
(tests/test_fix_offers.py: every fix a report offers is applied; tests/test_loss_wording.py: no
finding says it costs nothing; tests/test_template_locations.py: every location is text of its
file), and each analysed every folder again (about 300 folders, one analysis each, 10-15 s a
module). `folder_report(folder)` analyses a folder the first time it is asked for and returns the
same `Report` after; callers read it and never change it (`api.fix(..., report=...)` only reads
it). The three modules run in one xdist worker, which analyses each folder once
(tests/conftest.py: SHARED_REPORTS).

- `fixture_folders()`: every folder of fixtures/ that holds files (a case, the demo, a set of
  prompts), sorted; none under a folder whose name starts with '.' or '__'.
"""
from __future__ import annotations

import contextlib
import functools
from pathlib import Path

from promptlint.api import check
from promptlint.config import Settings
from promptlint.model import Report

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def fixture_folders() -> list[Path]:
    return sorted(p for p in FIXTURES.rglob("*") if p.is_dir() and any(q.is_file() for q in p.iterdir())
                  and not any(part.startswith((".", "__")) for part in p.relative_to(FIXTURES).parts))


def folder_report(folder: Path) -> Report:
    """`check(["."], Settings())` run with `folder` as the working folder (once per folder)."""
    return _report(folder.resolve())


@functools.cache
def _report(folder: Path) -> Report:
    with contextlib.chdir(folder):
        return check(["."], Settings())
