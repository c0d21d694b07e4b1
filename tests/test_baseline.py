"""Baselines keyed on path, code and normalised snippet; filtering to lines changed since a ref."""
from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from promptlint.baseline import (BaselineError, changed_lines, filter_baseline, filter_changed,
                                 write_baseline)
from promptlint.model import Diagnostic, Position, Related, Report, Severity, Span

CHAT = """\
import datetime
SYSTEM = f"Today is {datetime.datetime.now()}"
ID = f"run {uuid.uuid4()}"
"""


def diag(filename: str, row: int, code: str = "PRM102") -> Diagnostic:
    return Diagnostic(code=code, name="n", severity=Severity.WARNING, message=f"m{row}",
                      span=Span(filename, Position(row, 1), Position(row, 5)))


def lint(text: str, filename: str = "app/chat.py") -> Report:
    """A stand-in linter: PRM102 on every line calling now(), PRM103 on uuid4()."""
    out = []
    for row, line in enumerate(text.splitlines(), 1):
        if "now()" in line:
            out.append(diag(filename, row, "PRM102"))
        if "uuid4()" in line:
            out.append(diag(filename, row, "PRM103"))
    return Report(diagnostics=out)


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "chat.py").write_text(CHAT, encoding="utf-8")
    return tmp_path


def codes(report: Report):
    return [(d.span.start.row, d.code) for d in report.diagnostics]


def test_write_baseline_format(project):
    count = write_baseline(lint(CHAT), project / "promptlint-baseline.json")
    data = json.loads((project / "promptlint-baseline.json").read_text())
    assert count == 2
    assert data["version"] == 1
    assert [(e["path"], e["code"], e["snippet"], e["count"]) for e in data["entries"]] == [
        ("app/chat.py", "PRM102", 'SYSTEM = f"Today is {datetime.datetime.now()}"', 1),
        ("app/chat.py", "PRM103", 'ID = f"run {uuid.uuid4()}"', 1),
    ]
    assert all(len(e["fingerprint"]) == 64 for e in data["entries"])
    assert "row" not in json.dumps(data) and "line" not in json.dumps(data)


def test_baselined_findings_are_dropped(project):
    write_baseline(lint(CHAT), "baseline.json")
    assert filter_baseline(lint(CHAT), "baseline.json").diagnostics == []


def test_one_new_line_gives_exactly_one_finding(project):
    write_baseline(lint(CHAT), "baseline.json")
    new = CHAT.replace("ID =", 'STAMP = f"{datetime.datetime.now():%H:%M}"\nID =')
    (project / "app" / "chat.py").write_text(new)
    assert codes(filter_baseline(lint(new), "baseline.json")) == [(3, "PRM102")]


def test_moving_and_reindenting_code_keeps_it_baselined(project):
    write_baseline(lint(CHAT), "baseline.json")
    lines = CHAT.splitlines()
    moved = "\n".join(["# header", "", lines[0], "def build():",
                       "    " + lines[2], "", "    " + lines[1]]) + "\n"
    (project / "app" / "chat.py").write_text(moved)
    assert filter_baseline(lint(moved), "baseline.json").diagnostics == []


def test_duplicate_lines_are_counted(project):
    twice = CHAT + 'SYSTEM = f"Today is {datetime.datetime.now()}"\n'
    (project / "app" / "chat.py").write_text(twice)
    write_baseline(lint(twice), "baseline.json")
    entry = json.loads((project / "baseline.json").read_text())["entries"][0]
    assert entry["count"] == 2
    thrice = twice + 'SYSTEM = f"Today is {datetime.datetime.now()}"\n'
    (project / "app" / "chat.py").write_text(thrice)
    assert codes(filter_baseline(lint(thrice), "baseline.json")) == [(5, "PRM102")]


