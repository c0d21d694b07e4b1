"""End-to-end tests of the command line (DESIGN.md "Command line"): version, exit codes,
`--fail-on` / `--exit-zero`, rule selection, the concise and text reports, NO_COLOR, and files that
cannot be analysed (PRM001, the run goes on)."""
from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptlint import __version__
from promptlint.cli import main

ANSI = re.compile(r"\x1b\[[0-9;]*m")

# A warning (PRM102, with a related location), a safe-fixable info (PRM201) and an info (PRM301;
# not on the prompt whose prefix the timestamp cuts short: that is PRM102's finding).
CHAT_PY = '''\
import json
from datetime import datetime

from openai import OpenAI

client = OpenAI()

SYSTEM = "You are a support assistant for Acme Corp. Answer briefly and politely, in English."


def answer(question: str) -> str:
    response = client.chat.completions.create(
        model="gpt-4o",
        messages=[
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": question},
        ],
    )
    return response.choices[0].message.content


def stamped(question: str, profile: dict[str, str], history: list) -> str:
    response = client.chat.completions.create(
        model="gpt-4o",
        messages=[
            {"role": "system", "content": f"Now: {datetime.now()}. " + SYSTEM},
            {"role": "system", "content": "Profile: " + json.dumps(profile)},
            *history, {"role": "user", "content": question},
        ],
    )
    return response.choices[0].message.content
'''

# Only an info finding: a short static prompt below the provider's minimum (PRM301 at info).
SHORT_PY = '''\
from openai import OpenAI

client = OpenAI()


def answer(question: str) -> str:
    return client.chat.completions.create(
        model="gpt-4o",
        messages=[
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": question},
        ],
    )
'''

BROKEN_CALL_PY = '''\
from openai import OpenAI

client = OpenAI()


def ask(question:
    return client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": question}])
'''


