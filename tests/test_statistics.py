"""`check --statistics`: findings per rule, and per target the static tokens cached now and the
tokens lost to findings (issue 5, item 6). Pure functions of a synthetic Report, then the CLI on
a copy of the demo project."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptlint import tokens
from promptlint.cli import main
from promptlint.estimates import cached_tokens
from promptlint.profiles import lookup
from promptlint.model import (Diagnostic, Kind, Part, Position, PromptLayout, Report, Segment,
                              Severity, Span, Volatility)
from promptlint.report import statistics as stats

DEMO = Path(__file__).resolve().parent.parent / "fixtures" / "demo"


def span(filename: str, row: int) -> Span:
    return Span(filename, Position(row, 1), Position(row, 10))


def row(provider, model, tokenizer, exact, prefix, cached):
    """One `estimates` entry with the contract's fields."""
    return {"provider": provider, "model": model, "tokenizer": tokenizer, "exact": exact,
            "prefix_tokens": prefix, "min_cacheable_tokens": 1024, "cached_tokens": cached,
            "read_price_multiplier": 0.5, "write_price_multiplier": 1.0, "note": None}


def layout(pid: str, static: int, prefix: int, estimates: list[dict], parts=None) -> PromptLayout:
    filename, line = pid.rsplit(":", 1)
    return PromptLayout(id=pid, site=span(filename, int(line)), source="python-call",
                        static_tokens=static, static_prefix_tokens=prefix, estimates=estimates,
                        parts=parts or [])


def finding(code: str, pid: str | None, name: str = "x") -> Diagnostic:
    filename = pid.rsplit(":", 1)[0] if pid else "app/other.py"
    return Diagnostic(code=code, name=name, severity=Severity.WARNING, message="m",
                      span=span(filename, 1), prompt=pid)


CL100K_TEXT = "You are a careful assistant. Answer in one short paragraph, in plain English."


def make_report() -> Report:
    prompts = [
        # A timestamp at token 4 cuts the prefix: 1,496 static tokens after it are lost.
        layout("app/a.py:10", 1500, 4, [row("openai", "gpt-4o", "o200k_base", True, 4, 0)]),
        # Clean and cached: nothing lost.
        layout("app/b.py:20", 1300, 1300, [row("openai", "gpt-4o", "o200k_base", True, 1300, 1280)]),
        # Anthropic without a breakpoint (PRM302): prefix 0, all 1,000 o200k x 1.16 tokens lost.
        layout("app/c.py:30", 1000, 1000,
               [row("anthropic", "claude-sonnet-4-5", "claude-legacy", False, 0, 0)]),
        # Only PRM301 (a short prefix is not a cut one): counted in static, not in lost.
        layout("app/d.py:40", 60, 50, [row("openai", "gpt-4o", "o200k_base", True, 50, 0)]),
        # A python-constant prompt with the provider's default model; cl100k counted exactly.
        layout("app/e.py:50", 0, 0, [row("openai", None, "cl100k_base", True, 0, 0)],
               parts=[Part("system", [Segment(CL100K_TEXT)]),
                      Part("user", [Segment(expr="question", kind=Kind.USER_INPUT,
                                            volatility=Volatility.PER_REQUEST)])]),
    ]
    diagnostics = [
        finding("PRM102", "app/a.py:10"),
        finding("PRM302", "app/c.py:30"),
        finding("PRM301", "app/d.py:40"),
        finding("PRM401", None),          # not about a prompt
        finding("PRM901", "app/b.py:20"),  # not a prefix rule
        finding("PRM101", "app/e.py:50"),
    ]
    return Report(diagnostics=diagnostics, prompts=prompts, files=5)


def test_is_prefix_loss():
    assert [c for c in ("PRM001", "PRM101", "PRM104", "PRM203", "PRM301", "PRM302", "PRM306",
                        "PRM401", "PRM901") if stats.is_prefix_loss(c)] == \
        ["PRM101", "PRM104", "PRM203", "PRM302", "PRM306"]


