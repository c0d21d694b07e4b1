"""Token estimates of layouts that worker processes find are made by the parent (engine.py): a worker
never loads the tokenizer (49 MiB its resident set would count against `workers.RECYCLE_BYTES`), sends a
result with layouts unestimated and with its dependencies, and the parent estimates and stores it."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptlint import collect, engine, tokens
from promptlint.api import check
from promptlint.report import json as json_report

CHAT = """\
from openai import OpenAI

client = OpenAI()
POLICY = "You are the support assistant of Acme. Answer in English. " * 40


def ask(question, user_id):
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": f"{POLICY} Customer {user_id}."}, {"role": "user", "content": question}])
"""
PLAIN = "def add(a, b):\n    return a + b\n"


def _tokenizer_refused(name="o200k_base"):
    raise AssertionError("a worker loaded the tokenizer")


@pytest.fixture
def worker(tmp_path, monkeypatch):
    """This process set up as a worker (`engine._WORKER`) of `tmp_path`, whose tokenizer raises."""
    monkeypatch.setattr(engine, "_WORKER", engine.Linter(roots=[tmp_path]))
    monkeypatch.setattr(engine, "_WORKER_OPTIONS", {"gc": collect.Pacer(), "force": False, "cache": None})
    monkeypatch.setattr(tokens, "encoding", _tokenizer_refused)
    tokens.count.cache_clear()
    return tmp_path


def test_a_worker_sends_layouts_unestimated_with_their_dependencies(worker):
    (worker / "chat.py").write_text(CHAT, encoding="utf-8")
    result = engine._work(worker / "chat.py", "python")
    assert [lay.static_prefix_tokens for lay in result.report.prompts] == [0]
    assert result.report.prompts[0].estimates == []
    assert result.state is not None and result.deps  # kept: the parent stores the entry


def test_a_worker_drops_the_dependencies_of_a_result_without_layouts(worker):
    (worker / "plain.py").write_text("import json\n" + PLAIN, encoding="utf-8")
    result = engine._work(worker / "plain.py", "python")
    assert result.report.prompts == [] and result.deps == {} and result.plain is True


def _project(root: Path) -> Path:
    root.mkdir()
    for i in range(engine.PARALLEL_MIN_FILES + 5):  # enough files for worker processes
        (root / f"chat_{i}.py").write_text(CHAT.replace("Acme", f"Acme {i}"), encoding="utf-8")
    (root / "plain.py").write_text(PLAIN, encoding="utf-8")
    return root


def _render(report) -> dict:
    return json.loads(json_report.render(report))


def test_workers_report_the_estimates_of_one_process(tmp_path):
    root = _project(tmp_path / "app")
    alone = _render(check([root], jobs=1))
    assert all(p["static_prefix_tokens"] > 400 for p in alone["prompts"])
    assert _render(check([root], jobs=2)) == alone


def test_workers_store_estimated_layouts_in_the_cache(tmp_path):
    root = _project(tmp_path / "app")
    cache_dir = tmp_path / "cache"
    alone = _render(check([root], jobs=1))
    tokens.count.cache_clear()  # (counts this process made already are not put in the cache's memo)
    cold = _render(check([root], jobs=2, cache_dir=cache_dir))
    assert cold == alone
    assert (cache_dir / "CACHEDIR.TAG").exists()
    counts = json.loads(next(cache_dir.rglob("tokens.json")).read_text(encoding="utf-8"))
    assert len(counts) >= len(alone["prompts"])  # the parent's counts, saved for the next run
    tokens.count.cache_clear()
    warm = _render(check([root], jobs=2, cache_dir=cache_dir))
    assert warm == alone



def test_a_failed_estimate_is_an_internal_error_of_that_file_with_or_without_workers(tmp_path, monkeypatch):
    """As when the worker estimated: the file's `errors` line, its result not cached, the run goes on."""
    _project(tmp_path / "app")

    def failing(layouts, targets):
        if layouts:
            raise RuntimeError("estimates failed")
    monkeypatch.setattr(engine, "_estimate_layouts", failing)
    monkeypatch.chdir(tmp_path)
    alone = check([Path("app")], jobs=1)
    workers = check([Path("app")], jobs=2, cache_dir=tmp_path / "cache")
    expected = sorted(f"app/chat_{i}.py: internal error: RuntimeError: estimates failed"
                      for i in range(engine.PARALLEL_MIN_FILES + 5))
    assert sorted(alone.errors) == sorted(workers.errors) == expected
    assert len(workers.prompts) == len(alone.prompts) == engine.PARALLEL_MIN_FILES + 5  # the run went on
    entries = [p for p in (tmp_path / "cache").rglob("*.json")
               if len(p.parent.name) == 2 and p.parent.parent.name != "findings"]
    assert entries == []  # no entry stored for them
