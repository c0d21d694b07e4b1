"""Named files are checked within their project (issue 13, pre-commit): the findings that concern
them are reported, wherever the change that causes them is; unrelated findings are not."""
from __future__ import annotations

import json
from pathlib import Path

from ci_support import CHAT_PY, cli
from test_precommit import CHAT_WITH_TOOLS, TOOLS_SET_ORDER


def _project(root: Path, marker: str | None = "pyproject.toml") -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (root / "pkg" / "tools.py").write_text(TOOLS_SET_ORDER, encoding="utf-8")
    (root / "pkg" / "chat.py").write_text(CHAT_WITH_TOOLS, encoding="utf-8")
    (root / "other.py").write_text(CHAT_PY, encoding="utf-8")  # findings of its own, unrelated
    if marker:
        (root / marker).write_text("", encoding="utf-8")
    return root


def _found(*args: str) -> list[tuple[str, str, int]]:
    result = cli("check", *args, "--output-format", "json")
    assert result.exit_code in (0, 1), result.stderr
    report = json.loads(result.stdout)
    return sorted((d["filename"], d["code"], d["location"]["row"]) for d in report["diagnostics"])


def test_a_named_file_reports_the_findings_its_project_places_in_it(tmp_path, monkeypatch):
    monkeypatch.chdir(_project(tmp_path / "project"))
    assert _found("pkg/tools.py") == [("pkg/tools.py", "PRM203", 6)]
    # the prompt that sends the tools is built in chat.py: the finding concerns it too
    assert ("pkg/tools.py", "PRM203", 6) in _found("pkg/chat.py")
    assert not any(f == "other.py" for f, _, _ in _found("pkg/chat.py"))
    assert {f for f, _, _ in _found("other.py")} == {"other.py"}


def test_without_a_project_only_the_named_files_are_analysed(tmp_path, monkeypatch):
    monkeypatch.chdir(_project(tmp_path / "loose", marker=None))
    assert _found("pkg/tools.py") == []  # nothing sends the tools among the files checked
    assert ("pkg/tools.py", "PRM203", 6) in _found("pkg/tools.py", "pkg/chat.py")