def test_target_statistics_totals():
    rows = stats.target_statistics(make_report())
    assert [r["target"] for r in rows] == ["anthropic:claude-sonnet-4-5", "openai (default: GPT-5 to GPT-5.4)", "openai:gpt-4o"]
    by = {r["target"]: r for r in rows}
    assert by["openai:gpt-4o"] == {
        "target": "openai:gpt-4o", "provider": "openai", "model": "gpt-4o", "default_model": False, "exact": True,
        "prompts": 3, "cached_tokens": 1280, "static_tokens": 1500 + 1300 + 60,
        "lost_tokens": 1408}  # all 1,500 static tokens in the prefix would cache 1,024 + 3 x 128 (0 now)
    # Claude: the o200k count times the claude-legacy ratio (1.16), as the estimate's prefix is.
    assert by["anthropic:claude-sonnet-4-5"] == {
        "target": "anthropic:claude-sonnet-4-5", "provider": "anthropic", "model": "claude-sonnet-4-5",
        "default_model": False, "exact": False, "prompts": 1, "cached_tokens": 0, "static_tokens": 1160, "lost_tokens": 1160}


def test_exact_tokenizer_other_than_o200k_is_recounted_from_the_parts():
    """A cl100k target counts the static text with cl100k, not the layout's o200k total."""
    by = {r["target"]: r for r in stats.target_statistics(make_report())}
    expected = tokens.count(CL100K_TEXT, "cl100k_base")
    assert expected > 0
    default = by["openai (default: GPT-5 to GPT-5.4)"]  # no model known: the provider's default row's models
    assert (default["model"], default["default_model"]) == ("GPT-5 to GPT-5.4", True)
    # (16 tokens stay below the 1,024-token minimum wherever the question goes: nothing is lost)
    assert (default["static_tokens"], default["lost_tokens"]) == (expected, 0)


def test_lost_tokens_never_negative():
    """A breakpoint-limited or rounded prefix can exceed nothing: lost is at least 0."""
    report = Report(prompts=[layout("app/a.py:1", 10, 10,
                                    [row("openai", "gpt-4o", "o200k_base", True, 12, 0)])],
                    diagnostics=[finding("PRM303", "app/a.py:1")])
    assert stats.target_statistics(report)[0]["lost_tokens"] == 0


def test_no_prompts_no_target_section():
    report = Report(diagnostics=[finding("PRM401", None, "semantic-cache-without-ttl")])
    assert stats.target_statistics(report) == []
    assert stats.render_targets(report) == ""
    assert stats.render(report) == "1  PRM401  semantic-cache-without-ttl\n"
    assert stats.render(Report()) == ""


def test_render_text_has_rules_then_targets():
    text = stats.render(make_report())
    rules, targets = text.split("\n\n")
    assert rules.splitlines()[0].split() == ["1", "PRM101", "x"]
    lines = targets.splitlines()
    assert lines[0] == "Tokens per target (~: estimated, no offline tokenizer)"
    assert lines[1].split("  ")[0] == "target"
    assert [c.strip() for c in lines[1].split("  ") if c.strip()] == [
        "target", "prompts", "cached now", "static", "lost to findings"]
    assert lines[2].split() == ["anthropic:claude-sonnet-4-5", "1", "~0", "~1,160", "~1,160"]
    assert lines[4].split() == ["openai:gpt-4o", "3", "1,280", "2,860", "1,408"]
    # Right-aligned numbers: every row has the header's width.
    assert len({len(line) for line in lines[1:]}) == 1


def test_render_json_keeps_the_per_rule_list():
    rows = json.loads(stats.render(make_report(), "json"))
    assert isinstance(rows, list)
    assert {r["code"] for r in rows} == {"PRM101", "PRM102", "PRM301", "PRM302", "PRM401", "PRM901"}


# --- the command line on the demo ----------------------------------------------------------------

