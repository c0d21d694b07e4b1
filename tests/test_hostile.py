"""Hostile and odd input (issue 17): each row is a small tree checked by the command line
(`promptlint check . --output-format json`). Every row: the exit code as documented (0 clean, 1
findings, 2 usage, configuration or run errors), a complete JSON report on stdout (strict UTF-8),
no traceback, and the good file of the tree still analysed with its finding reported.

A row whose input could hang, crash or exhaust the interpreter (FIFOs and devices, deep nesting,
backtracking text, YAML bombs, worker processes, crashes), or that is about `python -m` itself,
runs a real subprocess (`run`) with a generous timeout as a deadlock guard (not a speed
assertion). The other rows (symlink loops, unreadable and excluded folders, file names, writes that
fail) run the same command line in this process (`run_here`: click's CliRunner, the same
arguments, environment and current folder; an exception that escapes is the traceback): about a
second less each, the interpreter's start and promptlint's imports.

Rows: configuration, discovery and command line; deep nesting, long chains and huge
concatenations; text that makes regular expressions backtrack; YAML bombs; a large tree; worker
processes that crash, run out of memory or hang.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

import pytest
from click.testing import CliRunner

from ci_support import CHAT_PY, TIMESTAMP_ROW
from promptlint.cli import main

TIMEOUT = 180  # seconds: a hang guard only
GOOD = ("good.py", "PRM102", TIMESTAMP_ROW)
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0

# Root reads and writes through any mode bits: there, a denied folder is simulated at the one
# system call that meets it (this process runs the command line: `run_here`).
def deny_scandir(monkeypatch) -> None:
    scandir = os.scandir

    def denied(path="."):
        if os.path.basename(os.fspath(path)) == "locked":
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return scandir(path)
    monkeypatch.setattr(os, "scandir", denied)


def deny_mkstemp(monkeypatch) -> None:
    mkstemp = tempfile.mkstemp

    def denied(*args, dir=None, **kwargs):
        if dir is not None and os.path.basename(os.fspath(dir)) == "readonly":
            raise PermissionError(13, "Permission denied", os.fspath(dir))
        return mkstemp(*args, dir=dir, **kwargs)
    monkeypatch.setattr(tempfile, "mkstemp", denied)


def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    root.mkdir()
    (root / GOOD[0]).write_text(CHAT_PY, encoding="utf-8")
    return root


def run(root: Path, *args: str, startup: Path | None = None) -> subprocess.CompletedProcess:
    """Run `python -m promptlint` in `root`, without PROMPTLINT_ variables. `startup`: a folder
    holding a `sitecustomize.py`, put on PYTHONPATH so that every interpreter of the run runs it
    (the fork server the workers are forked from is a new interpreter)."""
    argv = list(args) or ["check", ".", "--output-format", "json"]
    command = [sys.executable, "-m", "promptlint", *argv]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROMPTLINT_")}
    if startup is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(startup), *sys.path])
    proc = subprocess.run(command, cwd=root, capture_output=True, timeout=TIMEOUT, env=env)
    assert b"Traceback" not in proc.stderr, proc.stderr.decode("utf-8", "replace")
    return proc


def run_here(root: Path, monkeypatch, *args: str) -> subprocess.CompletedProcess:
    """`run` in this process: the command line through click's CliRunner in `root`, without
    PROMPTLINT_ variables; an exception that escapes it fails the test (with its traceback), as a
    traceback on the subprocess's stderr does. Its exit code and bytes as a CompletedProcess."""
    argv = list(args) or ["check", ".", "--output-format", "json"]
    for name in [k for k in os.environ if k.startswith("PROMPTLINT_")]:
        monkeypatch.delenv(name)
    with monkeypatch.context() as here:
        here.chdir(root)
        result = CliRunner().invoke(main, argv)
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        "".join(traceback.format_exception(*result.exc_info))
    assert b"Traceback" not in result.stderr_bytes, result.stderr
    return subprocess.CompletedProcess(argv, result.exit_code, result.stdout_bytes, result.stderr_bytes)


