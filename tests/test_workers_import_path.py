"""promptlint/workers.py: worker processes never import the checked project's modules, even when
the project has a module named like one of the standard library's (`types/`, `json.py`) and the
check runs from inside it (as `promptlint check .` in a package folder does)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from promptlint import engine
from promptlint.api import check

SHADOW = """\
from pathlib import Path
Path(__file__).with_name("IMPORTED").write_text("the project's module was imported", encoding="utf-8")
raise ImportError("the project's own module shadowed the standard library's")
"""
CHAT = """\
import datetime
from openai import OpenAI

client = OpenAI()
POLICY = "You are the support assistant of Acme. " * 300


def ask(question):
    stamp = datetime.datetime.now().isoformat()
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": f"{stamp} {POLICY}"}, {"role": "user", "content": question}])
"""


@pytest.mark.skipif(sys.version_info < (3, 11), reason="PYTHONSAFEPATH is read from Python 3.11")
def test_workers_run_from_inside_a_package_that_shadows_the_standard_library(tmp_path, monkeypatch):
    project = tmp_path / "pkg"
    for name in ("types", "json"):
        (project / name).mkdir(parents=True)
        (project / name / "__init__.py").write_text(SHADOW, encoding="utf-8")
    files = engine.PARALLEL_MIN_FILES + 5  # enough files for worker processes
    for i in range(files):
        (project / f"chat_{i}.py").write_text(CHAT, encoding="utf-8")
    monkeypatch.chdir(project)
    report = check([Path(".")], jobs=2)
    assert not (project / "types" / "IMPORTED").exists() and not (project / "json" / "IMPORTED").exists()
    assert sorted({d.code for d in report.diagnostics}) == ["PRM102"]
    assert len([d for d in report.diagnostics if d.code == "PRM102"]) == files
