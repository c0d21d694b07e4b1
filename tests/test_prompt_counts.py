"""`--statistics` and the HTML report count each prompt once: a prompt candidate (prompt text a
helper returns) whose text a call sends is part of that call's prompt, not a second prompt; and a
row for a call that names no model shows the provider's default profile row it was estimated with."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from promptlint.api import check
from promptlint.cli import main
from promptlint.report import html
from promptlint.report.statistics import target_statistics

HELPERS = (
    "from datetime import datetime\n"
    "\n"
    "RULES = 'Answer politely and precisely. ' * 400\n"
    "\n"
    "\n"
    "def system_prompt():\n"
    "    stamp = datetime.now().strftime('%Y-%m-%d %H:%M')\n"
    "    return f'Now: {stamp}\\n{RULES}'\n"
)
APP = (
    "import os\n"
    "\n"
    "from openai import OpenAI\n"
    "from helpers import system_prompt\n"
    "\n"
    "client = OpenAI()\n"
    "\n"
    "\n"
    "def ask(question, history):\n"
    "    return client.chat.completions.create(\n"
    "        model='gpt-4.1',\n"
    "        messages=[{'role': 'system', 'content': system_prompt()}, *history,\n"
    "                  {'role': 'user', 'content': question}],\n"
    "    )\n"
    "\n"
    "\n"
    "def summarize(text):\n"
    "    return client.chat.completions.create(\n"
    "        model=os.environ['MODEL'],\n"
    "        messages=[{'role': 'system', 'content': 'Summarize. ' * 600}, {'role': 'user', 'content': text}],\n"
    "    )\n"
)


@pytest.fixture
def report(tmp_path, monkeypatch):
    (tmp_path / "helpers.py").write_text(HELPERS, encoding="utf-8")
    (tmp_path / "app.py").write_text(APP, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    found = check(["."])
    # the run finds the helper's text as a candidate too (explain can draw it), judged at the call
    assert sorted((p.id, p.source) for p in found.prompts) == [
        ("app.py:10", "python-call"), ("app.py:18", "python-call"), ("helpers.py:8", "python-constant")]
    return found


def test_statistics_count_each_prompt_once_and_name_the_default_model(report):
    rows = {r["target"]: (r["prompts"], r["model"], r["default_model"]) for r in target_statistics(report)}
    assert rows == {"openai:gpt-4.1": (1, "gpt-4.1", False),
                    "openai (default: GPT-5 to GPT-5.4)": (1, "GPT-5 to GPT-5.4", True)}
    text = CliRunner().invoke(main, ["check", ".", "--statistics", "--no-cache"]).stdout
    assert "openai:gpt-4.1                            1" in text
    assert "openai (default: GPT-5 to GPT-5.4)        1" in text
    assert "openai-gpt-5-to-5.4" not in text  # the internal row name is never shown


def test_the_html_report_draws_and_counts_each_prompt_once(report):
    page = html.context(report, read_text=lambda name: None)
    assert [p["id"] for p in page["prompts"]] == ["app.py:10", "app.py:18"]
    assert {t["target"]: t["prompts"] for t in page["targets"]} == {
        "openai:gpt-4.1": 1, "openai (default: GPT-5 to GPT-5.4)": 1}
    assert [f["code"] for p in page["prompts"] for f in p["findings"]] == ["PRM102"]
    # the helper's text, drawn within the call that sends it, is said apart; every report counts 2
    assert page["drawn_within"] == 1
    assert "2</div><div class=\"l\">prompts (1 more prompt text drawn within the prompt that sends or returns " \
        "it)" in html.render(report, read_text=lambda name: None)
