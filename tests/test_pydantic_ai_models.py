"""PRM302 at pydantic-ai's Claude models in a package that builds pydantic-ai agents and never asks
for a cache breakpoint: fixtures/pydantic_ai_models (its README says what each package shows)."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "pydantic_ai_models"


def _found(name):
    report = api.check([FIXTURES / name], api.Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row, d.message)
            for d in report.diagnostics if d.code == "PRM302"]


def test_a_model_string_formatted_from_a_provider_compared_with_anthropic_is_reported():
    found = _found("runtime")
    assert [f[:4] for f in found] == [("agent.py", "PRM302", "info", 10)]
    assert found[0][4].startswith("This pydantic-ai model runs on Claude (a Claude model, or a provider setting "
                                  "the module expects to be \"anthropic\" or \"bedrock\"), and no file of the "
                                  "package asks pydantic-ai for a cache breakpoint")


def test_anthropic_model_class_and_model_string_in_a_package_of_agents_are_reported():
    assert [f[:4] for f in _found("model_class")] == [("claude.py", "PRM302", "info", 9)]
    assert [f[:4] for f in _found("string")] == [("agent.py", "PRM302", "info", 3)]


def test_cache_settings_other_providers_and_no_agent_are_not_reported():
    assert _found("cached") == []  # `anthropic_cache_instructions` in the agent's settings
    assert _found("other") == []  # the provider is never expected to be "anthropic"; an OpenAI model string
    assert _found("no_agent") == []  # no pydantic-ai agent in the package
