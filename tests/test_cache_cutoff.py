"""Early cutoff of the persistent cache (issue 13): a file that read an imported module is analysed
again when the module's code changes, not when only its layout does (blank lines and comment
lines between its top-level statements: `promptlint.python.code_state`), unless its result names
rows of the module, which move. Every cached report equals the report of a run without a cache.
"""
from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from promptlint import engine, reads
from promptlint.api import check
from promptlint.cache import Cache
from promptlint.python.code_state import code_digest, current
from promptlint.report import json as json_report

CHAT = '''\
from datetime import datetime

from openai import OpenAI

from settings import MODEL, ROLE

client = OpenAI()


def answer(question: str, history: list) -> str:
    response = client.chat.completions.create(
        model=MODEL,
        messages=[
            {"role": ROLE, "content": f"You are the support assistant of Acme Tools. Now: {datetime.now()}"},
            *history,
            {"role": "user", "content": question},
        ],
    )
    return response.choices[0].message.content
'''
SETTINGS = 'MODEL = "gpt-4o"\nROLE = "system"\n\n\ndef unused():\n    return 1\n'
# a header comment, a blank line and a comment between statements: the same code
SETTINGS_LAID_OUT = '# Settings of the app.\n\nMODEL = "gpt-4o"\n\n# the role of the prompt\nROLE = "system"\n\n\n\ndef unused():\n    return 1\n'

STAMPING_CHAT = CHAT.replace("from settings import MODEL, ROLE", "from helpers import stamp").replace(
    "model=MODEL", 'model="gpt-4o"').replace('"role": ROLE', '"role": "system"').replace(
    "Now: {datetime.now()}", "Today is {stamp()}")
HELPERS = "from datetime import datetime\n\n\ndef stamp():\n    return datetime.now().isoformat()\n"


@pytest.fixture
def app(tmp_path, monkeypatch):
    root = tmp_path / "app"
    root.mkdir()
    (root / "chat.py").write_text(CHAT, encoding="utf-8")
    (root / "settings.py").write_text(SETTINGS, encoding="utf-8")
    monkeypatch.chdir(root)
    return root


def run(cache_dir=None) -> dict:
    return json.loads(json_report.render(check([Path(".")], cache_dir=cache_dir)))


def findings(report: dict) -> list[tuple]:
    return sorted((d["filename"], d["code"], d["location"]["row"], d["message"],
                   tuple((r["filename"], r["location"]["row"]) for r in d["related"]))
                  for d in report["diagnostics"])


@pytest.fixture
def analysed(monkeypatch):
    """The names of the files analysed (not taken from the cache) by the runs after it."""
    names: list[str] = []
    real = engine.Linter.analyse

    def spy(self, path, kind, force=False):
        names.append(Path(path).name)
        return real(self, path, kind, force)
    monkeypatch.setattr(engine.Linter, "analyse", spy)
    return names


def test_a_comment_or_a_blank_line_in_an_imported_module_re_analyses_no_importer(app, tmp_path, analysed):
    cache_dir = tmp_path / "cache"
    cold = run(cache_dir)
    assert [(f[1], f[0], f[2]) for f in findings(cold)] == [("PRM102", "chat.py", 14)]
    assert "in the system prompt" in cold["diagnostics"][0]["message"]
    analysed.clear()
    (app / "settings.py").write_text(SETTINGS_LAID_OUT, encoding="utf-8")
    edited = run(cache_dir)
    assert analysed == ["settings.py"]  # its own (empty) result; chat.py is not analysed again
    assert edited == run()  # exactly what a run without a cache reports
    analysed.clear()
    assert run(cache_dir) == edited
    assert analysed == []  # chat.py's entry now records the new bytes: nothing is read again


