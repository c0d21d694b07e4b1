"""Differential test of the analysis move from libcst to `ast` (issue "The Python analysis, rebuilt
as facts, flow and registries"): on every fixture project, the legacy analysis and the new one
report the same findings (code, place, severity, message, fix applicability) and the same prompts.
Removed with the legacy analysis."""
from __future__ import annotations

from pathlib import Path

import pytest

from promptlint import engine
from promptlint.api import check
from promptlint.config import Settings

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
PROJECTS = sorted([FIXTURES / "demo", FIXTURES / "fix_equivalence", *(FIXTURES / "cases").iterdir(),
                   *(FIXTURES / "templates").iterdir()])


def _run(folder: Path, legacy: bool, monkeypatch) -> tuple[set, set]:
    monkeypatch.setattr(engine, "LEGACY", legacy)
    monkeypatch.chdir(folder)
    report = check(["."], Settings(select=["ALL"]), jobs=1)
    diags = {(d.span.filename, d.span.start, d.code, d.severity, d.message,
              d.fix.applicability if d.fix else None) for d in report.diagnostics}
    prompts = {(p.id, p.source, p.api, p.provider, p.model, p.static_prefix_tokens, p.static_tokens)
               for p in report.prompts}
    return diags, prompts


@pytest.mark.parametrize("folder", PROJECTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_legacy_and_ast_analysis_agree(folder: Path, monkeypatch):
    old_diags, old_prompts = _run(folder, True, monkeypatch)
    new_diags, new_prompts = _run(folder, False, monkeypatch)
    assert new_diags == old_diags
    assert new_prompts == old_prompts
