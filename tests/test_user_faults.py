"""Shapes a new user met on real packages (fixtures/user_faults/README.md): a fix whose only
evidence is a name is unsafe, copies of data files are not prompts, cookiecutter folders are not
walked, and a Python file that is a Jinja template says so in its PRM001."""
from __future__ import annotations

import shutil
from pathlib import Path

from promptlint import api
from promptlint.model import Applicability

FIXTURES = Path(__file__).parent.parent / "fixtures" / "user_faults"


def _copy(tmp_path: Path, name: str) -> Path:
    dest = tmp_path / name
    if (FIXTURES / name).is_dir():
        shutil.copytree(FIXTURES / name, dest)
    else:
        shutil.copy(FIXTURES / name, dest)
    return dest


def test_a_fix_resting_on_a_name_is_unsafe(tmp_path):
    root = _copy(tmp_path, "name_only_fix")
    report = api.check([root], api.Settings(), jobs=1)
    [d] = report.diagnostics
    assert (d.code, d.span.start.row, d.span.start.column, d.name_only) == ("PRM203", 8, 21, True)
    assert d.fix is not None and d.fix.applicability is Applicability.UNSAFE
    run = api.fix([root], api.Settings(), unsafe=False, write=False, jobs=1)
    assert (root / "tools_cli.py").read_text() == (FIXTURES / "name_only_fix" / "tools_cli.py").read_text()
    assert [x.code for x in run.report.diagnostics] == ["PRM203"]
    api.fix([root], api.Settings(), unsafe=True, jobs=1)
    assert "for tool_dir in sorted(TOOLS_DIR.iterdir()):" in (root / "tools_cli.py").read_text()


def test_a_copy_of_a_data_file_is_not_a_prompt_file(tmp_path):
    root = _copy(tmp_path, "copies")
    report = api.check([root], api.Settings(), jobs=1)
    files = sorted(Path(p.site.filename).name for p in report.prompts)
    assert "graph.json.example" not in files
    assert "system.txt.template" in files


def test_a_cookiecutter_folder_is_not_walked(tmp_path):
    root = _copy(tmp_path, "scaffold")
    report = api.check([root], api.Settings(), jobs=1)
    assert report.diagnostics == [] and report.files == 0


def test_a_python_named_jinja_template_says_so(tmp_path):
    path = _copy(tmp_path, "rendered_main.py")
    [d] = api.check([path], api.Settings(), jobs=1).diagnostics
    assert (d.code, d.span.start.row) == ("PRM001", 1)
    assert d.message.startswith("Cannot analyse this file: syntax error: invalid syntax (the file holds Jinja markup")
    assert "extend-exclude" in d.message
