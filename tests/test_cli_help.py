"""What a new user reads first: `--help` of the command and of each subcommand, and the one-line
errors of a bad path, option or configuration value (a scratch project in a temporary folder)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptlint.cli import check, fix_command, main
from promptlint.source import SourceError, decode_python

ROOT = Path(__file__).resolve().parent.parent
APP = '''from datetime import datetime

from openai import OpenAI

client = OpenAI()


def ask(question):
    system = f"Now: {datetime.now():%H:%M}\\n" + "Answer in English and cite the manual. " * 300
    return client.chat.completions.create(
        model="gpt-4o", messages=[{"role": "system", "content": system}, {"role": "user", "content": question}])
'''


def cli(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    (tmp_path / "app.py").write_text(APP, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


# --- help ----------------------------------------------------------------------------------------

def test_python_m_names_the_command_promptlint():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-m", "promptlint", "check", "--help"], capture_output=True, text=True,
                         env=env, cwd=ROOT, check=True).stdout
    assert out.startswith("Usage: promptlint check [OPTIONS] [PATHS]...")
    bad = subprocess.run([sys.executable, "-m", "promptlint", "check", "--fail-on", "warn"], capture_output=True,
                         text=True, env=env, cwd=ROOT)
    assert bad.returncode == 2 and "Try 'promptlint check --help' for help." in bad.stderr


def test_every_command_has_a_whole_one_line_summary():
    """`promptlint --help` lists each command with a summary that is not cut off ("...")."""
    out = cli("--help").stdout
    listed = out.split("Commands:\n", 1)[1]
    names = [line.split()[0] for line in listed.splitlines() if line.startswith("  ") and not line.startswith("   ")]
    assert names == ["check", "explain", "fix", "models", "rule", "rules", "server", "trace"]
    assert "..." not in listed
    assert "  fix      Apply fixes (= check --fix); --unsafe-fixes for the unsafe ones." in listed


def test_fix_takes_the_options_of_check():
    """`fix` is `check --fix`: every option of check is one of fix too, but for those that report
    part of the findings or read stdin (refused with a message, hidden)."""
    names = lambda command: {o for p in command.params for o in p.opts if o.startswith("-")}
    only_check = names(check) - names(fix_command)
    assert only_check == {"--fix", "--stdin-filename"}
    for option in ("--target", "--extend-select", "--fail-on", "--quiet", "-q", "--docs-url"):
        assert option in names(fix_command)
    shown = {p.opts[0]: p.help for p in fix_command.params if getattr(p, "help", None)}
    assert shown["--select"] == {p.opts[0]: getattr(p, "help", None) for p in check.params}["--select"]


def test_option_placeholders_say_what_they_take():
    out = cli("check", "--help").stdout
    assert "--select RULES" in out and "--ignore RULES" in out and "--extend-select RULES" in out
    assert "comma-" in out and "TEXT" not in out
    explain = cli("explain", "--help").stdout
    assert "--target PROVIDER:MODEL" in explain and "TEXT" not in explain
    for command in ("rule", "rules"):
        text = cli(command, "--help").stdout
        assert "--output-format [text|json]  " in text and "[default: text]" in text


# --- errors --------------------------------------------------------------------------------------

def test_an_unknown_rule_says_what_a_selector_is(scratch):
    result = cli("check", "--select", "PRM1X", ".")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("promptlint: unknown rule selector `PRM1X` in `--select`")
    assert result.stderr.endswith("(a code such as PRM102, a prefix such as PRM1, a name or ALL: "
                                  "`promptlint rules` lists them)\n")
    ignored = cli("check", "--ignore", "timestamp", ".")
    assert "unknown rule selector `timestamp` in `--ignore`; did you mean `timestamp-in-prefix`?" in ignored.stderr


def test_a_bad_target_names_the_option_or_the_file_it_came_from(scratch):
    assert cli("check", "--target", "openai", ".").stderr == (
        "promptlint: invalid target `openai` for `--target`: expected PROVIDER:MODEL, e.g. openai:gpt-4o\n")
    (scratch / "pyproject.toml").write_text('[tool.promptlint]\ntargets = ["openai:gpt-9"]\n', encoding="utf-8")
    result = cli("check", ".")
    assert result.exit_code == 2
    assert result.stderr.startswith("promptlint: target `openai:gpt-9` (in `targets` in pyproject.toml): unknown "
                                    "openai model `gpt-9`")


def test_config_errors_name_the_file_as_reports_do_in_lower_case(scratch):
    (scratch / "pyproject.toml").write_text('[tool.promptlint]\nfail-on = "warn"\n', encoding="utf-8")
    assert cli("check", ".").stderr == ("promptlint: invalid value `warn` for `fail-on` in [tool.promptlint] of "
                                        "pyproject.toml: expected one of info, warning, error; did you mean "
                                        "`warning`?\n")
    (scratch / "pyproject.toml").write_text("[tool.promptlint]\nselect = [\n", encoding="utf-8")
    assert cli("check", ".").stderr.startswith("promptlint: invalid TOML in pyproject.toml: ")
    assert cli("check", "--config", "nope.toml", ".").stderr.startswith(
        "promptlint: cannot read config file nope.toml: ")


def test_an_empty_folder_warns_without_talking_of_named_files(tmp_path, monkeypatch):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "README.md").write_text("# Notes\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert cli("check", "docs").stderr == \
        "promptlint: warning: no Python, template, prompt or config file found to check in docs\n"
    assert cli("check", "docs/README.md").stderr == (
        "promptlint: warning: no Python, template, prompt or config file found to check in docs/README.md "
        "(named files of other kinds, such as a README, are skipped)\n")


def test_quiet_fixing_prints_the_findings_only(scratch):
    for args in (("fix", "-q"), ("check", "--fix", "-q"), ("fix", "--diff", "-q")):
        result = cli(*args, "--no-cache", ".")
        assert "Found" not in result.stdout and "fixed" not in result.stderr, args
        assert result.stderr == "", args
    assert "app.py:9:21: PRM102 [warning]" in cli("fix", "-q", "--no-cache", ".").stdout


def test_fixing_prints_the_errors_of_the_run_as_check_does(scratch, monkeypatch):
    from promptlint import api
    real = api.check

    def with_error(*args, **kwargs):
        report = real(*args, **kwargs)
        report.errors.append("locked: cannot read folder: Permission denied; skipped")
        return report
    monkeypatch.setattr(api, "check", with_error)
    result = cli("fix", "--no-cache", ".")
    assert result.exit_code == 2
    assert "promptlint: error: locked: cannot read folder: Permission denied; skipped" in result.stderr


def test_a_python_file_not_in_utf8_says_so_on_its_first_lines_too(scratch):
    with pytest.raises(SourceError) as first:
        decode_python(b'x = 1\nPROMPT = "caf\xe9"\n')
    # (main: "not valid UTF-8 (byte 19)" at 2:1, "(byte 13)" at 1:1: a byte count the location did not match)
    assert (str(first.value), first.value.row, first.value.column) == \
        ("not valid UTF-8 at line 2, column 14 (byte 0xe9)", 2, 14)
    (scratch / "latin.py").write_bytes(b'PROMPT = "caf\xe9"\n')
    out = cli("check", "--no-cache", "--output-format", "concise", "latin.py").stdout
    assert "latin.py:1:14: PRM001 [error] Cannot analyse this file: not valid UTF-8 at line 1, column 14 (byte 0xe9)" in out


def test_a_template_syntax_error_is_located_once(scratch):
    (scratch / "prompts").mkdir()
    (scratch / "prompts" / "system.j2").write_text("Hello\n{% if x %}\nhi\n", encoding="utf-8")
    out = cli("check", "--no-cache", "--output-format", "concise", "prompts/system.j2").stdout
    line = next(x for x in out.splitlines() if "PRM001" in x)
    assert line.startswith("prompts/system.j2:") and ": PRM001 [error] Cannot analyse this file: template syntax " \
        "error: Unexpected end of template." in line
    assert "system.j2:" not in line.split("PRM001", 1)[1]  # the place is not repeated in the message


def test_explain_at_a_file_that_could_not_be_parsed_says_so(scratch):
    # (main: "This finding is judged where the code changes the request, not on one prompt")
    (scratch / "broken.py").write_text("PROMPT = (\n", encoding="utf-8")
    result = cli("explain", "--no-cache", "broken.py:1")
    assert "PRM001" in result.stdout
    assert "This file could not be read or parsed, so no prompt in it was analysed" in result.stdout
    assert "judged where the code changes the request" not in result.stdout


def test_check_help_and_readme_agree_on_where_the_cache_goes():
    """`check --help` names the folder `cache.default_dir` really uses (the configuration file's
    folder, else the current one), as the README does; not "the project root"."""
    from promptlint.cache import default_dir
    text = " ".join(CliRunner().invoke(main, ["check", "--help"]).output.split())
    assert "default: .promptlint_cache in the folder of the configuration file, else the current folder" in text
    assert "project root" not in text
    readme = " ".join((Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8").split())
    assert "in the folder of the configuration file, else the current folder" in readme
    assert default_dir(Path("/x/pkg/promptlint.toml")) == Path("/x/pkg/.promptlint_cache")
    assert default_dir(None) == Path.cwd() / ".promptlint_cache"