@pytest.fixture(scope="module")
def demo_runs(tmp_path_factory):
    """(text --statistics result, json --statistics result, full JSON report) on a demo copy."""
    root = tmp_path_factory.mktemp("stats")
    shutil.copytree(DEMO, root / "demo")
    cwd = Path.cwd()
    try:
        os.chdir(root)
        runner = CliRunner()
        text = runner.invoke(main, ["check", "demo", "--statistics"], catch_exceptions=False)
        as_json = runner.invoke(main, ["check", "demo", "--statistics", "--output-format", "json"],
                                catch_exceptions=False)
        full = runner.invoke(main, ["check", "demo", "--output-format", "json"], catch_exceptions=False)
    finally:
        os.chdir(cwd)
    return text, as_json, json.loads(full.stdout)


def _table(text: str) -> dict[str, list[str]]:
    section = text.split("Tokens per target (~: estimated, no offline tokenizer)\n", 1)[1]
    lines = section.splitlines()
    return {line.split()[0]: line.split()[1:] for line in lines[1:]}


def _judged_demo():
    from promptlint.api import check
    from promptlint.judged import judged
    return judged(check([str(DEMO)]).prompts)


def test_cli_statistics_per_target_on_the_demo(demo_runs):
    text, _as_json, report = demo_runs
    assert text.exit_code == 1
    table = _table(text.stdout)
    # WidgetChat (clock first: its 1,593 static tokens would cache 1,024 + 4 x 128 = 1,536, 0 now),
    # PortalChat (clean, 1,536 cached) and the LangChain call (clean, below the minimum) on gpt-4.1-mini.
    assert table["openai:gpt-4.1-mini"] == ["3", "1,536", "3,315", "1,536"]
    # The triage call: TRIAGE_PROMPT starts with the time, nothing cached; JSON mode
    # (`response_format={"type": "json_object"}`) is a request option, no text of the prompt; its
    # 161 static tokens stay below the 1,024-token minimum wherever the time goes: nothing lost
    # (as its finding says).
    assert table["openai:gpt-4.1-nano"] == ["1", "0", "161", "0"]
    # Every OpenAI (o200k, exact) row equals the sums over the JSON report.
    cut = {d["prompt"] for d in report["diagnostics"]
           if d["prompt"] and d["code"][:4] in ("PRM1", "PRM2", "PRM3") and d["code"] != "PRM301"}
    sums: dict[str, list[int]] = {}
    judged = {lt.id.rsplit("demo/", 1)[1] for lt in _judged_demo()}  # each prompt once: a candidate a call
    for p in report["prompts"]:                                         # sends is part of the call's prompt
        if p["id"].rsplit("demo/", 1)[1] not in judged:
            continue
        for e in p["estimates"]:
            if e["tokenizer"] != "o200k_base":
                continue
            s = sums.setdefault(f"{e['provider']}:{e['model']}", [0, 0, 0, 0])
            s[0] += 1
            s[1] += e["cached_tokens"]
            s[2] += p["static_tokens"]
            whole = cached_tokens(lookup(e["provider"], e["model"])[0], p["static_tokens"])
            s[3] += max(whole - e["cached_tokens"], 0) if p["id"] in cut else 0
    assert sums
    for target, (n, cached, static, lost) in sums.items():
        assert table[target] == [str(n), f"{cached:,}", f"{static:,}", f"{lost:,}"], target
    # Estimated targets are marked with "~".
    assert all(v.startswith("~") for v in table["anthropic:claude-sonnet-4-5"][1:])


def test_cli_statistics_json_stdout_is_only_json(demo_runs):
    text, as_json, report = demo_runs
    assert as_json.exit_code == 1
    rows = json.loads(as_json.stdout)
    assert sum(r["count"] for r in rows) == len(report["diagnostics"])
    assert "Tokens per target" not in as_json.stdout
    assert _table(as_json.stderr) == _table(text.stdout)
