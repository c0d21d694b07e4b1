"""The `value produced here` related location (issue: a new user's trial): it names where a value
is made, never the expression inside the f-string field the finding itself points at, for a file
and for stdin (`check - --stdin-filename`) alike. Columns are 1-based characters."""
from __future__ import annotations

import json

import pytest

from ci_support import cli

FIELD = '''\
from datetime import datetime

from openai import OpenAI

client = OpenAI()
SYSTEM = "You are a support assistant for Acme Corp. Answer briefly and politely, in English. " * 40


def answer(question: str, history: list) -> str:
    stamp = datetime.now()
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": f"Then: {stamp}. " + SYSTEM}, *history, {"role": "user", "content": question}])


def reply(question: str, history: list) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": f"Now: {datetime.now()}. " + SYSTEM}, *history, {"role": "user", "content": question}])
'''
ROW_STAMP, ROW_NOW = 12, 17  # the two system messages


def _findings(args: list[str], **kw) -> list[dict]:
    result = cli("check", *args, "--no-cache", "--isolated", "--output-format", "json", **kw)
    assert result.exit_code == 1, result.stdout + result.stderr
    return [d for d in json.loads(result.stdout)["diagnostics"] if d["code"] == "PRM102"]


@pytest.mark.parametrize("stdin", [False, True])
def test_related_location_names_where_the_value_is_made(tmp_path, monkeypatch, stdin):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "chat.py").write_text(FIELD, encoding="utf-8")
    args = ["-", "--stdin-filename", "chat.py"] if stdin else ["chat.py"]
    found = _findings(args, input=FIELD if stdin else None)
    lines = FIELD.splitlines()
    by_row = {d["location"]["row"]: d for d in found}
    assert sorted(by_row) == [ROW_STAMP, ROW_NOW]
    now = by_row[ROW_NOW]
    # the finding points at the field `{datetime.now()}`; the value is made right there: no related
    assert lines[ROW_NOW - 1][now["location"]["column"] - 1:].startswith("{datetime.now()}")
    assert now["related"] == []
    stamp = by_row[ROW_STAMP]
    assert lines[ROW_STAMP - 1][stamp["location"]["column"] - 1:].startswith("{stamp}")
    assert [(r["location"]["row"], r["message"]) for r in stamp["related"]] == [(10, "value produced here")]
    column = stamp["related"][0]["location"]["column"]
    assert lines[9][column - 1:].startswith("datetime.now()")  # 1-based: `stamp = datetime.now()`


def test_text_report_shows_the_same_related_location_for_stdin_and_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "chat.py").write_text(FIELD, encoding="utf-8")
    as_file = cli("check", "chat.py", "--no-cache", "--isolated")
    piped = cli("check", "-", "--stdin-filename", "chat.py", "--no-cache", "--isolated", input=FIELD)
    assert as_file.stdout == piped.stdout
    related = [line.strip() for line in as_file.stdout.splitlines() if "= related:" in line]
    assert related == ["= related: chat.py:10:13: value produced here"]