def test_paths_are_relative_to_the_baseline_file(project, monkeypatch):
    (project / "ci").mkdir()
    write_baseline(lint(CHAT), project / "ci" / "baseline.json")
    data = json.loads((project / "ci" / "baseline.json").read_text())
    assert data["entries"][0]["path"] == "../app/chat.py"
    monkeypatch.chdir(project / "app")
    report = lint(CHAT, filename="chat.py")
    assert filter_baseline(report, project / "ci" / "baseline.json").diagnostics == []


def test_other_code_on_same_line_is_new(project):
    write_baseline(Report(diagnostics=[diag("app/chat.py", 2, "PRM102")]), "baseline.json")
    report = Report(diagnostics=[diag("app/chat.py", 2, "PRM101"), diag("app/chat.py", 2)])
    assert codes(filter_baseline(report, "baseline.json")) == [(2, "PRM101")]


def test_filter_keeps_other_report_fields(project):
    write_baseline(Report(), "baseline.json")
    report = Report(diagnostics=[diag("app/chat.py", 2)], errors=["e"], files=4)
    filtered = filter_baseline(report, "baseline.json")
    assert (filtered.errors, filtered.files, len(filtered.diagnostics)) == (["e"], 4, 1)


@pytest.mark.parametrize("content, message", [
    (None, "cannot read baseline"), ("{not json", "invalid baseline file"),
    ('{"version": 7, "entries": []}', "unsupported baseline version"),
    ('{"version": 1}', "invalid baseline file"),
])
def test_bad_baseline_file(project, content, message):
    if content is not None:
        (project / "baseline.json").write_text(content)
    with pytest.raises(BaselineError, match=message):
        filter_baseline(Report(), "baseline.json")


# --- --diff-base ------------------------------------------------------------------------------

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(cwd, *args):
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


@pytest.fixture
def repo(project):
    git(project, "init", "-q", "-b", "main")
    git(project, "add", ".")
    git(project, "commit", "-q", "-m", "base")
    return project


@needs_git
def test_changed_lines_from_git_diff(repo):
    chat = repo / "app" / "chat.py"
    chat.write_text(CHAT.replace("ID =", "X = 1\nY = 2\nID =").replace("Today", "Now"))
    (repo / "app" / "new.py").write_text("a\nb\n")
    changed = changed_lines("HEAD", [repo])
    assert changed[str(chat.resolve())] == {2, 3, 4}
    assert changed[str((repo / "app" / "new.py").resolve())] == {1, 2, 3}


@needs_git
def test_changed_lines_limited_to_paths(repo):
    (repo / "app" / "chat.py").write_text(CHAT + "Z = 3\n")
    (repo / "other.py").write_text("new\n")
    changed = changed_lines("HEAD", [repo / "app"])
    assert list(changed) == [str((repo / "app" / "chat.py").resolve())]


@needs_git
def test_filter_changed_keeps_findings_on_changed_lines(repo):
    new = CHAT + 'LATE = f"{datetime.datetime.now()}"\n'
    (repo / "app" / "chat.py").write_text(new)
    filtered = filter_changed(lint(new), changed_lines("HEAD", [repo]))
    assert codes(filtered) == [(4, "PRM102")]


@needs_git
def test_filter_changed_keeps_finding_whose_related_location_changed(repo):
    (repo / "app" / "clock.py").write_text("def now():\n    return 1\n")
    d = diag("app/chat.py", 2)
    d.related.append(Related(Span("app/clock.py", Position(2, 5), Position(2, 13)), "here"))
    filtered = filter_changed(Report(diagnostics=[d, diag("app/chat.py", 3)]),
                              changed_lines("HEAD", [repo]))
    assert filtered.diagnostics == [d]


@needs_git
def test_unknown_ref_is_an_error(repo):
    with pytest.raises(BaselineError, match="unknown git ref `no-such-ref`"):
        changed_lines("no-such-ref", [repo])


@needs_git
def test_not_a_repository_is_an_error(tmp_path):
    with pytest.raises(BaselineError, match="git rev-parse failed"):
        changed_lines("HEAD", [tmp_path])


# --- through the command line: the acceptance scenario -----------------------------------------

