"""Small CLI and documentation contracts found by a new-user test: the fix hint is on stdout with
the report in every text format (as ruff prints it), `--baseline` says how many findings it
absorbed, an unknown `--target` model is a one-line usage error, the docs' JSON examples carry the
current version, and PRM306 names a slice of the user's message for what it is."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptlint import __version__
from promptlint.cli import main

APP = '''import json

from openai import OpenAI

client = OpenAI()


def ask(question, profile: dict[str, str]):
    system = "You are the support assistant. Profile: " + json.dumps(profile) + "\\nAnswer briefly."
    return client.responses.create(model="gpt-5-mini", instructions=system, input=question,
                                   prompt_cache_key=question[:20])
'''
DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.fixture
def app(tmp_path, monkeypatch):
    (tmp_path / "app.py").write_text(APP)
    (tmp_path / "promptlint.toml").write_text('ignore = ["PRM301"]\n')
    monkeypatch.chdir(tmp_path)
    return tmp_path


def cli(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.mark.parametrize("fmt", ["text", "concise"])
def test_the_fix_hint_ends_the_report_on_stdout_in_every_text_format(app, fmt):
    result = cli("check", ".", "--output-format", fmt)
    assert result.stdout.endswith("\n[*] 1 fixable with `promptlint fix`.\n")
    assert "fixable" not in result.stderr


def test_baseline_says_how_many_findings_it_absorbed(app):
    assert cli("check", ".", "--write-baseline", "base.json").exit_code == 0
    result = cli("check", ".", "--baseline", "base.json")
    assert result.exit_code == 0
    assert result.stderr == "promptlint: 2 finding(s) baselined by base.json\n"


@pytest.mark.parametrize("target, message", [
    ("openai:gpt-99", "promptlint: target `openai:gpt-99` (in --target): unknown openai model `gpt-99`; "
                      "`promptlint models openai` lists the known models\n"),
    ("nosuch:model", "`promptlint models` lists the known models\n"),
])
def test_an_unknown_target_is_a_one_line_usage_error(app, target, message):
    result = cli("check", ".", "--target", target)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.endswith(message) and result.stderr.count("\n") == 1


def test_known_targets_are_accepted_and_listed(app):
    assert cli("check", ".", "--target", "openai:gpt-4.1", "--target", "anthropic:claude-sonnet-4-5").exit_code == 1  # findings
    listed = cli("models", "openai")
    assert listed.exit_code == 0 and "gpt-4.1*" in listed.stdout and "anthropic" not in listed.stdout
    assert cli("models", "nosuch").exit_code == 2


def test_models_says_what_each_row_caches():
    """Every row states a minimum, a block size, no caching or an unpublished minimum: never a dash."""
    listed = cli("models").stdout.splitlines()
    assert listed and not [line for line in listed if "minimum -" in line]
    by_row = {line.rsplit("row ", 1)[1].rstrip(")"): line for line in listed}
    assert "(minimum 1,024 tokens;" in by_row["openai-gpt-4.1"]
    assert "(no prompt caching;" in by_row["openai-legacy-cl100k"]
    assert "(cached in blocks of 16 tokens;" in by_row["vllm-apc"]
    assert "(no minimum;" in by_row["sglang-radix"]


def test_json_examples_in_the_docs_show_the_current_version():
    found = {path.name: re.findall(r'"version": "([^"]+)"', path.read_text(encoding="utf-8"))
             for path in DOCS.glob("*.md")}
    assert found["trace.md"], "docs/trace.md has no JSON example with a version"
    assert {name: versions for name, versions in found.items() if set(versions) - {__version__}} == {}


def test_prm306_names_a_slice_of_the_question_as_a_truncation(app):
    result = cli("check", ".", "--output-format", "concise", "--select", "PRM306")
    assert ("`prompt_cache_key` is `question[:20]`, a truncation of the user's question: it changes with each "
            "question, so requests that share a prefix seldom share a cache") in result.stdout


@pytest.mark.parametrize("fmt", ["text", "concise"])
def test_quiet_prints_the_findings_only(app, fmt):
    loud, quiet = cli("check", ".", "--output-format", fmt), cli("check", ".", "--output-format", fmt, "-q")
    assert loud.exit_code == quiet.exit_code == 1
    assert "Found " in loud.stdout and "fixable with" in loud.stdout
    assert "Found " not in quiet.stdout and "fixable with" not in quiet.stdout
    assert quiet.stdout and loud.stdout.startswith(quiet.stdout.rstrip("\n"))
