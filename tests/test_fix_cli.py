"""`promptlint fix`, `check --fix`, `--diff`: driven with click's CliRunner on a small tree.

The fixable finding is PRM901 (an unused suppression comment, safe fix: remove it), the one rule
whose fix does not depend on a prompt evaluator.
"""
from __future__ import annotations

import json
import stat

import pytest
from click.testing import CliRunner

from promptlint.cli import main
from promptlint.api import check
from promptlint.fixer import fix_paths

APP = (
    "from openai import OpenAI\r\n"
    "client = OpenAI()\r\n"
    'SYSTEM = "You are a helpful assistant."  # promptlint: ignore[PRM102]\r\n'
    "\r\n"
    "\r\n"
    "def ask(q):\r\n"
    '    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": q}]\r\n'
    '    return client.chat.completions.create(model="gpt-4.1", messages=messages)\r\n'
)
FIXED = APP.replace("  # promptlint: ignore[PRM102]", "")


@pytest.fixture
def tree(tmp_path, monkeypatch):
    (tmp_path / "app.py").write_bytes(APP.encode())
    (tmp_path / "app.py").chmod(0o640)
    (tmp_path / "clean.py").write_text("x = 1\n")
    # the short one-shot prompt is below OpenAI's caching minimum (PRM301, info): not what these tests are about
    (tmp_path / "promptlint.toml").write_text('ignore = ["PRM301"]\n')
    monkeypatch.chdir(tmp_path)
    return tmp_path