def report(proc: subprocess.CompletedProcess, exit_code: int) -> dict:
    assert proc.returncode == exit_code, proc.stderr.decode("utf-8", "replace")
    data = json.loads(proc.stdout.decode("utf-8"))  # strict: invalid UTF-8 fails here
    assert set(data) == {"version", "diagnostics", "prompts", "errors"}
    found = {(d["filename"], d["code"], d["location"]["row"]) for d in data["diagnostics"]}
    assert GOOD in found, found
    return data


def others(data: dict) -> list[tuple[str, str]]:
    return sorted((d["filename"], d["code"]) for d in data["diagnostics"] if d["filename"] != GOOD[0])


# --- discovery ---------------------------------------------------------------------------------------

@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifos_named_like_sources_are_skipped(tmp_path):
    root = tree(tmp_path)
    for name in ("x.py", "x.j2", "x.yaml"):
        os.mkfifo(root / name)
    data = report(run(root), 1)
    assert others(data) == [] and data["errors"] == []


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_symlinks_to_devices_are_skipped(tmp_path):
    root = tree(tmp_path)
    (root / "zero.py").symlink_to("/dev/zero")
    (root / "random.j2").symlink_to("/dev/urandom")
    (root / "prompts").mkdir()
    (root / "prompts" / "null.md").symlink_to("/dev/null")
    data = report(run(root), 1)
    assert others(data) == [] and data["errors"] == []


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_a_named_device_is_a_prm001_not_a_hang(tmp_path):
    root = tree(tmp_path)
    (root / "zero.py").symlink_to("/dev/zero")
    os.mkfifo(root / "pipe.py")
    data = report(run(root, "check", "good.py", "zero.py", "pipe.py", "--output-format", "json"), 1)
    messages = {d["filename"]: d["message"] for d in data["diagnostics"] if d["code"] == "PRM001"}
    assert set(messages) == {"zero.py", "pipe.py"}
    assert all("not a regular file" in m for m in messages.values())


def test_symlink_loops_are_prm001_and_the_run_goes_on(tmp_path, monkeypatch):
    root = tree(tmp_path)
    (root / "a.py").symlink_to("b.py")
    (root / "b.py").symlink_to("a.py")
    (root / "self.py").symlink_to("self.py")
    (root / "sub").mkdir()
    (root / "sub" / "up").symlink_to("..")  # a folder link back up is not followed
    data = report(run_here(root, monkeypatch), 1)
    assert others(data) == [("a.py", "PRM001"), ("b.py", "PRM001"), ("self.py", "PRM001")]
    assert all("symlink loop" in d["message"] for d in data["diagnostics"] if d["code"] == "PRM001")


def test_an_unreadable_folder_is_reported_skipped_and_the_run_goes_on(tmp_path, monkeypatch):
    root = tree(tmp_path)
    locked = root / "locked"
    locked.mkdir()
    (locked / "chat.py").write_text(CHAT_PY, encoding="utf-8")
    locked.chmod(0)
    if IS_ROOT:
        deny_scandir(monkeypatch)
    try:
        data = report(run_here(root, monkeypatch), 2)
    finally:
        locked.chmod(0o755)
    assert others(data) == []
    assert data["errors"] == ["locked: cannot read folder: Permission denied; skipped"]


def test_named_files_under_build_dist_venv_are_checked(tmp_path, monkeypatch):
    root = tree(tmp_path)
    folders = ("build", "dist", "venv")
    for folder in folders:
        (root / folder).mkdir()
        (root / folder / "app.py").write_text(CHAT_PY, encoding="utf-8")
    walked = report(run_here(root, monkeypatch), 1)
    assert others(walked) == []  # a walk skips them
    named = run_here(root, monkeypatch, "check", *(f"{folder}/app.py" for folder in folders), "good.py", "--output-format", "json")
    assert {f for f, code in others(report(named, 1)) if code == "PRM102"} == {f"{d}/app.py" for d in folders}


