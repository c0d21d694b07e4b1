"""Cacheable-prefix sizes and per-target estimates (DESIGN.md "Tokens and providers")."""
from __future__ import annotations

import pytest

from promptlint import tokens
from promptlint.estimates import (Cut, cached_tokens, estimate, prefix_stop, static_prefix_tokens, static_tokens,
                                  targets_for)
from promptlint.model import Breakpoint, Kind, Part, Position, PromptLayout, Segment, Span, Volatility
from promptlint.profiles import DEFAULT_TARGETS, Target, apply_overrides, lookup

CONTRACT_FIELDS = ["provider", "model", "tokenizer", "exact", "prefix_tokens", "min_cacheable_tokens", "cached_tokens",
                   "read_price_multiplier", "write_price_multiplier", "note"]
POLICY = "\n".join(f"{i}. Answer questions about order {i} politely, cite the order number and never guess."
                   for i in range(1, 121))
SHORT = "You are a terse assistant."


def span(row: int, col: int = 1, end: int = 10) -> Span:
    return Span("app.py", Position(row, col), Position(row, end))


def static(text: str, row: int = 5) -> Segment:
    return Segment(text=text, span=span(row))


def user_input(expr: str = "question") -> Segment:
    return Segment(kind=Kind.USER_INPUT, volatility=Volatility.PER_REQUEST, expr=expr, span=span(20))


def history() -> Segment:
    return Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, expr="history", span=span(21))


def layout(parts, provider="openai", model="gpt-4o", api="chat.completions.create", **kw) -> PromptLayout:
    return PromptLayout(id="app.py:3", site=span(3), source="python-call", provider=provider,
                        api=api, model=model, parts=parts, **kw)


def openai_layout(system_text: str = POLICY, model: str = "gpt-4o") -> PromptLayout:
    return layout([Part("system", [static(system_text)]), Part("user", [user_input()])], model=model, newest_user=1)


@pytest.fixture(autouse=True)
def _packaged_rows():
    apply_overrides([])


def test_static_prefix_of_an_openai_system_prompt_is_tiktokens_o200k_count():
    lay = openai_layout()
    expected = len(tokens.encoding("o200k_base").encode_ordinary(POLICY))
    assert expected > 1500
    assert static_prefix_tokens(lay) == expected == static_tokens(lay)


def test_gpt4o_estimate_min_1024_and_128_token_steps():
    lay = openai_layout()
    n = tokens.count(POLICY)
    [row] = estimate(lay)
    assert list(row) == CONTRACT_FIELDS
    assert row == {"provider": "openai", "model": "gpt-4o", "tokenizer": "o200k_base", "exact": True,
                   "prefix_tokens": n, "min_cacheable_tokens": 1024, "cached_tokens": 1024 + (n - 1024) // 128 * 128,
                   "read_price_multiplier": 0.5, "write_price_multiplier": 1.0, "note": None}
    assert (row["cached_tokens"] - 1024) % 128 == 0 and 0 <= n - row["cached_tokens"] < 128


@pytest.mark.parametrize("prefix, cached", [(0, 0), (1023, 0), (1024, 1024), (1151, 1024), (1152, 1152), (5000, 4992)])
def test_openai_legacy_rounding(prefix, cached):
    assert cached_tokens(lookup("openai", "gpt-4o")[0], prefix) == cached


@pytest.mark.parametrize("target, prefix, cached", [
    (("anthropic", "claude-sonnet-4-5"), 1023, 0), (("anthropic", "claude-sonnet-4-5"), 1500, 1500),
    (("openai", "gpt-5.6"), 1500, 1500), (("vllm", "llama"), 1500, 1488), (("vllm", "llama"), 15, 0),
    (("sglang", "llama"), 1501, 1501), (("openai", "gpt-4"), 5000, 0),
])
def test_rounding_per_provider(target, prefix, cached):
    assert cached_tokens(lookup(*target)[0], prefix) == cached


def test_below_the_minimum_nothing_is_cached():
    [row] = estimate(openai_layout(SHORT))
    assert (row["prefix_tokens"], row["cached_tokens"]) == (tokens.count(SHORT), 0)


def test_chat_format_tokens_are_not_counted_and_parts_are_counted_separately():
    lay = layout([Part("system", [static("Be brief.")]), Part("user", [static("Summarise the policy.")])])
    assert static_prefix_tokens(lay) == tokens.count("Be brief.") + tokens.count("Summarise the policy.")


def test_prefix_stops_at_the_first_dynamic_segment_even_a_stable_one():
    stable = Segment(kind=Kind.SERIALIZED, volatility=Volatility.STABLE, expr="json.dumps(CONFIG, sort_keys=True)")
    lay = layout([Part("system", [static("Rules. "), stable, static(" More rules.")]), Part("user", [user_input()])])
    assert prefix_stop(lay) == Cut(0, 1)
    assert static_prefix_tokens(lay) == tokens.count("Rules. ")
    assert static_tokens(lay) == tokens.count("Rules. ") + tokens.count(" More rules.")


def test_all_static_prompt_ends_after_the_last_part():
    lay = layout([Part("system", [static("A")]), Part("user", [static("B")])])
    assert prefix_stop(lay) == Cut(2, 0)


def test_cl100k_models_are_counted_exactly_in_cl100k():
    [row] = estimate(openai_layout(model="gpt-4"))
    assert (row["tokenizer"], row["exact"], row["prefix_tokens"]) == ("cl100k_base", True, tokens.count(POLICY, "cl100k_base"))
    assert (row["cached_tokens"], row["note"]) == (0, "no prompt caching for this model family")


