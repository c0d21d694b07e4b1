"""A model name that names no model is no model, and an id of another catalogue sent through
OpenAI's client is not OpenAI's (fixtures/placeholder_models: its README says what each file shows)."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.placeholder_models import is_foreign_model, is_placeholder_model
from promptlint.python.sdks import provider_for_model
from promptlint.report.statistics import target_statistics

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "placeholder_models"


def _requests():
    report = api.check([FIXTURES], api.Settings(), jobs=1)
    return report, {Path(p.site.filename).name: (p.provider, p.model) for p in report.prompts
                    if p.source == "python-call"}


def test_placeholders_name_no_model():
    assert all(map(is_placeholder_model, ["not-provided", "", "none", "Unknown", "default", " N/A "]))
    assert not any(map(is_placeholder_model, [None, "gpt-4o", "default-model-v2", "claude-sonnet-4-5"]))
    assert provider_for_model("not-provided", "openai") == ("openai", None)


def test_a_placeholder_model_is_not_a_model_and_another_catalogue_is_not_openai():
    report, found = _requests()
    assert found == {"like.py": ("openai", None), "fallback.py": ("anthropic", None),
                     "fireworks.py": (None, "accounts/fireworks/models/llama-v3p1-405b-instruct"),
                     "routed.py": ("openai", "gpt-4o")}
    labels = {row["target"] for row in target_statistics(report)}
    assert not any("not-provided" in t or "openai:accounts" in t for t in labels)


def test_a_model_of_another_provider_is_no_model_of_an_sdk_that_serves_only_its_own():
    assert is_foreign_model("anthropic", "gpt-4o-mini") and is_foreign_model("google", "claude-3-haiku-20240307")
    assert not is_foreign_model("anthropic", "claude-3-haiku-20240307")
    assert not is_foreign_model("openai", "claude-sonnet-4-5")  # an OpenAI-compatible endpoint may serve it
    assert not is_foreign_model("anthropic", "my-finetune") and not is_foreign_model(None, "gpt-4o")
