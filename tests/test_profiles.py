"""Provider profiles: packaged rows, lookup by model family, overrides and targets."""
from __future__ import annotations

import pytest

from promptlint import profiles
from promptlint.profiles import (DEFAULT_TARGETS, Target, UnknownTargetError, apply_overrides, lookup,
                                 min_cacheable_tokens, parse_target)


@pytest.fixture(autouse=True)
def _packaged_rows():
    apply_overrides([])
    yield
    apply_overrides([])


def test_every_packaged_row_has_a_source_and_a_unique_name():
    rows = profiles.active_profiles()
    assert len(rows) >= 30
    assert all(row.source for row in rows)
    assert len({row.name for row in rows}) == len(rows)
    assert {"openai", "anthropic", "google", "google-vertex", "bedrock", "vllm", "sglang"} <= profiles.known_providers()


@pytest.mark.parametrize("provider, model, name, minimum", [
    # the minimums the cases rely on (cases/README.md)
    ("anthropic", "claude-3-5-haiku-20241022", "claude-2048", 2048),
    ("anthropic", "claude-haiku-4-5", "claude-4096", 4096),
    ("anthropic", "claude-sonnet-4-5", "claude-1024", 1024),
    ("anthropic", "claude-sonnet-4-5-20250929", "claude-1024", 1024),
    ("anthropic", "claude-opus-5", "claude-512", 512),
    ("openai", "gpt-4o", "openai-gpt-4o", 1024),
    ("openai", "gpt-4.1-mini", "openai-gpt-4.1", 1024),
    ("openai", "gpt-5-mini", "openai-gpt-5-to-5.4", 1024),
    ("google", "gemini-2.5-flash", "gemini-2.5", 2048),
    ("google", "gemini-3.5-flash", "gemini-3.x-4", 4096),
    ("google-vertex", "gemini-2.5-pro", "vertex-gemini", 2048),
    ("bedrock", "amazon.nova-lite-v1:0", "bedrock-nova-micro-lite", 1536),
])
def test_lookup_finds_the_family_row(provider, model, name, minimum):
    profile, note = lookup(provider, model)
    assert (profile.name, profile.min_cacheable_tokens, note) == (name, minimum, None)


def test_most_specific_pattern_wins():
    sonnet_55, _ = lookup("anthropic", "claude-sonnet-5-5")
    sonnet_5, _ = lookup("anthropic", "claude-sonnet-5")
    assert (sonnet_55.name, sonnet_55.min_cacheable_tokens, sonnet_55.read_price_multiplier) == ("claude-sonnet-5.5", 512, 0.05)
    assert (sonnet_5.name, sonnet_5.min_cacheable_tokens, sonnet_5.tokenizer) == ("claude-1024-new-tokenizer", 1024, "claude-2026")
    fable_51, _ = lookup("anthropic", "claude-fable-5-1")
    assert fable_51.read_price_multiplier == 0.025


def test_openai_legacy_and_new_contracts():
    legacy, _ = lookup("openai", "gpt-4o")
    assert (legacy.increment_tokens, legacy.max_breakpoints, legacy.automatic, legacy.read_price_multiplier,
            legacy.write_price_multiplier) == (128, 0, True, 0.5, 1.0)
    new, _ = lookup("openai", "gpt-5.6")
    assert (new.increment_tokens, new.max_breakpoints, new.automatic, new.write_price_multiplier) == (0, 4, True, 1.25)
    assert new.write_multiplier("12h") == 2.5
    old, _ = lookup("openai", "gpt-4")
    assert (old.tokenizer, old.caching_supported) == ("cl100k_base", False)


def test_anthropic_is_opt_in_with_four_breakpoints_and_ttl_prices():
    profile, _ = lookup("anthropic", "claude-sonnet-4-5")
    assert profile.opt_in and profile.max_breakpoints == 4
    assert (profile.write_multiplier(None), profile.write_multiplier("5m"), profile.write_multiplier("1h")) == (1.25, 1.25, 2.0)
    assert profile.read_price_multiplier == 0.1 and profile.tokenizer == "claude-legacy"


def test_unknown_model_falls_back_to_provider_default_with_a_note():
    profile, note = lookup("openai", "gpt-9-turbo")
    assert profile.name == "openai-gpt-5-to-5.4"
    assert note == "model `gpt-9-turbo` has no openai profile: taken as the openai default, GPT-5 to GPT-5.4"
    profile, note = lookup("anthropic", None)
    assert profile.name == "claude-1024"
    assert note == ("model not known statically: taken as the anthropic default, "
                    "Claude Sonnet 3.5 to 4.6 and Opus 3 to 4.1")


