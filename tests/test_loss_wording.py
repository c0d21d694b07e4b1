"""A finding never says it costs nothing: a whole request whose static text stays below every
minimum even with the value moved is no finding (`Impact.costs_nothing`), and prompt text built
apart from its request says what a request that sends more with it loses."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from fixture_reports import fixture_folders, folder_report

from promptlint.api import check

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
ZERO = re.compile(r"nothing is lost|costs? nothing|loses nothing|0 cached tokens per request instead of 0\b")

ONE_SHOT = '''from datetime import datetime

from openai import OpenAI

client = OpenAI()
GUIDE = """You are a support assistant for Acme's billing product.
Answer questions about invoices, refunds and payment methods."""


def answer(question: str) -> str:
    system = f"Current time: {datetime.now():%H:%M}\\n{GUIDE}"
    return client.chat.completions.create(
        model="gpt-4o", messages=[{"role": "system", "content": system}, {"role": "user", "content": question}])
'''


@pytest.mark.parametrize("folder", fixture_folders(), ids=lambda p: p.relative_to(FIXTURES).as_posix())
def test_no_finding_of_the_fixtures_says_it_costs_nothing(folder):
    said = [(d.code, d.span.filename, d.message) for d in folder_report(folder).diagnostics
            if ZERO.search(d.message)]
    assert said == []


def test_a_whole_request_below_every_minimum_is_no_finding(tmp_path, monkeypatch):
    (tmp_path / "app.py").write_text(ONE_SHOT)
    monkeypatch.chdir(tmp_path)
    assert [d.code for d in check(["."]).diagnostics if d.code.startswith("PRM10")] == []


def test_a_long_enough_guide_makes_it_a_warning(tmp_path, monkeypatch):
    (tmp_path / "app.py").write_text(ONE_SHOT.replace('payment methods."""', 'payment methods.\n""" * 60'))
    monkeypatch.chdir(tmp_path)
    found = [d for d in check(["."]).diagnostics if d.code == "PRM102"]
    assert [d.severity.value for d in found] == ["warning"]
    assert "0 cached tokens per request instead of" in found[0].message


def test_prompt_text_built_apart_says_what_a_larger_request_loses(monkeypatch):
    monkeypatch.chdir(FIXTURES / "fix_offers")
    [found] = [d for d in check(["memory_update.py"]).diagnostics if d.code == "PRM101"]
    assert found.severity.value == "info"
    assert found.message.endswith(
        "in the prompt text: the 321 static tokens after it (in pieces, between 1 other value) are processed "
        "uncached on every request that sends more than this prompt (static text before it, or a conversation "
        "after it); alone, this prompt stays below the 1,024-token minimum of openai:gpt-4.1 even with it moved; "
        "only the name `retrieved_memories` suggests it")
    assert found.fix is None  # moving it within this prompt alone caches nothing more
