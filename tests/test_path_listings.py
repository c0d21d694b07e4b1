"""PRM202: `iterdir()`, `glob()` and `rglob()` of a path the code does not know as one (a parameter
annotated `Path`, `self.root / "skills"`) list the file system's order (no str has these methods),
followed through helpers, dicts, filters and templates; a listing that enters one prompt's text on
two paths (a template and a join) is one finding, where it is listed. Fixtures under
fixtures/path_listings/."""
from __future__ import annotations

import shutil
from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "path_listings"


def _found(root: Path, *names: str):
    report = api.check([root / n for n in names] if names else [root], api.Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row, d.span.start.column,
             [(Path(r.span.filename).name, r.span.start.row) for r in d.related]) for d in report.diagnostics]


def test_a_listing_of_a_path_parameter_kept_by_helpers_is_reported_where_it_is_listed():
    # (main: nothing; the parameter was read as text, which has no `iterdir`)
    assert _found(FIXTURES, "helpers.py") == [("helpers.py", "PRM202", "warning", 18, 18, [])]


def test_a_sorted_listing_is_clean():
    assert _found(FIXTURES, "helpers_sorted.py") == []


def test_a_listing_entering_one_prompt_twice_is_one_finding_at_the_listing(tmp_path, monkeypatch):
    root = tmp_path / "project"
    shutil.copytree(FIXTURES / "templated", root)
    monkeypatch.chdir(root)
    assert _found(Path(".")) == [("app.py", "PRM202", "warning", 14, 36, [("tools.md", 5)])]