POLICY = "\n".join(f"{i}. Policy line {i}: answer questions about order {i}, shipping zone {i} "
                   f"and returns window {i} days." for i in range(1, 80))

DEMO = f'''\
import datetime
import uuid

from openai import OpenAI

client = OpenAI()

RULES = """You are the support assistant of Acme Tools.
{POLICY}
"""


def system_prompt() -> str:
    return (
        f"Time: {{datetime.datetime.now()}}\\n"
        + RULES
    )


def answer(question: str) -> str:
    response = client.chat.completions.create(
        model="gpt-4o",
        messages=[
            {{"role": "system", "content": system_prompt()}},
            {{"role": "user", "content": question}},
        ],
    )
    return response.choices[0].message.content
'''


def cli(*args):
    from click.testing import CliRunner

    from promptlint.cli import main

    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_cli_baseline_reports_only_the_new_line(project):
    chat = project / "app" / "chat.py"
    chat.write_text(DEMO, encoding="utf-8")
    assert cli("check", "app", "--output-format", "json").exit_code == 1
    written = cli("check", "app", "--write-baseline", "baseline.json")
    assert written.exit_code == 0 and written.stdout == ""
    assert "wrote 1 finding(s) to baseline.json" in written.stderr
    assert cli("check", "app", "--baseline", "baseline.json").exit_code == 0

    # A request id before the time: a new cause of the broken prefix; the time's line now starts
    # with `+ `, so its snippet (and fingerprint) changed: an edited line is new to the baseline.
    new_line = '        f"Request: {uuid.uuid4()}\\n"\n        + '
    chat.write_text(DEMO.replace('        f"Time: ', new_line + 'f"Time: '))
    result = cli("check", "app", "--baseline", "baseline.json", "--output-format", "json")
    assert result.exit_code == 1
    found = json.loads(result.stdout)["diagnostics"]
    new_row = DEMO[:DEMO.index('        f"Time: ')].count("\n") + 1
    assert [(d["code"], d["location"]["row"]) for d in found] == [("PRM103", new_row), ("PRM102", new_row + 1)]


def test_cli_baseline_survives_moving_code(project):
    chat = project / "app" / "chat.py"
    chat.write_text(DEMO, encoding="utf-8")
    cli("check", "app", "--write-baseline", "baseline.json")
    head, _, rest = DEMO.partition("def system_prompt")
    function, _, tail = ("def system_prompt" + rest).partition("def answer")
    moved = head + "# Support bot.\n\n\ndef answer" + tail + "\n\n" + function.rstrip() + "\n"
    chat.write_text(moved, encoding="utf-8")
    assert moved != DEMO and moved.index("def answer") < moved.index("def system_prompt")
    result = cli("check", "app", "--baseline", "baseline.json", "--output-format", "json")
    assert json.loads(result.stdout)["diagnostics"] == []
    assert result.exit_code == 0


def test_cli_bad_baseline_is_exit_2(project):
    result = cli("check", "app", "--baseline", "missing.json")
    assert result.exit_code == 2
    assert result.stderr.startswith("promptlint: cannot read baseline missing.json")


@needs_git
def test_cli_diff_base(repo):
    chat = repo / "app" / "chat.py"
    chat.write_text(DEMO, encoding="utf-8")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "demo")
    assert cli("check", "app", "--diff-base", "HEAD").exit_code == 0
    chat.write_text(DEMO.replace('        f"Time: ', '        f"Request: {uuid.uuid4()}\\n"\n        + f"Time: '))
    result = cli("check", "app", "--diff-base", "HEAD", "--output-format", "json")
    # both changed lines: the new id, and the time's line (now `+ f"Time: ...`), its own cause
    assert [d["code"] for d in json.loads(result.stdout)["diagnostics"]] == ["PRM103", "PRM102"]
    assert result.exit_code == 1
    bad = cli("check", "app", "--diff-base", "no-such-ref")
    assert (bad.exit_code, bad.stderr) == (
        2, "promptlint: unknown git ref `no-such-ref` for --diff-base\n")
