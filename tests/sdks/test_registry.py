"""promptlint/python/sdks/__init__.py: the one list of SDK modules. Every SDK module of the folder
is registered and has its call-site tests here (adding an SDK is one module and one entry), and
model strings map to providers from the modules' declarations."""
from __future__ import annotations

from pathlib import Path

import pytest

import promptlint.python.sdks as registry
from promptlint.python.sdks import SDKS, provider_for_model, shapes_for

SDK_FOLDER = Path(registry.__file__).parent
TESTS = Path(__file__).parent


def test_every_sdk_module_is_registered_and_tested():
    modules = sorted(p.stem for p in SDK_FOLDER.glob("*.py") if p.stem not in ("__init__", "base"))
    assert sorted(sdk.name for sdk in SDKS) == modules
    untested = [m for m in modules if not (TESTS / f"test_{m}.py").is_file()]
    assert untested == []


def test_shapes_are_found_by_the_callee_name():
    assert [s.name for s in shapes_for("create")][:2] == ["chat.completions", "responses"]
    assert [s.name for s in shapes_for("complete_async")] == ["chat.complete"]
    assert shapes_for("count_tokens") == []


@pytest.mark.parametrize("model, default, expected", [
    ("openai/gpt-4.1", None, ("openai", "gpt-4.1")),
    ("anthropic:claude-3-5-haiku", None, ("anthropic", "claude-3-5-haiku")),
    ("azure/gpt-4o", None, ("azure-openai", "gpt-4o")),
    ("vertex_ai/gemini-pro", None, ("google", "gemini-pro")),
    ("groq/llama-3.1-8b", None, ("groq", "llama-3.1-8b")),
    ("gpt-4o", "litellm", ("openai", "gpt-4o")),
    ("gemini-2.0-flash", None, ("google", "gemini-2.0-flash")),
    ("mistral-large-latest", None, ("mistral", "mistral-large-latest")),
    ("command-r-plus", None, ("cohere", "command-r-plus")),
    ("us.anthropic.claude-3-5-haiku", "bedrock", ("bedrock", "us.anthropic.claude-3-5-haiku")),
    ("claude-sonnet-4-5", "anthropic", ("anthropic", "claude-sonnet-4-5")),
    ("my-finetune", "litellm", ("litellm", "my-finetune")),
    (None, "openai", ("openai", None)),
])
def test_model_strings_name_their_provider(model, default, expected):
    assert provider_for_model(model, default) == expected