def test_a_changed_value_of_an_imported_module_changes_the_findings_of_its_importer(app, tmp_path, analysed):
    cache_dir = tmp_path / "cache"
    run(cache_dir)
    analysed.clear()
    (app / "settings.py").write_text(SETTINGS_LAID_OUT.replace('ROLE = "system"', 'ROLE = "user"'), encoding="utf-8")
    edited = run(cache_dir)
    assert sorted(analysed) == ["chat.py", "settings.py"]
    assert "in the user message" in edited["diagnostics"][0]["message"]
    assert edited == run()
    (app / "settings.py").write_text(SETTINGS.replace('"gpt-4o"', '"gpt-4o-mini"'), encoding="utf-8")
    again = run(cache_dir)
    assert "openai:gpt-4o-mini" in again["diagnostics"][0]["message"]
    assert again == run()


def test_rows_of_an_imported_module_that_a_finding_names_follow_a_comment_added_above(tmp_path, monkeypatch, analysed):
    root = tmp_path / "app"
    root.mkdir()
    (root / "chat.py").write_text(STAMPING_CHAT, encoding="utf-8")
    (root / "helpers.py").write_text(HELPERS, encoding="utf-8")
    monkeypatch.chdir(root)
    cache_dir = tmp_path / "cache"
    cold = run(cache_dir)
    assert [(f[1], f[0], f[4]) for f in findings(cold)] == [("PRM102", "chat.py", (("helpers.py", 5),))]
    analysed.clear()
    (root / "helpers.py").write_text("# Helpers.\n" + HELPERS, encoding="utf-8")
    edited = run(cache_dir)
    assert sorted(analysed) == ["chat.py", "helpers.py"]  # its result names a row of helpers.py
    assert [f[4] for f in findings(edited)] == [(("helpers.py", 6),)]
    assert edited == run()


def test_the_code_digest_ignores_only_the_lines_between_top_level_statements():
    def digest(text: str) -> str:
        return current_of(text)

    base = digest(SETTINGS)
    assert digest(SETTINGS_LAID_OUT) == base
    assert digest(SETTINGS + "\n\n# the end\n") == base
    # a comment or a blank line inside a statement is part of its text
    assert digest(SETTINGS.replace("def unused():\n", "def unused():\n    # one\n")) != base
    assert digest(SETTINGS.replace("def unused():\n", "def unused():\n\n")) != base
    assert digest(SETTINGS.replace('"gpt-4o"', '"gpt-4o-mini"')) != base
    assert digest(SETTINGS.replace("def unused", "@cache\ndef unused")) != base
    # two statements joined or split differ (the rows of the second move apart from the first)
    assert digest('A = 1\nB = 2\n') != digest('A = 1; B = 2\n')


def current_of(text: str) -> str:
    tree = ast.parse(text)
    starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
    return code_digest(tree, text, starts)


def test_a_module_that_grew_past_the_budget_left_is_read_again(tmp_path):
    """A code state holds only while the module's texts grew by at most the `slack` of the entry
    (the characters the analysis could still read before `MAX_ANALYSIS_CHARS`)."""
    module = tmp_path / "m.py"
    module.write_text(SETTINGS, encoding="utf-8")
    key = reads.key_of(module)
    old = reads.digest(module.read_bytes())
    code, chars = current(key)
    recorded = {key: f"c:{old}:{code}:{chars}"}
    module.write_text(SETTINGS_LAID_OUT, encoding="utf-8")
    new = reads.digest(module.read_bytes())
    grown = len(SETTINGS_LAID_OUT) - len(SETTINGS)
    assert Cache(tmp_path / "c", "f")._valid(recorded, grown) == {key: f"c:{new}:{code}:{chars + grown}"}
    assert Cache(tmp_path / "c", "f")._valid(recorded, grown - 1) is None
    assert Cache(tmp_path / "c", "f")._valid(recorded, None) is None
    module.write_text(SETTINGS.replace("1", "2"), encoding="utf-8")
    assert Cache(tmp_path / "c", "f")._valid(recorded, 10**6) is None
