"""What ruff users expect of the command line (issue 14), driven with click's CliRunner."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest

from ci_support import CHAT_PY, ROOT, TIMESTAMP_ROW, cli, git
from promptlint.model import Applicability, Diagnostic, Edit, Fix, Position, Report, Severity, Span
from promptlint.report import statistics

ANSI = re.compile(r"\x1b\[[0-9;]*m")
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture
def app(tmp_path, monkeypatch):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "chat.py").write_text(CHAT_PY, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for name in ("NO_COLOR", "FORCE_COLOR", "PROMPTLINT_OUTPUT_FORMAT", "PROMPTLINT_DOCS_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def codes(result) -> list[tuple[str, str]]:
    return [(d["filename"], d["code"]) for d in json.loads(result.stdout)["diagnostics"]]


# --- blocking item 1: a file that is not Python and not a prompt is skipped ------------------------

def test_a_readme_named_explicitly_is_skipped_not_a_syntax_error(app):
    (app / "README.md").write_text("# My app\n\nSome docs.\n", encoding="utf-8")
    (app / "notes.txt").write_text("Remember the changelog.\n", encoding="utf-8")
    result = cli("check", "README.md", "notes.txt")
    assert result.exit_code == 0, result.stdout
    assert "PRM001" not in result.stdout
    assert "a README, are skipped" in result.stderr
    both = cli("check", "README.md", "app/chat.py", "--output-format", "json")
    assert codes(both) == [("app/chat.py", "PRM102"), ("app/chat.py", "PRM201")]


def test_a_prompt_markdown_file_named_explicitly_is_still_checked(app):
    (app / "prompts").mkdir()
    (app / "prompts" / "system.md").write_text("Today is {{ today }}.\n", encoding="utf-8")
    result = cli("check", "prompts/system.md", "--output-format", "json")
    assert json.loads(result.stdout)["prompts"][0]["filename"] == "prompts/system.md"


# --- analysis errors --------------------------------------------------------------------------------

def test_an_analysis_error_exits_2_and_names_the_file_unless_excluded(app, monkeypatch):
    """An error of the analysis itself (not a finding about the file: those are PRM001) is listed
    under `errors` with the file and the reason, and the run exits 2."""
    import promptlint.engine as engine

    def broken(self, path, filename, force, report):
        raise RuntimeError("analysis failed")

    monkeypatch.setattr(engine.Linter, "_python", broken)
    result = cli("check", ".", "--output-format", "json")
    assert result.exit_code == 2
    assert json.loads(result.stdout)["errors"] == ["app/chat.py: internal error: RuntimeError: analysis failed"]
    assert "promptlint: error: app/chat.py: internal error: RuntimeError: analysis failed" in result.stderr
    assert cli("check", ".", "--exit-zero").exit_code == 2  # --exit-zero is about findings only
    sarif = json.loads(cli("check", ".", "--output-format", "sarif").stdout)
    assert sarif["runs"][0]["invocations"][0]["executionSuccessful"] is False
    (app / "promptlint.toml").write_text('extend-exclude = ["app/chat.py"]\n', encoding="utf-8")
    assert cli("check", ".").exit_code == 0


# --- fix and the options it used to ignore ----------------------------------------------------------

@pytest.mark.parametrize("option", [["--baseline", "b.json"], ["--diff-base", "HEAD"], ["--write-baseline", "b.json"]])
def test_fix_refuses_options_it_cannot_honour(app, option):
    for args in (["check", "--fix", *option, "."], ["check", "--diff", *option, "."]):
        result = cli(*args)
        assert result.exit_code == 2, args
        assert f"{option[0]} cannot be combined with fixing" in result.stderr
    result = cli("fix", *option, ".")
    assert result.exit_code == 2 and f"{option[0]} cannot be combined with fixing" in result.stderr
    assert (app / "app" / "chat.py").read_text(encoding="utf-8") == CHAT_PY
    assert not (app / "b.json").exists()


def test_fix_honours_output_file_statistics_and_show_fixes(app):
    out = app / "remaining.json"
    result = cli("fix", ".", "--output-format", "json", "--output-file", str(out), "--show-fixes")
    assert result.exit_code == 1  # PRM102 remains (no safe fix)
    assert result.stdout == ""
    assert [d["code"] for d in json.loads(out.read_text())["diagnostics"]] == ["PRM102"]
    assert "Fixed (1):\n  app/chat.py:16:" in result.stderr and "PRM201 [safe] Add `sort_keys=True`" in result.stderr
    assert "json.dumps(profile, sort_keys=True)" in (app / "app" / "chat.py").read_text()
    stats = cli("fix", ".", "--statistics")
    assert stats.stdout.startswith("1  PRM102  timestamp-in-prefix\n")
    diff_file = app / "fix.diff"
    (app / "app" / "chat.py").write_text(CHAT_PY, encoding="utf-8")
    diff = cli("fix", "--diff", ".", "--output-file", str(diff_file))
    assert diff.exit_code == 1 and diff.stdout == ""
    assert "+" in diff_file.read_text() and "sort_keys=True" in diff_file.read_text()


# --- --diff-base: the merge base, as git diff REF... -------------------------------------------------

@needs_git
def test_diff_base_uses_the_merge_base(app):
    other = CHAT_PY.replace("def stamped", "def stamped_too")
    (app / "app" / "other.py").write_text(other, encoding="utf-8")
    git(app, "init", "-q", "-b", "main")
    git(app, "add", ".")
    git(app, "commit", "-q", "-m", "base")
    git(app, "checkout", "-q", "-b", "feature")
    (app / "app" / "new.py").write_text(CHAT_PY, encoding="utf-8")
    git(app, "add", ".")
    git(app, "commit", "-q", "-m", "feature work")
    git(app, "checkout", "-q", "main")  # main moves on: it edits other.py, which the branch never touched
    (app / "app" / "other.py").write_text(other.replace('"Now: ', '"Time: '), encoding="utf-8")
    git(app, "commit", "-q", "-am", "main work")
    git(app, "checkout", "-q", "feature")
    for ref in ("main", "main...HEAD", "main...feature"):
        result = cli("check", ".", "--diff-base", ref, "--output-format", "json")
        assert sorted(codes(result)) == [("app/new.py", "PRM102"), ("app/new.py", "PRM201")], ref
    # two dots compare the two commits themselves: what main changed in other.py counts too
    result = cli("check", ".", "--diff-base", "main..feature", "--output-format", "json")
    assert ("app/other.py", "PRM102") in codes(result)
    bad = cli("check", ".", "--diff-base", "main...nope")
    assert (bad.exit_code, bad.stderr) == (2, "promptlint: unknown git ref `nope` for --diff-base\n")


# --- configuration: nested configs, extend, git excludes, named excluded files ----------------------

def test_the_closest_config_to_each_file_wins(app):
    (app / "pyproject.toml").write_text('[tool.promptlint]\nignore = ["PRM201"]\n', encoding="utf-8")
    pkg = app / "packages" / "billing"
    pkg.mkdir(parents=True)
    (pkg / "chat.py").write_text(CHAT_PY, encoding="utf-8")
    (pkg / "promptlint.toml").write_text('ignore = ["PRM102"]\n', encoding="utf-8")
    result = cli("check", ".", "--output-format", "json")
    assert codes(result) == [("app/chat.py", "PRM102"), ("packages/billing/chat.py", "PRM201")]
    # a run on the package alone uses the package's config; --config names one file for all
    assert codes(cli("check", "packages", "--output-format", "json")) == [("packages/billing/chat.py", "PRM201")]
    forced = cli("check", ".", "--config", "pyproject.toml", "--output-format", "json")
    assert codes(forced) == [("app/chat.py", "PRM102"), ("packages/billing/chat.py", "PRM102")]


def test_extend_reads_the_parent_config_first(app):
    (app / "promptlint.toml").write_text('ignore = ["PRM201"]\n', encoding="utf-8")
    pkg = app / "pkg"
    pkg.mkdir()
    (pkg / "chat.py").write_text(CHAT_PY, encoding="utf-8")
    (pkg / "legacy.py").write_text(CHAT_PY, encoding="utf-8")
    (pkg / "promptlint.toml").write_text('extend = "../promptlint.toml"\n'
                                         '[per-file-ignores]\n"legacy.py" = ["PRM102"]\n', encoding="utf-8")
    result = cli("check", "pkg", "--output-format", "json")
    assert codes(result) == [("pkg/chat.py", "PRM102")]
    (app / "promptlint.toml").write_text('extend = "pkg/promptlint.toml"\n', encoding="utf-8")
    looped = cli("check", "pkg")
    assert looped.exit_code == 2 and "`extend` loops" in looped.stderr


@needs_git
def test_git_info_exclude_and_the_global_excludes_file_are_honoured(app, monkeypatch):
    git(app, "init", "-q")
    for name in ("private", "scratch"):
        (app / name).mkdir()
        (app / name / "chat.py").write_text(CHAT_PY, encoding="utf-8")
    (app / ".git" / "info").mkdir(exist_ok=True)
    (app / ".git" / "info" / "exclude").write_text("private/\n", encoding="utf-8")
    global_ignore = app.parent / "global-ignore"
    global_ignore.write_text("scratch/\n", encoding="utf-8")
    gitconfig = app.parent / "gitconfig"
    gitconfig.write_text(f"[core]\n\texcludesFile = {global_ignore}\n", encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    result = cli("check", ".", "--output-format", "json")
    assert {f for f, _ in codes(result)} == {"app/chat.py"}
    # git's default global file, $XDG_CONFIG_HOME/git/ignore, when core.excludesFile is not set
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(app.parent / "empty-gitconfig"))
    (app.parent / "xdg" / "git").mkdir(parents=True)
    (app.parent / "xdg" / "git" / "ignore").write_text("app/\n", encoding="utf-8")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(app.parent / "xdg"))
    assert {f for f, _ in codes(cli("check", ".", "--output-format", "json"))} == {"scratch/chat.py"}


def test_named_files_in_excluded_folders_are_checked_unless_force_exclude(app):
    (app / "build").mkdir()
    (app / "build" / "app.py").write_text(CHAT_PY, encoding="utf-8")
    assert {f for f, _ in codes(cli("check", ".", "--output-format", "json"))} == {"app/chat.py"}
    named = cli("check", "build/app.py", "--output-format", "json")
    assert named.exit_code == 1 and {f for f, _ in codes(named)} == {"build/app.py"}
    folder = cli("check", "build", "--output-format", "json")  # a named folder too
    assert {f for f, _ in codes(folder)} == {"build/app.py"}
    forced = cli("check", "build/app.py", "--force-exclude")
    assert forced.exit_code == 0
    assert "so are excluded ones, with --force-exclude" in forced.stderr
    assert cli("check", "build", "--force-exclude").exit_code == 0
    (app / "promptlint.toml").write_text("force-exclude = true\n", encoding="utf-8")
    assert cli("check", "build/app.py").exit_code == 0


# --- --stdin-filename ---------------------------------------------------------------------------------

def test_stdin_filename_reports_the_same_findings_as_the_file(app):
    as_file = cli("check", "app/chat.py", "--output-format", "json")
    piped = cli("check", "-", "--stdin-filename", "app/chat.py", "--output-format", "json", input=CHAT_PY)
    assert piped.exit_code == as_file.exit_code == 1
    assert json.loads(piped.stdout)["diagnostics"] == json.loads(as_file.stdout)["diagnostics"]


def test_stdin_is_an_unsaved_buffer_standing_in_for_the_file(app):
    (app / "app" / "chat.py").write_text("x = 1\n", encoding="utf-8")  # the saved file is clean
    piped = cli("check", "--stdin-filename", "app/chat.py", "--output-format", "json", input=CHAT_PY)
    assert codes(piped) == [("app/chat.py", "PRM102"), ("app/chat.py", "PRM201")]
    new = cli("check", "-", "--stdin-filename", "app/unsaved.py", "--output-format", "json", input=CHAT_PY)
    assert [f for f, _ in codes(new)] == ["app/unsaved.py", "app/unsaved.py"]
    assert cli("check", "-").exit_code == 2
    assert "needs --stdin-filename" in cli("check", "-").stderr


def test_stdin_acceptance_command_in_a_shell(app):
    """`promptlint check - --stdin-filename app/chat.py < app/chat.py`, as the issue runs it."""
    shell = subprocess.run(f"{sys.executable} -m promptlint check - --stdin-filename app/chat.py "
                           "--output-format concise < app/chat.py", shell=True, cwd=app, capture_output=True,
                           text=True, timeout=120)
    assert shell.returncode == 1, shell.stderr
    assert cli("check", "app/chat.py", "--output-format", "concise").stdout == shell.stdout
    assert shell.stdout.startswith(f"app/chat.py:{TIMESTAMP_ROW}:")


# --- colour, hints, statistics, environment ----------------------------------------------------------

def test_color_option_force_color_and_no_ansi_in_output_files(app):
    assert ANSI.search(cli("check", ".", "--color", "always").stdout)
    assert not ANSI.search(cli("check", ".", "--color", "never", env={"FORCE_COLOR": "1"}).stdout)
    assert not ANSI.search(cli("check", ".").stdout)  # not a terminal
    assert ANSI.search(cli("check", ".", env={"FORCE_COLOR": "1"}).stdout)
    assert not ANSI.search(cli("check", ".", env={"FORCE_COLOR": "1", "NO_COLOR": "1"}).stdout)
    out = app / "report.txt"
    result = cli("check", ".", "--color", "always", "--output-file", str(out))
    assert result.stdout == "" and "PRM102" in out.read_text() and not ANSI.search(out.read_text())


def test_fix_hint_and_show_fixes(app):
    text = cli("check", ".")
    assert text.stdout.rstrip().endswith("[*] 1 fixable with `promptlint fix`.")
    shown = cli("check", ".", "--show-fixes", "--output-format", "json")
    assert shown.stderr == "Fixes available (1):\n  app/chat.py:16:57: PRM201 [safe] Add `sort_keys=True`\n"
    json.loads(shown.stdout)  # the payload stays clean
    (app / "app" / "chat.py").write_text("x = 1\n")
    assert cli("check", ".", "--show-fixes", "--no-cache").stderr == "Fixes available: none.\n"


def test_statistics_mark_unsafe_only_fixes_apart():
    def diag(code, applicability):
        fix = Fix(applicability, "m", [Edit("x", Position(1, 1), Position(1, 2))]) if applicability else None
        return Diagnostic(code, code.lower(), Severity.WARNING, "m", Span("a.py", Position(1, 1), Position(1, 2)),
                          fix=fix)
    report = Report(diagnostics=[diag("PRM102", Applicability.UNSAFE), diag("PRM201", Applicability.SAFE),
                                 diag("PRM104", None), diag("PRM102", Applicability.UNSAFE)])
    rows = statistics.statistics(report)
    assert [(r["code"], r["fixable"], r["unsafe_fixable"]) for r in rows] == [
        ("PRM102", 0, 2), ("PRM104", 0, 0), ("PRM201", 1, 0)]
    assert statistics.render(report).splitlines() == [
        "2  PRM102  prm102  [-]", "1  PRM104  prm104", "1  PRM201  prm201  [*]",
        "[*] fixable with `promptlint fix`", "[-] fixable with `promptlint fix --unsafe-fixes` only"]


def test_promptlint_output_format_environment_variable(app):
    result = cli("check", ".", env={"PROMPTLINT_OUTPUT_FORMAT": "json"})
    assert json.loads(result.stdout)["diagnostics"]
    assert cli("check", ".", "--output-format", "concise", env={"PROMPTLINT_OUTPUT_FORMAT": "json"}).stdout \
        .startswith("app/chat.py:")
    bad = cli("check", ".", env={"PROMPTLINT_OUTPUT_FORMAT": "xml"})
    assert bad.exit_code == 2


def test_a_bad_environment_value_names_the_variable_not_the_option(app):
    bad = cli("check", ".", env={"PROMPTLINT_OUTPUT_FORMAT": "xml"})
    assert "Invalid value for environment variable PROMPTLINT_OUTPUT_FORMAT: 'xml'" in bad.stderr
    assert "'--output-format'" not in bad.stderr
    typed = cli("check", ".", "--output-format", "xml")  # typed on the command line: the option is named
    assert typed.exit_code == 2
    assert "Invalid value for '--output-format': 'xml'" in typed.stderr
    assert "PROMPTLINT_OUTPUT_FORMAT" not in typed.stderr


def test_an_html_report_for_a_terminal_is_written_with_a_note(app, monkeypatch, capsys):
    from promptlint import cli_output
    cli_output.warn_html_terminal("html", None, isatty=True)
    assert capsys.readouterr().err == ("promptlint: the HTML report is written to the terminal; to open it in a "
                                       "browser, write it to a file: --output-file report.html\n")
    for fmt, output_file, statistics_, tty in (("html", None, False, False), ("text", None, False, True),
                                               ("html", app / "r.html", False, True), ("html", None, True, True)):
        cli_output.warn_html_terminal(fmt, output_file, statistics_, isatty=tty)
        assert capsys.readouterr().err == ""
    piped = cli("check", ".", "--output-format", "html")  # CliRunner's stdout is no terminal: no note
    assert piped.stdout.lstrip().startswith("<!doctype html>") and "--output-file" not in piped.stderr


# --- explain ------------------------------------------------------------------------------------------

@pytest.fixture
def demo(monkeypatch, tmp_path):
    # a copy that is its own project: in the repository, explain would read every file of it
    shutil.copytree(ROOT / "fixtures" / "demo", tmp_path / "demo")
    (tmp_path / "demo" / "pyproject.toml").write_text("", encoding="utf-8")
    monkeypatch.chdir(tmp_path / "demo")


def test_explain_shows_only_the_named_files_prompts(demo):
    # render.py:2 is an import; the template the call at render.py:28 renders has a segment on its line 2
    result = cli("explain", "helpdesk/render.py:2")
    assert result.exit_code == 2 and "no prompt found at helpdesk/render.py:2" in result.stderr


def test_explain_a_template_line_finds_the_call_that_renders_it(demo):
    findings = json.loads(cli("check", ".", "--output-format", "json").stdout)["diagnostics"]
    finding = next(d for d in findings if d["filename"] == "helpdesk/templates/system.md.j2" and d["code"] == "PRM102")
    result = cli("explain", f"helpdesk/templates/system.md.j2:{finding['location']['row']}", "--output-format", "json")
    assert result.exit_code == 0, result.stderr
    prompts = json.loads(result.stdout)["prompts"]
    assert [p["id"] for p in prompts] == [finding["prompt"]]
    assert prompts[0]["source"] == "python-call"


def test_explain_does_not_hard_wrap_when_piped(demo):
    out = cli("explain", "helpdesk/render.py").stdout
    notes = [line for line in out.splitlines() if "has no openai profile" in line]
    assert notes and all(line.rstrip().endswith("GPT-5 to GPT-5.4") for line in notes)  # the whole note on one line


def test_fix_takes_jobs_as_check_does(app, monkeypatch):
    from promptlint import api
    seen = []
    real = api.check

    def counting(*args, **kwargs):
        seen.append(kwargs["jobs"] if "jobs" in kwargs else args[2] if len(args) > 2 else None)
        return real(*args, **kwargs)

    monkeypatch.setattr(api, "check", counting)
    result = cli("fix", ".", "--jobs", "1", "--diff")
    assert result.exit_code == 1  # the PRM201 fix would change app/chat.py
    assert seen and seen[0] == 1  # the check of the run used the jobs asked for
    assert (app / "app" / "chat.py").read_text(encoding="utf-8") == CHAT_PY
    assert cli("fix", ".", "--jobs", "0").exit_code == 2  # out of range: click says so
