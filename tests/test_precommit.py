"""The real `pre-commit` runs this repository's hook in a temporary git repository.

pre-commit clones this repository at HEAD, builds a virtualenv and pip-installs promptlint with
its dependencies from the package registry (the only network use in the test suite; CI reaches
it). The test is skipped, with the reason, when this checkout has no commit yet or pre-commit is
not installed.
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.network

ROOT = Path(__file__).resolve().parents[1]

BROKEN = '''\
import datetime

from openai import OpenAI

client = OpenAI()

RULES = """You are the support assistant of Acme Tools. Answer questions about orders,
shipping, returns and warranty. Be brief, be polite, and never invent order numbers.
"""


def answer(question: str) -> str:
    response = client.chat.completions.create(
        model="gpt-4o",
        messages=[
            {"role": "system", "content": f"Time: {datetime.datetime.now()}\\n{RULES}"},
            {"role": "user", "content": question},
        ],
    )
    return response.choices[0].message.content
'''

CLEAN = BROKEN.replace('f"Time: {datetime.datetime.now()}\\n{RULES}"', "RULES")


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env)


def _head() -> str:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    result = _git(ROOT, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    if result.returncode != 0:
        pytest.skip(f"{ROOT} has no commit yet: pre-commit installs hooks from a commit")
    if _git(ROOT, "cat-file", "-e", "HEAD:.pre-commit-hooks.yaml").returncode != 0:
        pytest.skip("HEAD has no .pre-commit-hooks.yaml yet: commit it to test the hook")
    return result.stdout.strip()


def _pre_commit() -> list[str]:
    if importlib.util.find_spec("pre_commit") is not None:
        return [sys.executable, "-m", "pre_commit"]
    exe = shutil.which("pre-commit")
    if exe is None:
        pytest.skip("pre-commit is not installed (pip install pre-commit)")
    return [exe]


def test_hook_fails_on_cache_breaking_file_and_passes_on_clean_one(tmp_path):
    rev = _head()
    command = _pre_commit()
    project = tmp_path / "project"
    project.mkdir()
    assert _git(project, "init", "-q").returncode == 0
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {ROOT.as_posix()}\n    rev: {rev}\n"
        "    hooks:\n      - id: promptlint\n", encoding="utf-8")
    chat = project / "chat.py"
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
           "PRE_COMMIT_COLOR": "never", "NO_COLOR": "1"}

    def run() -> subprocess.CompletedProcess:
        _git(project, "add", ".")
        return subprocess.run([*command, "run", "--files", "chat.py"], cwd=project, env=env,
                              capture_output=True, text=True, timeout=900)

    chat.write_text(BROKEN, encoding="utf-8")
    broken = run()
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "PRM102" in broken.stdout
    assert "chat.py:16" in broken.stdout

    chat.write_text(CLEAN, encoding="utf-8")
    clean = run()
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "promptlint" in clean.stdout and "Passed" in clean.stdout