# --- configuration -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("pyproject", "message"), [
    ('[[tool.promptlint]]\nselect = ["PRM1"]\n',
     "`tool.promptlint` in {} must be a table ([tool.promptlint]), not an array of tables"),
    ("[tool]\npromptlint = 5\n", "`tool.promptlint` in {} must be a table ([tool.promptlint]), not a value"),
    ('[[tool.promptlint.profiles]]\nname = "openai-gpt-4o"\nmin_tokens = 5\n',
     "invalid `profiles` in `profiles` in [tool.promptlint] of {}: profile override 1: unknown key `min_tokens`"),
    ('[[tool.promptlint.profiles]]\nname = "openai-gpt-4o"\nmin_cacheable_tokens = "many"\n',
     "min_cacheable_tokens"),
    ("[tool.promptlint]\nprofiles = 3\n", "`profiles` in [tool.promptlint] of {} must be an array of tables"),
    ("[tool.promptlint]\nx = " + "[" * 3000 + "]" * 3000 + "\n", "invalid TOML in {}: nested too deeply to read"),
])
def test_bad_tool_promptlint_shapes_exit_2_naming_the_key(tmp_path, pyproject, message):
    root = tree(tmp_path)
    (root / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    proc = run(root)
    assert proc.returncode == 2
    assert proc.stdout == b""
    err = proc.stderr.decode()
    assert err.startswith("promptlint: ") and err.count("\n") == 1, err
    assert message.format("pyproject.toml") in err, err  # named relative to the current folder


# --- names, imports, writes ---------------------------------------------------------------------------

@pytest.mark.skipif(sys.platform == "darwin", reason="macOS file systems refuse non-UTF-8 names")
def test_non_utf8_file_names_are_escaped_in_every_format(tmp_path, monkeypatch):
    root = tree(tmp_path)
    name = os.fsdecode(b"bad\xff.py")
    (root / name).write_text(CHAT_PY, encoding="utf-8")
    data = report(run_here(root, monkeypatch), 1)
    assert ("bad\\xff.py", "PRM102") in others(data)
    monkeypatch.chdir(root)
    for fmt in ("text", "concise", "sarif", "github", "gitlab"):
        result = CliRunner().invoke(main, ["check", ".", "--output-format", fmt])
        assert result.exit_code == 1, (fmt, result.exception)
        text = result.stdout_bytes.decode("utf-8")  # strict
        expected = {"sarif": "bad%5Cxff.py", "gitlab": "bad\\\\xff.py"}.get(fmt, "bad\\xff.py")  # JSON escapes \\
        assert expected in text, fmt
        out = root.parent / f"report.{fmt}"
        written = CliRunner().invoke(main, ["check", ".", "--output-format", fmt, "--output-file", str(out)])
        assert written.exit_code == 1 and out.read_bytes().decode("utf-8") == text, fmt


def test_python_dash_m_ignores_modules_in_the_current_folder(tmp_path):
    root = tree(tmp_path)
    for module in ("click", "libcst", "yaml"):
        (root / f"{module}.py").write_text(f"raise SystemExit('the project\\'s {module}.py was imported')\n")
    data = report(run(root), 1)
    assert others(data) == []


def test_fix_in_a_read_only_folder_is_a_message_and_exit_2(tmp_path, monkeypatch):
    root = tree(tmp_path)
    folder = root / "readonly"
    folder.mkdir()
    (folder / "chat.py").write_text(CHAT_PY, encoding="utf-8")  # PRM201 has a safe fix
    folder.chmod(0o555)
    if IS_ROOT:
        deny_mkstemp(monkeypatch)
    try:
        proc = run_here(root, monkeypatch, "fix", "readonly")
    finally:
        folder.chmod(0o755)
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert "promptlint: cannot write" in err and "Permission denied" in err, err
    assert (folder / "chat.py").read_text(encoding="utf-8") == CHAT_PY


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_an_unwritable_output_file_is_a_message_and_exit_2(tmp_path, monkeypatch):
    root = tree(tmp_path)
    proc = run_here(root, monkeypatch, "check", ".", "--output-format", "json", "--output-file", "/dev/full")
    assert proc.returncode == 2
    assert proc.stderr.decode().startswith("promptlint: cannot write --output-file /dev/full: No space left")
    fixed = run_here(root, monkeypatch, "fix", ".", "--output-file", "/dev/full")
    assert fixed.returncode == 2 and "cannot write --output-file /dev/full" in fixed.stderr.decode()


# --- analysis: depth, size, backtracking, bombs, crashes ------------------------------------------

SENDS = "\nclient.chat.completions.create(model='gpt-4o', messages=[{'role': 'system', 'content': system_prompt}])\n"
HEAD = "from openai import OpenAI\n\nclient = OpenAI()\n"


def _only_prm001_or_nothing(data: dict, names: set[str], reason: str | None = None) -> None:
    for d in data["diagnostics"]:
        if d["filename"] in names:
            assert d["code"] == "PRM001", d
            assert reason is None or reason in d["message"], d


def test_deep_nesting_long_chains_and_huge_concatenations(tmp_path):
    """10,000-deep brackets, parentheses and unary operators, 10,000 names joined with `+`, a
    100,000-term string concatenation, 10,000-deep attribute and call chains: each file is
    analysed or is its PRM001 ("too deeply nested"), never a crash or a hang."""
    root = tree(tmp_path)
    n = 10_000
    bodies = {
        "brackets.py": "system_prompt = " + "[" * n + "]" * n,
        "parens.py": "system_prompt = " + "(" * n + "'x'" + ")" * n,
        "unary.py": "system_prompt = " + "-" * n + "1",
        "names.py": "system_prompt = " + " + ".join(f"n{i}" for i in range(n)) + SENDS,
        "concat.py": "system_prompt = " + " + ".join(f"'t{i} '" for i in range(100_000)) + SENDS,
        "attributes.py": "system_prompt = settings" + ".a" * n + SENDS,
        "calls.py": "system_prompt = build" + "()" * n + SENDS,
        "methods.py": "system_prompt = text" + ".strip()" * n + SENDS,
    }
    for name, body in bodies.items():
        (root / name).write_text(HEAD + body + "\n", encoding="utf-8")
    data = report(run(root), 2)  # a file the analysis gave up on was not checked: exit 2
    _only_prm001_or_nothing(data, set(bodies), "too deeply nested")
    failed = {d["filename"] for d in data["diagnostics"] if d["code"] == "PRM001"}
    assert failed  # the 10,000-deep ones at least
    assert sorted(data["errors"]) == sorted(f"{name}: cannot analyse: {message}" for name, message in
                                            ((d["filename"], d["message"].removeprefix("Cannot analyse this file: "))
                                             for d in data["diagnostics"] if d["code"] == "PRM001"))


def test_text_that_makes_regular_expressions_backtrack(tmp_path):
    """Long runs that almost match each pattern run over file text (pre-filter, suppression
    comments, format strings, Jinja comments, YAML comments, prompt placeholders, the sentence
    and tag scanners of unsafe moves): a quadratic scan would run for hours on these."""
    root = tree(tmp_path)
    n = 100_000
    (root / "prompts").mkdir()
    files = {
        "prefilter.py": "system" + "_" * n + "\n" + "prompt_x  =" * (n // 12) + "\n",
        "comments.py": HEAD + "x = 1  " + "# promptlint: ignore[" * (n // 21) + "\n" + "# noqa: PRM1 " + "A1 " * (n // 3)
                       + "x\n" + "# promptlint: ignore[PRM102]\n" * 5_000 + "y = 2\n",
        "formats.py": HEAD + 'system_prompt = "%' + "0" * n + '" % 3\n' + 'other_prompt = "{a:' + "b" * n
                      + '".format(a=1)\n',
        "tags.py": HEAD + "from datetime import datetime\n\nsystem_prompt = f\"\"\"<" + "a" * n + "\n" + "... " * 1000
                   + "Now {datetime.now()}. " + ".\"" * 10_000 + "x\nYou are helpful.\n\"\"\"" + SENDS,
        "comments.j2": "promptlint {# noqa: PRM1 " + "A1 # " * 2000 + " #}\n" + "{#" * (n // 2) + "\n",
        "comments.yaml": "system_prompt: hi  # promptlint: ignore[PRM1]\n" + "# c\n" * (n // 4) + "k: 'x'\n" * 2000,
        "prompts/placeholders.md": "{a:" + "b" * n + "\n" + "$a" * 2000 + "-\n" + "{" * n + "\n",
    }
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    data = report(run(root), 1)
    assert data["errors"] == []


LAUGHS = "\n".join(["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
                   + [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
                   + ["system_prompt: *a9"]) + "\n"
MERGES = "\n".join(["m0: &m0 {k0: v}"] + [f"m{i}: &m{i} {{<<: [*m{i - 1}, *m{i - 1}], k{i}: v}}" for i in range(1, 30)]
                   + ["prompts:", "  system: *m29"]) + "\n"


def test_yaml_alias_and_merge_key_bombs_are_prm001(tmp_path):
    """A billion laughs and a chain of merge keys: PRM001 in well under a second each, in
    bounded memory; Python that loads the bomb with a static path is analysed as usual."""
    root = tree(tmp_path)
    (root / "laughs.yaml").write_text(LAUGHS, encoding="utf-8")
    (root / "merges.yml").write_text(MERGES, encoding="utf-8")
    (root / "loader.py").write_text(HEAD + "import yaml\n\nsystem_prompt = yaml.safe_load(open('laughs.yaml'))"
                                    "['system_prompt']" + SENDS, encoding="utf-8")
    data = report(run(root), 1)
    bombs = {d["filename"]: d["message"] for d in data["diagnostics"] if d["code"] == "PRM001"}
    assert set(bombs) == {"laughs.yaml", "merges.yml"}, data["diagnostics"]
    assert all("aliases are expanded" in message for message in bombs.values())


def test_a_large_tree_is_analysed_in_worker_processes_and_cached(tmp_path):
    """Enough files for the worker pool: every file's finding is reported, and a second run (from
    the cache) gives the same report."""
    root = tree(tmp_path)
    for i in range(45):
        package = root / f"package_{i}"
        package.mkdir()
        (package / "__init__.py").write_text("", encoding="utf-8")
        (package / "chat.py").write_text(CHAT_PY, encoding="utf-8")
    first = run(root, "check", ".", "--output-format", "json", "--jobs", "2")
    data = report(first, 1)
    assert sum(1 for d in data["diagnostics"] if d["code"] == "PRM102") == 46
    assert run(root, "check", ".", "--output-format", "json", "--jobs", "2").stdout == first.stdout


CRASHES = """
import os, signal, sys
from pathlib import Path
import promptlint.engine as engine, promptlint.workers as workers
engine.PARALLEL_MIN_FILES = 1
_analyse = engine.Linter.analyse
def analyse(self, path, kind, force=False, **options):
    name = Path(path).name
    if name == "segfault.py":
        os.kill(os.getpid(), signal.SIGSEGV)
    if name == "oom.py":
        raise MemoryError
    if name == "exits.py":
        os._exit(7)
    return _analyse(self, path, kind, force, **options)
engine.Linter.analyse = analyse
"""


def test_a_worker_that_crashes_or_runs_out_of_memory_is_replaced(tmp_path):
    """Each such file is its PRM001, its worker is replaced, every other file is analysed and
    the run ends normally: never a broken pool (a worker that hangs: tests/test_workers.py)."""
    root = tree(tmp_path)
    failing = {"segfault.py": "killed by SIGSEGV", "oom.py": "ran out of memory",
               "exits.py": "stopped (exit status 7)"}
    for i in range(4):
        (root / f"chat_{i}.py").write_text(CHAT_PY, encoding="utf-8")
    for name in failing:
        (root / name).write_text(CHAT_PY, encoding="utf-8")
    startup = tmp_path / "startup"
    startup.mkdir()
    (startup / "sitecustomize.py").write_text(CRASHES, encoding="utf-8")
    data = report(run(root, "check", ".", "--output-format", "json", "--jobs", "2", "--no-cache",
                      startup=startup), 2)  # three files were not checked: exit 2
    found = {d["filename"]: d for d in data["diagnostics"] if d["code"] == "PRM001"}
    assert set(found) == set(failing)
    for name, reason in failing.items():
        assert reason in found[name]["message"], found[name]
    assert sorted(e.split(":")[0] for e in data["errors"]) == sorted(failing)
    assert {d["filename"] for d in data["diagnostics"] if d["code"] == "PRM102"} == \
        {GOOD[0], *(f"chat_{i}.py" for i in range(4))}