def invoke(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_fix_diff_prints_a_diff_writes_nothing_and_exits_1(tree):
    result = invoke("fix", "--diff", ".")
    assert result.exit_code == 1
    assert result.stdout.startswith("--- app.py\n+++ app.py\n@@ -1,6 +1,6 @@\n")
    raw = result.stdout_bytes.decode()  # `.stdout` turns "\r\n" into "\n"; the diff keeps them
    assert '-SYSTEM = "You are a helpful assistant."  # promptlint: ignore[PRM102]\r\n' in raw
    assert '+SYSTEM = "You are a helpful assistant."\r\n' in raw
    assert "would change 1 file(s): 1 fixed, 0 remaining" in result.stderr
    assert (tree / "app.py").read_bytes() == APP.encode()


def test_fix_writes_keeps_crlf_and_mode_and_converges(tree):
    result = invoke("fix", ".")
    assert result.exit_code == 0
    assert "1 fixed, 0 remaining" in result.stderr
    assert (tree / "app.py").read_bytes() == FIXED.encode()
    assert stat.S_IMODE((tree / "app.py").stat().st_mode) == 0o640
    compile(FIXED, "app.py", "exec")
    again = invoke("fix", ".")
    assert again.exit_code == 0 and "0 fixed, 0 remaining" in again.stderr
    assert (tree / "app.py").read_bytes() == FIXED.encode()
    assert invoke("fix", "--diff", ".").exit_code == 0


def test_check_fix_json_prints_only_the_remaining_report(tree):
    result = invoke("check", "--fix", "--output-format", "json", ".")
    payload = json.loads(result.stdout)
    assert payload["diagnostics"] == []
    assert result.exit_code == 0
    assert (tree / "app.py").read_bytes() == FIXED.encode()


def test_check_without_fix_writes_nothing(tree):
    result = invoke("check", "--output-format", "json", ".")
    assert [d["code"] for d in json.loads(result.stdout)["diagnostics"]] == ["PRM901"]
    assert (tree / "app.py").read_bytes() == APP.encode()


def test_fix_paths_api_without_writing(tree):
    run = fix_paths(["."], write=False, check=check)
    assert run.fixed == 1 and run.errors == []
    assert [f.filename for f in run.changed] == ["app.py"]
    assert run.changed[0].result.new_text == FIXED and not run.changed[0].written
    assert (tree / "app.py").read_bytes() == APP.encode()


def test_fix_missing_path_exits_2(tree):
    result = invoke("fix", "missing.py")
    assert result.exit_code == 2 and "missing.py" in result.stderr


# 90 rules: over OpenAI's 1,024-token minimum, so moving the time gains cached tokens (below it a
# move gains nothing and is not offered)
UNSAFE_APP = (
    "from datetime import datetime\n"
    "from openai import OpenAI\n\n"
    "client = OpenAI()\n\n\n"
    "def ask(question):\n"
    "    system = (\n"
    "        f\"Now: {datetime.now():%H:%M}\\n\"\n"
    + "".join(f"        \"Rule {i}: answer politely and cite the help-desk article you used.\\n\"\n" for i in range(90))
    + "    )\n"
    "    return client.chat.completions.create(model=\"gpt-4.1\", messages=[\n"
    "        {\"role\": \"system\", \"content\": system}, {\"role\": \"user\", \"content\": question}])\n"
)


@pytest.mark.parametrize("config, moved", [("", False), ("unsafe-fixes = true\n", True)])
def test_unsafe_fixes_setting_in_the_config_is_honoured(tmp_path, monkeypatch, config, moved):
    """`unsafe-fixes = true` in [tool.promptlint] / promptlint.toml applies unsafe fixes as the flag does."""
    (tmp_path / "chat.py").write_text(UNSAFE_APP, encoding="utf-8")
    (tmp_path / "promptlint.toml").write_text(config, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    CliRunner().invoke(main, ["fix", "."])
    text = (tmp_path / "chat.py").read_text(encoding="utf-8")
    first_line = text.split("system = (\n", 1)[1].splitlines()[0]
    assert ("datetime.now()" not in first_line) is moved


def test_api_fix_leaves_what_check_reports(tmp_path, monkeypatch):
    """`api.fix` (no click) and `api.check` share one pipeline: the findings left after the fix
    are exactly those a check of the fixed files reports."""
    from promptlint import api
    (tmp_path / "chat.py").write_text(UNSAFE_APP + "\nimport json\nREPORT = json.dumps({'b': 1, 'a': 2})\n",
                                      encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    run = api.fix(["."], api.Settings(), unsafe=True)
    assert run.fixed >= 1
    left = sorted((d.code, d.span.start.row) for d in run.report.diagnostics)
    again = sorted((d.code, d.span.start.row) for d in api.check(["."], api.Settings()).diagnostics)
    assert left == again


def test_fix_reads_the_cache_of_the_check_and_re_analyses_only_what_it_changes(tree, monkeypatch):
    """`fix` finds what to fix through the persistent cache, as `check` does: a file with no fix is
    not analysed again on a warm cache; the file a fix changes is checked again (its new text);
    `--no-cache` analyses everything."""
    from promptlint import engine
    (tree / "other.py").write_text(APP.replace("  # promptlint: ignore[PRM102]", "").replace("ask", "other"))
    assert CliRunner().invoke(main, ["check", ".", "--cache-dir", "cache"]).exit_code in (0, 1)
    analysed: list[str] = []
    real = engine.Linter.analyse

    def counting(self, path, kind, force=False):
        analysed.append(path.name)
        return real(self, path, kind, force)
    monkeypatch.setattr(engine.Linter, "analyse", counting)
    result = CliRunner().invoke(main, ["fix", ".", "--diff", "--cache-dir", "cache", "--jobs", "1"])
    assert result.exit_code == 1 and "-SYSTEM = " in result.output
    assert "other.py" not in analysed and "clean.py" not in analysed
    analysed.clear()
    CliRunner().invoke(main, ["fix", ".", "--diff", "--no-cache", "--jobs", "1"])
    assert {"other.py", "app.py"} <= set(analysed)


def test_fix_diff_reads_a_cache_but_never_starts_one(tree, monkeypatch):
    """`--diff` writes nothing: with no cache folder it makes none; after a check made one, it reads it."""
    monkeypatch.delenv("PROMPTLINT_CACHE_DIR")  # the default location is under test
    assert CliRunner().invoke(main, ["fix", ".", "--diff"]).exit_code == 1
    assert not (tree / ".promptlint_cache").exists()
    CliRunner().invoke(main, ["check", "."])
    assert (tree / ".promptlint_cache").is_dir()
    assert "-SYSTEM = " in CliRunner().invoke(main, ["fix", ".", "--diff"]).output


CONSTANT_AFTER = (
    "from datetime import datetime\n"
    "from openai import OpenAI\n"
    "\n"
    'POLICY = "You are a careful assistant. " * 400\n'
    "\n"
    "\n"
    "def answer(question: str) -> str:\n"
    '    now = datetime.now().strftime("%H:%M:%S")\n'
    "    return OpenAI().chat.completions.create(\n"
    '        model="gpt-4.1",\n'
    '        messages=[{"role": "system", "content": f"Time {now}\\n{POLICY}"}, {"role": "user", "content": question}],\n'
    "    )\n"
)


def test_unsafe_fix_moves_a_time_after_a_constant_of_static_text(tmp_path, monkeypatch):
    """`f"Time {now}\\n{POLICY}"`: the static text is a constant's field, not literal text; the
    time moves after it (and a second run changes nothing)."""
    (tmp_path / "app.py").write_text(CONSTANT_AFTER)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert [d.code for d in check(["."]).diagnostics] == ["PRM102"]
    first = runner.invoke(main, ["fix", "--unsafe-fixes", "--no-cache", "."])
    assert first.exit_code == 0, first.output
    assert (tmp_path / "app.py").read_text() == CONSTANT_AFTER.replace('f"Time {now}\\n{POLICY}"', 'f"{POLICY}\\nTime {now}"')
    assert check(["."]).diagnostics == []
    runner.invoke(main, ["fix", "--unsafe-fixes", "--no-cache", "."])
    assert (tmp_path / "app.py").read_text() == CONSTANT_AFTER.replace('f"Time {now}\\n{POLICY}"', 'f"{POLICY}\\nTime {now}"')


LISTING_TOOL = '''\
import os


class BaseTool:  # a tool class: what its `run` returns is a tool result sent to the model
    name = ""


class FolderTool(BaseTool):
    name = "folder"
    description = "List a folder and its subfolders."

    def run(self, action: str = "list", path: str = "."):
        if action == "list":
            return self.listing(path)
        return self.tree(path)

    def listing(self, path: str):
        items = []
        for name in os.listdir(path):
            items.append({"name": name})
        return items

    def tree(self, path: str):
        items = []
        for name in os.listdir(path):
            items.append({"name": name, "path": os.path.join(path, name)})
        return items
'''


def test_the_fix_summary_counts_the_fixes_of_findings_reported_only_after_a_first_fix(tmp_path, monkeypatch):
    """Two tool results of one prompt ordered by `os.listdir`: `check` reports the first (one root
    cause per prompt), `fix` sorts both, the second once the first is fixed; the summary says why
    it fixed more than `check` reported (a new user's trial: "3 fixable", then "4 fixed")."""
    (tmp_path / "tools.py").write_text(LISTING_TOOL)
    monkeypatch.chdir(tmp_path)
    checked = invoke("check", "--output-format", "concise", "tools.py")
    assert [line.split(": ")[1].split(" ")[0] for line in checked.stdout.splitlines() if "PRM" in line] == ["PRM202"]
    result = invoke("fix", "--diff", "tools.py")
    assert result.stdout.count("+        for name in sorted(os.listdir(path)):") == 2
    assert ("would change 1 file(s): 2 fixed (1 of them reported only once an earlier fix was applied: it was "
            "behind an earlier finding of the same prompt), 0 remaining") in result.stderr


def test_the_fix_summary_leaves_the_parenthesis_out_when_every_fix_was_reported():
    from promptlint.fix import summary
    assert summary(3, 1) == "3 fixed, 1 remaining"
    assert summary(3, 1, 1, 0) == "3 fixed, 1 remaining (1 of them fixable with --unsafe-fixes)"
    assert summary(2, 0, 0, 2).startswith("2 fixed (2 of them reported only once an earlier fix was applied: they were")
