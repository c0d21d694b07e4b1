"""`promptlint explain FILE:LINE` at the location of any finding, also one in another file than
its prompt (the prompt text is built in helpers.py and sent in app.py), and the text report
naming that prompt."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from promptlint.api import check
from promptlint.cli import main
from promptlint.report.text import render

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
)


@pytest.fixture(params=["loose", "project"])
def app(tmp_path, monkeypatch, request):
    """The two files, loose in a folder or in a project (a pyproject.toml)."""
    (tmp_path / "helpers.py").write_text(HELPERS, encoding="utf-8")
    (tmp_path / "app.py").write_text(APP, encoding="utf-8")
    if request.param == "project":
        (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def explain(location: str) -> dict:
    result = CliRunner().invoke(main, ["explain", location, "--output-format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_explain_at_a_finding_in_another_file_explains_its_prompt(app):
    finding = check(["."]).diagnostics[0]
    assert (finding.code, str(finding.span), finding.prompt) == ("PRM102", "helpers.py:8:19", "app.py:8")
    prompts = explain("helpers.py:8")["prompts"]  # then the prompt text built there, on its own
    assert [(p["id"], p["source"], p["model"]) for p in prompts] == [("app.py:8", "python-call", "gpt-4.1"),
                                                                     ("helpers.py:8", "python-constant", None)]
    assert [part["role"] for part in prompts[0]["parts"]] == ["system", "history", "user"]


def test_explain_at_a_call_and_without_a_line_is_unchanged(app):
    assert [p["id"] for p in explain("app.py:9")["prompts"]] == ["app.py:8"]
    assert [p["id"] for p in explain("helpers.py")["prompts"]] == ["helpers.py:8"]


def test_the_text_report_names_the_prompt_of_a_finding_in_another_file(app):
    report = check(["."])
    text = render(report, show_frames=False)
    assert "helpers.py:8:19: PRM102" in text
    assert "      = prompt: app.py:8:12: sent here\n" in text


def test_the_text_report_names_no_prompt_for_a_finding_in_its_prompt_file(tmp_path, monkeypatch):
    (tmp_path / "app.py").write_text(APP.replace("from helpers import system_prompt\n", HELPERS), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    report = check(["."])
    assert [d.code for d in report.diagnostics] == ["PRM102"]
    assert "= prompt:" not in render(report, show_frames=False)