def test_aliases_gateways_and_inherited_providers():
    assert lookup("gemini", "gemini-2.5-pro")[0].provider == "google"
    profile, note = lookup("litellm", "anthropic/claude-3-5-haiku-20241022")
    assert (profile.provider, profile.min_cacheable_tokens, note) == ("anthropic", 2048, None)
    assert lookup(None, "gpt-4o-mini")[0].name == "openai-gpt-4o"
    assert lookup("openai", "openai/gpt-4.1")[0].name == "openai-gpt-4.1"
    bedrock, note = lookup("bedrock", "us.anthropic.claude-haiku-4-5-20251001-v1:0")
    assert (bedrock.provider, bedrock.name, bedrock.min_cacheable_tokens, note) == ("bedrock", "claude-4096", 4096, None)
    azure, _ = lookup("azure", "gpt-4o")
    assert (azure.provider, azure.name, azure.read_price_multiplier) == ("azure-openai", "openai-gpt-4o", 0.5)
    vllm, _ = lookup("vllm", "openai/gpt-oss-20b")  # a served model id, not a provider prefix
    assert (vllm.provider, vllm.increment_tokens) == ("vllm", 16)


def test_unknown_provider_and_model_raise():
    with pytest.raises(UnknownTargetError):
        lookup("acme", "acme-large")
    with pytest.raises(UnknownTargetError):
        lookup(None, None)


def test_min_cacheable_tokens_convenience():
    assert min_cacheable_tokens("anthropic", "claude-haiku-4-5") == 4096
    assert min_cacheable_tokens("acme", "x") == 1024
    assert min_cacheable_tokens("anthropic", "claude-opus-5-5", default=700) == 700  # minimum not sourced


def test_default_targets_resolve_exactly():
    assert [str(t) for t in DEFAULT_TARGETS] == ["openai:gpt-4.1", "anthropic:claude-sonnet-4-5", "google:gemini-2.5-flash"]
    assert all(lookup(*t)[1] is None for t in DEFAULT_TARGETS)


def test_parse_target():
    assert parse_target("openai:gpt-5.4") == Target("openai", "gpt-5.4")
    assert parse_target(" Gemini:gemini-2.5-flash ") == Target("google", "gemini-2.5-flash")
    assert parse_target("bedrock:anthropic.claude-3-5-haiku-20241022-v1:0") == Target(
        "bedrock", "anthropic.claude-3-5-haiku-20241022-v1:0")
    assert parse_target("anthropic") == Target("anthropic", None)
    for bad, words in ((":gpt-4o", "expected PROVIDER:MODEL"), ("acme:x", "unknown provider `acme`"),
                       ("openai:", "empty model name")):
        with pytest.raises(ValueError, match=words):
            parse_target(bad)


def test_overrides_replace_fields_and_add_rows():
    apply_overrides([
        {"name": "claude-1024", "min_cacheable_tokens": 2048},
        {"provider": "openai", "name": "my-finetune", "model_patterns": ["ft:gpt-4.1-mini:acme*"],
         "tokenizer": "o200k_base", "min_cacheable_tokens": 1024, "increment_tokens": 128,
         "cached_input_price_multiplier": 0.25, "source": "our invoices 2026-11"},
    ])
    sonnet, _ = lookup("anthropic", "claude-sonnet-4-6")
    assert (sonnet.min_cacheable_tokens, sonnet.max_breakpoints, sonnet.source.startswith("https://github.com/anthropics/skills/")) == (2048, 4, True)
    mine, note = lookup("openai", "ft:gpt-4.1-mini:acme:v2")
    assert (mine.name, mine.read_price_multiplier, mine.automatic, note) == ("my-finetune", 0.25, True, None)
    apply_overrides([])
    assert lookup("anthropic", "claude-sonnet-4-6")[0].min_cacheable_tokens == 1024


def test_user_row_wins_a_tie_with_a_packaged_row():
    apply_overrides([{"provider": "anthropic", "name": "my-haiku", "model_patterns": ["claude-3-5-haiku*"],
                      "min_cacheable_tokens": 1024, "max_breakpoints": 4, "automatic": False}])
    assert lookup("anthropic", "claude-3-5-haiku-latest")[0].name == "my-haiku"


@pytest.mark.parametrize("row, message", [
    ({"name": "claude-1024", "min_tokens": 5}, "profile override 1: unknown key `min_tokens`"),
    ({"name": "claude-1024", "min_cacheable_tokens": "many"}, "`min_cacheable_tokens` must be a non-negative integer"),
    ({"name": "claude-1024", "automatic": "yes"}, "`automatic` must be true or false"),
    ({"provider": "acme", "name": "acme-row"}, "missing `model_patterns`"),
    ({"provider": "acme", "name": "acme-row", "model_patterns": [1]}, "`model_patterns` must be a list of strings"),
])
def test_bad_override_rows_are_errors(row, message):
    with pytest.raises(ValueError, match=message.replace("`", ".")):
        apply_overrides([row])
