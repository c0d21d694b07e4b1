"""Shared by the CI-adoption tests: a small faulty project and ways to run promptlint on it."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from promptlint.cli import main

ROOT = Path(__file__).resolve().parents[1]

# PRM102 (a timestamp before the static system prompt) and PRM201 (json.dumps without sort_keys,
# a safe fix); the static text is long enough to matter for caching.
CHAT_PY = '''\
import json
from datetime import datetime

from openai import OpenAI

client = OpenAI()

SYSTEM = "You are a support assistant for Acme Corp. Answer briefly and politely, in English."


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
TIMESTAMP_ROW = 15  # the row of PRM102 in CHAT_PY
JSON_ROW = 16  # the row of PRM201 in CHAT_PY


def cli(*args: str, env: dict | None = None, input: str | bytes | None = None):
    """Run the command line in-process (click's CliRunner); stdout and stderr apart."""
    result = CliRunner().invoke(main, list(args), env=env, input=input)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    return result


def run_promptlint(args: list[str], cwd: Path, env: dict | None = None, timeout: int = 120,
                   stdin: bytes | None = None) -> subprocess.CompletedProcess:
    """Run `python -m promptlint ARGS` as a subprocess (bytes out)."""
    return subprocess.run([sys.executable, "-m", "promptlint", *args], cwd=cwd, capture_output=True,
                          timeout=timeout, env={**os.environ, **(env or {})}, input=stdin)


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env, check=check)
