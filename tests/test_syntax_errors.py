"""PRM001 for Python files that cannot be parsed: every checked file (as ruff reports a syntax
error in every file it checks, whether it can hold a prompt or not), and every module of the tree
that an analysed file imports, with the import as a related location (its values are unknown to
the importer: without the PRM001 the importer's findings would vanish unexplained)."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from promptlint.api import check
from promptlint.cli import main

HELPERS = (
    "from datetime import datetime\n"
    "\n"
    "STAMP = datetime.now().strftime('%Y-%m-%d %H:%M')\n"
    "\n"
    "def broken(:\n"
    "    pass\n"
)
APP = (
    "from openai import OpenAI\n"
    "from helpers import STAMP\n"
    "\n"
    "client = OpenAI()\n"
    "SYSTEM = 'You are a helpful assistant. ' * 300\n"
    "\n"
    "def ask(question):\n"
    "    return client.chat.completions.create(\n"
    "        model='gpt-4.1',\n"
    "        messages=[{'role': 'system', 'content': f'Now: {STAMP}\\n{SYSTEM}'},\n"
    "                  {'role': 'user', 'content': question}],\n"
    "    )\n"
)


@pytest.fixture
def app(tmp_path, monkeypatch):
    (tmp_path / "helpers.py").write_text(HELPERS, encoding="utf-8")
    (tmp_path / "app.py").write_text(APP, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def json_report(*args: str) -> dict:
    result = CliRunner().invoke(main, ["check", *args, "--output-format", "json"])
    return json.loads(result.stdout)


def found(report: dict) -> list[tuple]:
    return [(d["code"], d["filename"], d["location"]["row"], d["severity"]) for d in report["diagnostics"]]


def test_a_module_nobody_imports_is_its_prm001_whether_it_can_hold_a_prompt_or_not(app):
    """A file that mentions no LLM API is not analysed, but it is parsed: its syntax error is a
    PRM001 at Python's own position, an error of the code (exit 1), not of the run. The parser's
    own limits (too deeply nested) are no finding there: nothing in it is analysed."""
    (app / "lonely.py").write_text("x = 1\n\ndef f(:\n    pass\n", encoding="utf-8")
    (app / "nested.py").write_text("x = " + "(" * 300 + "1" + ")" * 300 + "\n", encoding="utf-8")
    (app / "fine.py").write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    report = json_report("lonely.py", "nested.py", "fine.py", "--no-cache")
    assert found(report) == [("PRM001", "lonely.py", 3, "error")]
    assert report["diagnostics"][0]["message"] == "Cannot analyse this file: syntax error: invalid syntax"
    assert report["errors"] == []
    assert CliRunner().invoke(main, ["check", "lonely.py", "--no-cache"]).exit_code == 1


def test_only_what_the_parser_rejects_is_reported(app):
    """The check of a file that is not analysed reports what `ast.parse` rejects, as for an
    analysed file: a `return` outside a function (rejected only by the bytecode compiler) is no
    PRM001, and the compiler's warnings are never printed."""
    (app / "script.py").write_text("x = 1\nif x is 1:\n    pass\nreturn x\nassert (x, 'm')\ny = '\\d'\n",
                                   encoding="utf-8")
    result = CliRunner().invoke(main, ["check", "script.py", "--no-cache", "--output-format", "json"])
    assert json.loads(result.stdout)["diagnostics"] == [] and result.stderr == ""


def test_a_module_imported_by_an_llm_file_is_its_prm001_with_the_import_related(app):
    """The constant imported from the broken module is unknown (as before), and the module's
    PRM001 says why, with the import that reads it as a related location."""
    report = json_report(".", "--no-cache")
    assert found(report) == [("PRM101", "app.py", 10, "info"), ("PRM001", "helpers.py", 5, "error")]
    syntax = next(d for d in report["diagnostics"] if d["code"] == "PRM001")
    assert syntax["related"] == [{"filename": "app.py", "location": {"row": 2, "column": 1},
                                  "message": "imported here: its values are unknown to this analysis"}]


def test_the_imported_module_is_reported_when_only_the_importer_is_checked(app):
    """`promptlint check app.py` outside a project: only app.py is analysed, and the module it
    imports from the tree that cannot be parsed is its PRM001."""
    report = json_report("app.py", "--no-cache")
    assert [(c, f) for c, f, _, _ in found(report)] == [("PRM101", "app.py"), ("PRM001", "helpers.py")]


def test_named_files_in_a_project_report_the_broken_module_they_import(app):
    """Pre-commit passes only the changed app.py: the PRM001 of the module it imports concerns it
    (a related location in it), so the reason its finding changed is reported."""
    (app / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    (app / "other.py").write_text("import helpers\n", encoding="utf-8")
    report = check(["app.py"], project=True)
    syntax = [d for d in report.diagnostics if d.code == "PRM001"]
    assert [(d.span.filename, d.span.start.row) for d in syntax] == [("helpers.py", 5)]
    assert [(r.span.filename, r.span.start.row) for r in syntax[0].related] == [("app.py", 2)]


def test_every_importer_is_a_related_location_of_the_one_prm001(app):
    (app / "second.py").write_text(APP.replace("from helpers import STAMP", "import helpers")
                                   .replace("{STAMP}", "{helpers.STAMP}"), encoding="utf-8")
    report = check(["."])
    syntax = [d for d in report.diagnostics if d.code == "PRM001"]
    assert len(syntax) == 1
    assert sorted((r.span.filename, r.span.start.row) for r in syntax[0].related) == [("app.py", 2), ("second.py", 2)]


def test_the_cache_forgets_the_prm001_when_the_module_is_repaired(app, tmp_path):
    """The importer's result depends on the module: once repaired, the PRM001 is gone and the
    timestamp it produces is reported in the importer."""
    cache = tmp_path / "cache"
    cold = check(["."], cache_dir=cache)
    assert [d.code for d in cold.diagnostics if d.span.filename == "helpers.py"] == ["PRM001"]
    warm = check(["."], cache_dir=cache)
    assert [(d.code, d.span.filename) for d in warm.diagnostics] == [(d.code, d.span.filename) for d in cold.diagnostics]
    (app / "helpers.py").write_text(HELPERS.replace("def broken(:", "def broken():"), encoding="utf-8")
    fixed = check(["."], cache_dir=cache)
    assert [(d.code, d.span.filename) for d in fixed.diagnostics] == [("PRM102", "app.py")]


def test_an_f_string_only_python_3_12_parses_says_which_python_would(tmp_path):
    import sys
    (tmp_path / "new_syntax.py").write_text("names = ['a', 'b']\nline = f'{\"\\n\".join(names)}'\n", encoding="utf-8")
    found = [d for d in check([tmp_path]).diagnostics if d.code == "PRM001"]
    if sys.version_info >= (3, 12):
        assert found == []
    else:
        assert [d.span.start.row for d in found] == [2]
        assert "run promptlint with Python 3.12 or newer" in found[0].message