def run(*args: str, env: dict | None = None):
    result = CliRunner().invoke(main, list(args), env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    return result


def json_report(*args: str) -> dict:
    result = run("check", *args, "--output-format", "json")
    return json.loads(result.stdout)


@pytest.fixture
def faulty(tmp_path, monkeypatch):
    (tmp_path / "chat.py").write_text(CHAT_PY, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def clean(tmp_path, monkeypatch):
    (tmp_path / "util.py").write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    (tmp_path / "README.md").write_text("# util\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


# --- version -------------------------------------------------------------------------------------

def test_version():
    result = run("--version")
    assert result.exit_code == 0
    assert result.stdout.strip() == f"promptlint, version {__version__}"


def test_python_dash_m_version():
    proc = subprocess.run([sys.executable, "-m", "promptlint", "--version"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"promptlint, version {__version__}"


# --- exit codes ----------------------------------------------------------------------------------

def test_clean_dir_exits_0(clean):
    result = run("check", ".")
    assert result.exit_code == 0
    assert "No findings" in result.stdout


def test_faulty_file_exits_1(faulty):
    assert run("check", ".").exit_code == 1
    assert run("check", "chat.py").exit_code == 1


def test_missing_path_exits_2_with_one_line_on_stderr(clean):
    result = run("check", "no-such-dir")
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "no-such-dir" in lines[0]
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_fail_on(faulty):
    report = json_report(".")
    severities = {d["severity"] for d in report["diagnostics"]}
    assert severities == {"warning", "info"}  # no error: --fail-on error passes
    assert run("check", ".", "--fail-on", "error").exit_code == 0
    assert run("check", ".", "--fail-on", "warning").exit_code == 1
    assert run("check", ".", "--fail-on", "info").exit_code == 1


def test_info_only_fails_only_with_fail_on_info(tmp_path, monkeypatch):
    (tmp_path / "short.py").write_text(SHORT_PY, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    report = json_report(".")
    assert [(d["code"], d["severity"]) for d in report["diagnostics"]] == [("PRM301", "info")]
    passed = run("check", ".")
    assert passed.exit_code == 0
    # the report says why nothing fails: the rule's severity in `promptlint rules` is its worst case
    assert passed.stdout.rstrip().endswith(
        "This finding does not fail the run (`fail-on` is warning): a finding is info when its loss is small "
        "or not shown, whatever the rule's own severity; `--fail-on info` fails on it too.")
    failed = run("check", ".", "--fail-on", "info")
    assert failed.exit_code == 1 and "does not fail the run" not in failed.stdout


def test_exit_zero(faulty):
    result = run("check", ".", "--exit-zero")
    assert result.exit_code == 0
    assert "PRM102" in result.stdout  # the findings are still reported


# --- rule selection ------------------------------------------------------------------------------

def test_default_selection_reports_every_finding(faulty):
    codes = sorted(d["code"] for d in json_report(".")["diagnostics"])
    assert codes == ["PRM102", "PRM201", "PRM301"]


def test_select_by_code(faulty):
    report = json_report(".", "--select", "PRM102")
    assert [d["code"] for d in report["diagnostics"]] == ["PRM102"]
    assert len(report["prompts"]) == 2  # selection filters diagnostics, not the analysis


def test_ignore_by_prefix(faulty):
    codes = sorted(d["code"] for d in json_report(".", "--ignore", "PRM1")["diagnostics"])
    assert codes == ["PRM201", "PRM301"]


def test_select_and_ignore_by_name(faulty):
    report = json_report(".", "--select", "timestamp-in-prefix")
    assert [d["code"] for d in report["diagnostics"]] == ["PRM102"]
    codes = sorted(d["code"] for d in json_report(".", "--ignore", "prefix-below-minimum")["diagnostics"])
    assert codes == ["PRM102", "PRM201"]


def test_select_prefix_with_exit_code(faulty):
    result = run("check", ".", "--select", "PRM3", "--output-format", "concise")
    assert result.exit_code == 0  # only infos remain
    *lines, last = result.stdout.splitlines()
    assert [line.split()[1] for line in lines] == ["PRM301"]
    assert last.startswith("Found 1 finding (1 info) in ")


# --- reports -------------------------------------------------------------------------------------

CONCISE_LINE = re.compile(r"^(?P<file>[^:]+):(?P<row>\d+):(?P<col>\d+): (?P<code>PRM\d{3}) "
                          r"\[(?P<severity>info|warning|error)\] (?P<message>.+)$")


def test_concise_with_no_finding_says_so(tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text("x = 1\n")
    monkeypatch.chdir(tmp_path)
    result = run("check", ".", "--output-format", "concise", "--no-cache")
    assert result.exit_code == 0
    assert result.stdout == "No findings in 1 file checked; 0 prompts analysed.\n"


def test_concise_is_one_line_per_finding(faulty):
    report = json_report(".")
    result = run("check", ".", "--output-format", "concise")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    if lines and lines[-1].startswith("[*] "):  # the fix hint ends the report, as in ruff's concise output
        lines.pop()
    assert lines.pop().startswith("Found 3 findings (")  # then the summary line, as ruff's 'Found 3 errors.'
    assert len(lines) == len(report["diagnostics"]) == 3
    parsed = [CONCISE_LINE.match(line) for line in lines]
    assert all(parsed), lines
    assert [(m["file"], int(m["row"]), int(m["col"]), m["code"], m["severity"], m["message"]) for m in parsed] == [
        (d["filename"], d["location"]["row"], d["location"]["column"], d["code"], d["severity"], d["message"])
        for d in report["diagnostics"]]


def test_text_report(faulty):
    result = run("check", ".")
    assert result.exit_code == 1
    out = result.stdout
    assert not ANSI.search(out)  # not a terminal: no colour
    assert "chat.py:26:50: PRM102 [warning] Timestamp `datetime.now()`" in out
    # the code frame: the source line with its row number, and a caret under the column
    frame = [line for line in out.splitlines() if re.match(r"^\s+26 \| ", line)]
    assert frame and 'f"Now: {datetime.now()}. " + SYSTEM' in frame[0]
    caret = out.splitlines()[out.splitlines().index(frame[0]) + 1]
    assert re.fullmatch(r"\s+\| \s*\^", caret) and caret.index("^") - caret.index("|") - 2 == 50 - 1
    assert "= related:" not in out  # `datetime.now()` is made in the field the caret points at (26:50)
    assert "= fix (safe): Add `sort_keys=True`" in out
    assert out.rstrip().splitlines()[-2] == "Found 3 findings (1 warning, 2 info) in 1 file checked; 2 prompts analysed."
    assert out.rstrip().splitlines()[-1] == "[*] 1 fixable with `promptlint fix`."


def _run_in_pty(args: list[str], cwd: Path, env: dict) -> str:
    """Run promptlint with stdout on a pseudo-terminal (so it colours by default); its output."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "promptlint", *args], cwd=cwd, env=env,
                            stdout=slave, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO once the child has closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    proc.wait(timeout=120)
    stderr = proc.stderr.read().decode("utf-8", errors="replace")
    proc.stderr.close()
    assert "Traceback" not in stderr, stderr
    assert proc.returncode == 1, stderr
    return b"".join(chunks).decode("utf-8", errors="replace")


def _terminal_env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS")}
    return {**env, "TERM": "xterm-256color", **extra}


def test_no_color_is_respected(faulty):
    plain = _run_in_pty(["check", "."], faulty, _terminal_env(NO_COLOR="1"))
    assert not ANSI.search(plain)
    assert "chat.py:26:50: PRM102" in plain and "Found 3 findings" in plain


def test_a_terminal_gets_colour(faulty):
    """The control for the NO_COLOR test: on a terminal, without NO_COLOR, the report is coloured."""
    coloured = _run_in_pty(["check", "."], faulty, _terminal_env())
    assert ANSI.search(coloured)
    assert "PRM102" in ANSI.sub("", coloured) and "Found 3 findings" in ANSI.sub("", coloured)


# --- files that cannot be analysed ---------------------------------------------------------------

def test_unreadable_files_are_prm001_and_the_run_goes_on(faulty):
    (faulty / "blob.py").write_bytes(b"x = 1\x00\x01\x02\xff\xfe\n")
    (faulty / "latin.py").write_bytes('PROMPT = "café au lait"\n'.encode("latin-1"))
    (faulty / "broken_call.py").write_text(BROKEN_CALL_PY, encoding="utf-8")
    result = run("check", ".", "--output-format", "json")
    assert result.exit_code == 1
    assert "Traceback" not in result.stderr
    report = json.loads(result.stdout)
    assert report["errors"] == []
    syntax = {d["filename"]: d for d in report["diagnostics"] if d["code"] == "PRM001"}
    assert set(syntax) == {"blob.py", "latin.py", "broken_call.py"}
    for d in syntax.values():
        assert d["name"] == "syntax-error" and d["severity"] == "error"
    assert syntax["blob.py"]["location"] == {"row": 1, "column": 1}
    assert syntax["latin.py"]["location"] == {"row": 1, "column": 14}  # the byte "é" is, in its message too
    assert "at line 1, column 14 (byte 0xe9)" in syntax["latin.py"]["message"]
    assert syntax["broken_call.py"]["location"]["row"] in (6, 7)
    # the other findings are still reported
    assert sorted(d["code"] for d in report["diagnostics"] if d["filename"] == "chat.py") == [
        "PRM102", "PRM201", "PRM301"]
    assert report["prompts"] and all(p["filename"] == "chat.py" for p in report["prompts"])
    # and in the text report too
    text = run("check", ".")
    assert text.exit_code == 1 and "Traceback" not in text.stdout + text.stderr
    assert "blob.py:1:1: PRM001" in text.stdout and "chat.py:26:50: PRM102" in text.stdout


def test_syntax_error_is_prm001_in_every_python_file(clean):
    """PRM001's own example (`def broken(:`) is reported in a file that can hold a prompt and in
    one that mentions no LLM API, prompt or semantic cache (not analysed, but parsed: as ruff
    reports a syntax error in every file it checks)."""
    (clean / "broken.py").write_text("def broken(:\n    pass\n", encoding="utf-8")
    (clean / "chat.py").write_text("import openai\nSYSTEM_PROMPT = f'x {y'\n", encoding="utf-8")
    report = json_report(".")
    assert [(d["code"], d["filename"]) for d in report["diagnostics"]] == [("PRM001", "broken.py"), ("PRM001", "chat.py")]
    assert run("check", ".").exit_code == 1


def test_only_unsafe_fixes_say_no_fixes_available_as_ruff_does(tmp_path, monkeypatch):
    from test_fix_cli import UNSAFE_APP  # a time before 90 static lines: only an unsafe move fixes it
    (tmp_path / "chat.py").write_text(UNSAFE_APP, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    out = run("check", ".").stdout.rstrip().splitlines()
    assert out[-1] == "No fixes available (1 hidden fix can be enabled with `promptlint fix --unsafe-fixes`)."


ADAPTER = '''import anthropic

client = anthropic.Anthropic()


def send(system, messages):
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=512, system=system, messages=messages)


def ask(question):
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=512, system="Be brief.",
                                  messages=[{"role": "user", "content": question}])
'''


def test_summary_names_the_requests_whose_text_was_not_read(tmp_path, monkeypatch):
    """A request whose every part is content of unknown origin (an adapter's parameters) is named
    under the summary: a clean report does not vouch for its text; one with static text is not."""
    (tmp_path / "adapter.py").write_text(ADAPTER)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "adapter.py", "--no-cache", "--ignore", "PRM302,PRM301"])
    assert result.stdout.splitlines()[-1] == (
        "1 of them holds no text promptlint could read (built where it does not follow), so findings in that "
        "text may be missing (`promptlint explain` says why): adapter.py:7:12")
    (tmp_path / "adapter.py").write_text(ADAPTER.split("\n\n\ndef send")[0] + "\n")
    result = CliRunner().invoke(main, ["check", "adapter.py", "--no-cache"])
    assert "promptlint could read" not in result.stdout