def anthropic_layout(ttl: str | None = None, breakpoint: bool = True) -> PromptLayout:
    tools = Part("tools", [static('[{"name": "lookup", "description": "Search the knowledge base."}]')])
    system = Part("system", [static(POLICY, row=9)],
                  breakpoints=[Breakpoint(after=0, span=span(9, 40, 55), ttl=ttl)] if breakpoint else [])
    user = Part("user", [static("Question follows."), user_input()])
    return layout([tools, system, Part("history", [history()]), user], provider="anthropic",
                  model="claude-sonnet-4-5", newest_user=3, api="messages.create")


def test_anthropic_rows_are_estimates_from_o200k():
    lay = anthropic_layout()
    o200k = tokens.count('[{"name": "lookup", "description": "Search the knowledge base."}]') + tokens.count(POLICY)
    [row] = estimate(lay)
    assert row["exact"] is False and row["tokenizer"] == "claude-legacy"
    assert row["prefix_tokens"] == round(o200k * 1.16) == row["cached_tokens"]
    assert (row["min_cacheable_tokens"], row["read_price_multiplier"], row["write_price_multiplier"]) == (1024, 0.1, 1.25)
    assert row["note"] == "estimated as 1.16 x the o200k count"


def test_one_hour_breakpoint_uses_the_one_hour_write_price():
    [row] = estimate(anthropic_layout(ttl="1h"))
    assert row["write_price_multiplier"] == 2.0


def test_opt_in_prefix_ends_at_the_last_breakpoint_inside_the_static_prefix():
    lay = layout([Part("system", [static(POLICY), static(" Appendix: none.")], breakpoints=[Breakpoint(after=0)]),
                  Part("user", [user_input()])], provider="anthropic", model="claude-sonnet-4-5")
    [row] = estimate(lay)
    assert row["prefix_tokens"] == round(tokens.count(POLICY) * 1.16)
    assert static_prefix_tokens(lay) == tokens.count(POLICY + " Appendix: none.")


def test_anthropic_call_without_breakpoint_caches_nothing():
    [row] = estimate(anthropic_layout(breakpoint=False))
    assert (row["prefix_tokens"], row["cached_tokens"]) == (0, 0)
    assert row["note"].startswith("no cache breakpoint: nothing is cached on this opt-in API")
    # a statement of the code sets `cache_control` on a block the layout does not place: said so
    marked = anthropic_layout(breakpoint=False)
    marked.unplaced_markers = True
    [row] = estimate(marked)
    assert row["note"].startswith("no cache breakpoint placed (a statement sets `cache_control` on a block not "
                                  "placed here): without one nothing is cached on this opt-in API")


def test_breakpoint_only_after_dynamic_content_caches_nothing():
    lay = layout([Part("system", [static(POLICY)]), Part("user", [user_input()], breakpoints=[Breakpoint(after=0)])],
                 provider="anthropic", model="claude-sonnet-4-5")
    [row] = estimate(lay)
    assert row["cached_tokens"] == 0 and row["note"].startswith("no cache breakpoint closes static text")


def test_prompt_without_provider_gets_default_targets_and_an_assumed_breakpoint():
    lay = layout([Part("system", [static(POLICY)])], provider=None, model=None)
    rows = estimate(lay)
    assert [(r["provider"], r["model"], r["exact"]) for r in rows] == [
        ("openai", "gpt-4.1", True), ("anthropic", "claude-sonnet-4-5", False), ("google", "gemini-2.5-flash", False)]
    n = tokens.count(POLICY)
    assert 2048 <= n  # above the gemini-2.5 minimum too
    assert [r["prefix_tokens"] for r in rows] == [n, round(n * 1.16), n]
    assert [r["cached_tokens"] for r in rows] == [1024 + (n - 1024) // 128 * 128, round(n * 1.16), n]
    assert rows[1]["note"].startswith("assuming a cache breakpoint at the end of the static prefix")


def test_targets_for_and_string_targets():
    assert targets_for(openai_layout()) == [Target("openai", "gpt-4o")]
    assert targets_for(layout([], provider=None, model=None)) == list(DEFAULT_TARGETS)
    assert targets_for(layout([], provider="acme", model=None), [Target("xai", "grok-4")]) == [Target("xai", "grok-4")]
    assert targets_for(layout([], provider="anthropic", model=None)) == [Target("anthropic", None)]
    rows = estimate(openai_layout(), ["vllm:meta-llama/Llama-3.1-8B", "openai:gpt-5.6"])
    n = tokens.count(POLICY)
    assert [(r["provider"], r["exact"], r["prefix_tokens"], r["cached_tokens"]) for r in rows] == [
        ("vllm", False, n, n // 16 * 16), ("openai", True, n, n)]


def test_unknown_model_note_is_passed_through():
    [row] = estimate(openai_layout(model="gpt-9"))
    assert row["note"] == "model `gpt-9` has no openai profile: taken as the openai default, GPT-5 to GPT-5.4"


def test_a_known_provider_with_an_unknown_model_takes_the_configured_targets_of_that_provider():
    """`model=self.model` to OpenAI: `--target openai:gpt-4.1` / `targets` names the model, as
    `--help` says; targets of other providers do not apply (the provider's default row stays)."""
    unknown = layout([], provider="openai", model=None)
    configured = [Target("openai", "gpt-4.1"), Target("anthropic", "claude-sonnet-4-5")]
    assert targets_for(unknown, configured) == [Target("openai", "gpt-4.1")]
    assert targets_for(unknown, [Target("anthropic", "claude-sonnet-4-5")]) == [Target("openai", None)]
    assert targets_for(unknown) == [Target("openai", None)]
    # a model known statically is never replaced
    assert targets_for(openai_layout(), configured) == [Target("openai", "gpt-4o")]
    [row] = estimate(unknown, targets_for(unknown, configured))
    assert (row["provider"], row["model"], row["note"]) == ("openai", "gpt-4.1", None)
