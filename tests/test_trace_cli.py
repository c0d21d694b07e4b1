"""Acceptance of issue 16: `promptlint trace fixtures/trace/requests.jsonl fixtures/trace/app`.

The log was captured by running the app's request-building code (the real OpenAI and Anthropic
SDKs, the app's Gemini REST client) with promptlint.record against a fake transport
(fixtures/trace/capture.py); a test here captures it again and checks it holds the same requests.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from early import environment, spawn, started
from promptlint.cli import main
from promptlint.trace.reader import parse_line

ROOT = Path(__file__).resolve().parent.parent
LOG = "fixtures/trace/requests.jsonl"
APP = "fixtures/trace/app"
SCHEMA = json.loads((Path(__file__).parent / "schemas" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))


def _invoke(*args, input=None):
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        return CliRunner().invoke(main, ["trace", *args], input=input)
    finally:
        os.chdir(cwd)


def _row_of(filename: str, needle: str) -> tuple[int, int]:
    """(row, column) of the first line of a fixture file containing `needle` (1-based)."""
    for row, line in enumerate((ROOT / APP / filename).read_text(encoding="utf-8").splitlines(), 1):
        if needle in line:
            return row, line.index(needle) + 1
    raise AssertionError(needle)


@pytest.fixture(scope="module")
def traced():
    result = _invoke(LOG, APP, "--output-format", "json")
    return result.exit_code, json.loads(result.stdout)


def test_each_divergence_is_reported_at_its_source_line_with_the_tokens_lost(traced):
    code, report = traced
    assert code == 1
    by_file = {d["source"]["filename"]: d for d in report["divergences"]}
    assert set(by_file) == {f"{APP}/support_chat.py", f"{APP}/order_agent.py", f"{APP}/summarizer.py",
                            f"{APP}/ticket_router.py"}
    expected = {  # file: (text at the place, kind, rule, cached tokens lost per request)
        "support_chat.py": ("{now}", "timestamp", "PRM102", 1152),
        "order_agent.py": ("ENABLED_TOOLS]", "unordered-iteration", "PRM203", 1864),
        "summarizer.py": ("{request_id}", "unique-id", "PRM103", 2365),
    }
    for name, (needle, kind, rule, lost) in expected.items():
        d = by_file[f"{APP}/{name}"]
        assert (d["source"]["row"], d["source"]["column"]) == _row_of(name, needle)
        assert d["source"]["segment"] == "dynamic" and d["source"]["kind"] == kind
        assert d["static_finding"] == rule and d["missed_by_static_analysis"] is False
        assert d["severity"] == "warning"
        assert d["cached_tokens_lost_per_request"] == lost
        assert d["cached_tokens_lost"] == lost * d["requests"]
        assert d["prefix_tokens_lost"] > 0
    chat = by_file[f"{APP}/support_chat.py"]
    assert chat["comparisons"] == {"conversation": 6, "across conversations": 3}
    assert chat["part"] == "messages[0]" and chat["role"] == "system" and chat["tokens_exact"] is True
    agent = by_file[f"{APP}/order_agent.py"]
    assert agent["part"].startswith("tools[") and agent["provider"] == "anthropic" and agent["tokens_exact"] is False
    gemini = by_file[f"{APP}/summarizer.py"]
    assert gemini["part"] == "systemInstruction.parts[0]" and gemini["model"] == "gemini-2.5-flash"
    assert report["summary"]["cached_tokens_lost"] == sum(d["cached_tokens_lost"] for d in report["divergences"])
    assert report["errors"] == []


def test_a_value_the_static_analysis_called_stable_is_reported_as_missed(traced):
    _, report = traced
    [router] = [d for d in report["divergences"] if d["source"]["filename"] == f"{APP}/ticket_router.py"]
    assert (router["source"]["row"], router["source"]["column"]) == _row_of("ticket_router.py", "{platform.node()}")
    assert router["source"]["expr"] == "platform.node()" and router["source"]["volatility"] == "stable"
    assert router["missed_by_static_analysis"] is True and router["static_finding"] is None
    assert router["explanation"] == "the static analysis called the value stable, and did not report it"
    assert router["message"].endswith("a finding the static analysis missed")
    assert router["comparisons"] == {"across conversations": 3} and router["cached_tokens_lost_per_request"] == 1152


def test_nothing_is_reported_for_the_clean_conversation(traced):
    _, report = traced
    assert not any("tutor" in d["source"]["filename"] or "tutor" in d["group"] for d in report["divergences"])
    [tutor] = [g for g in report["groups"] if g["prompt"] == f"{APP}/tutor.py:19"]
    assert (tutor["api"], tutor["requests"], tutor["conversations"]) == ("responses", 5, 2)
    assert len(report["groups"]) == 5 and all(g["prompt"] for g in report["groups"])
    assert report["summary"]["requests"] == 31


def test_fail_on_and_the_text_report():
    assert _invoke(LOG, APP, "--fail-on", "error").exit_code == 0
    result = _invoke(LOG, APP)
    assert result.exit_code == 1
    row, column = _row_of("support_chat.py", "{now}")
    assert f"{APP}/support_chat.py:{row}:{column}: [warning] 9 requests of 10 diverge" in result.stdout
    assert "reported by the static analysis as PRM102" in result.stdout
    assert "Current time: {now}" in result.stdout  # the code frame
    assert result.stdout.rstrip().endswith("4 prefix divergences, 4 costing cached tokens: 26,511 cached tokens lost.")


def test_sarif_validates_against_the_oasis_schema():
    result = _invoke(LOG, APP, "--output-format", "sarif")
    log = json.loads(result.stdout)
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    [run] = log["runs"]
    uris = sorted(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"])
    assert uris == [f"{APP}/order_agent.py", f"{APP}/summarizer.py", f"{APP}/support_chat.py",
                    f"{APP}/ticket_router.py"]
    assert {r["level"] for r in run["results"]} == {"warning"}


def test_malformed_lines_are_reported_with_their_number_and_skipped(traced, tmp_path):
    lines = (ROOT / LOG).read_text(encoding="utf-8").splitlines()
    broken = ["{this is not json", *lines[:9], '{"prompt": "a legacy completion"}', *lines[9:], "[]"]
    log = tmp_path / "requests.jsonl"
    log.write_text("\n".join(broken) + "\n", encoding="utf-8")
    result = _invoke(str(log), APP, "--output-format", "json")
    report = json.loads(result.stdout)
    assert [e["line"] for e in report["errors"]] == [1, 11, len(broken)]
    assert report["summary"]["skipped"] == 3 and report["summary"]["requests"] == 31
    assert f"{log}:1: skipped: not valid JSON" in result.stderr
    keep = ("source", "requests", "cached_tokens_lost", "part")
    assert [{k: d[k] for k in keep} for d in report["divergences"]] == \
        [{k: d[k] for k in keep} for d in traced[1]["divergences"]]
    assert result.exit_code == 1


def test_standard_input_and_redaction():
    text = (ROOT / LOG).read_text(encoding="utf-8")
    report = json.loads(_invoke("-", APP, "--output-format", "json", input=text).stdout)
    assert report["requests_file"] == "<stdin>" and len(report["divergences"]) == 4
    examples = json.dumps([d["example"] for d in report["divergences"]])
    assert "Harborline" not in examples and "Current time" not in examples  # redacted by default
    shown = json.loads(_invoke(LOG, APP, "--output-format", "json", "--show-text").stdout)
    chat = next(d for d in shown["divergences"] if d["source"]["filename"].endswith("support_chat.py"))
    assert chat["example"]["before"].endswith("Current time: 2026-11-30 09:00:")


def test_a_missing_log_is_a_usage_error():
    result = _invoke("no/such/requests.jsonl", APP)
    assert result.exit_code == 2
    assert "no/such/requests.jsonl: cannot read file" in result.stderr


def _capture(folder: Path) -> subprocess.Popen:
    """fixtures/trace/capture.py writing `folder`/requests.jsonl (its two workers import the real
    SDKs: seconds of CPU), started early (tests/early.py) for the test below."""
    return spawn(folder, [sys.executable, str(ROOT / "fixtures" / "trace" / "capture.py"),
                          str(folder / "requests.jsonl")], env=environment())


@pytest.mark.early.with_args(_capture)
def test_capturing_again_gives_the_committed_requests():
    capture = started(_capture)
    done = capture.wait(timeout=300)
    assert done.returncode == 0, done.stderr
    out = capture.folder / "requests.jsonl"

    def requests(path):
        found = []
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            record = json.loads(line)
            parsed = parse_line(i, line.encode())
            found.append((record["provider"], record["endpoint"], record["time"], parsed.model,
                          [(u.label, u.role, u.text, u.breakpoint) for u in parsed.units]))
        return found

    assert requests(out) == requests(ROOT / LOG)


def test_the_static_analysis_uses_the_cache_options_of_check(traced, tmp_path):
    """`--cache-dir` and `--no-cache` as in `check`: the analysis of PATHS is cached there, and the
    divergences are the same with the cache, from it, and without it."""
    cache = tmp_path / "cache"
    keep = ("source", "requests", "cached_tokens_lost")
    for args in (["--cache-dir", str(cache)], ["--cache-dir", str(cache)], ["--no-cache"]):
        report = json.loads(_invoke(LOG, APP, "--output-format", "json", *args).stdout)
        assert [{k: d[k] for k in keep} for d in report["divergences"]] == \
            [{k: d[k] for k in keep} for d in traced[1]["divergences"]]
    assert (cache / "CACHEDIR.TAG").is_file()


def test_a_change_hidden_by_redaction_says_so():
    """The clock's seconds change (`05` -> `07`): redacted, both read `00`; the report says the texts
    are alike once redacted and how to see them, and says nothing of it with --show-text."""
    hint = "(alike once redacted: --show-text shows the characters)"
    chat = [line for line in _invoke(LOG, APP).stdout.splitlines() if "= changed:" in line]
    assert sum(hint in line for line in chat) == 2  # the clock's seconds, the host name's last digit
    assert hint not in _invoke(LOG, APP, "--show-text").stdout


def test_the_prompts_analysed_are_counted_as_check_counts_them(tmp_path):
    # a message list of parameters alone, built in a helper, is no prompt analysed in either command
    app = tmp_path / "app"
    app.mkdir()
    (app / "chat.py").write_text(
        "from openai import OpenAI\n\nclient = OpenAI()\nSYSTEM_PROMPT = 'You are the billing assistant of Acme.'\n\n\n"
        "def ask(q):\n    return client.chat.completions.create(model='gpt-4o', messages=[\n"
        "        {'role': 'system', 'content': SYSTEM_PROMPT}, {'role': 'user', 'content': q}])\n", encoding="utf-8")
    (app / "msgs.py").write_text(
        "def build_messages(system, history, question):\n    messages = [{'role': 'system', 'content': system}]\n"
        "    messages.extend(history)\n    messages.append({'role': 'user', 'content': question})\n"
        "    return messages\n", encoding="utf-8")
    log = tmp_path / "requests.jsonl"
    log.write_text("", encoding="utf-8")
    checked = CliRunner().invoke(main, ["check", str(app), "--no-cache", "--output-format", "json"])
    traced = CliRunner().invoke(main, ["trace", str(log), str(app), "--no-cache", "--output-format", "json"])
    assert len(json.loads(checked.stdout)["prompts"]) == 1
    assert json.loads(traced.stdout)["summary"]["prompts"] == 1
