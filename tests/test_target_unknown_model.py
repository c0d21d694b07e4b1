"""`check --target PROVIDER:MODEL` (and `targets` in the config) applies to a prompt sent to a known
provider whose model is not known statically (`model=self.model`), in the text message, the JSON
estimates and --statistics, as `explain` shows it; a target of another provider does not."""
from __future__ import annotations

import json
import re

import pytest

from ci_support import cli

RULES = "\n".join(f"Rule {i}: answer questions about order number {i} politely, briefly and in English."
                  for i in range(120))
CRITIC_PY = f'''\
from datetime import datetime

from openai import OpenAI

RULES = """{RULES}"""


class Critic:
    def __init__(self, model: str):
        self.client = OpenAI()
        self.model = model

    def critique(self, history: list) -> str:
        system = "Run started " + datetime.now().strftime("%H:%M:%S") + "\\n" + RULES
        response = self.client.chat.completions.create(
            model=self.model,
            messages=[{{"role": "system", "content": system}}, *history],
        )
        return response.choices[0].message.content
'''
ROW = CRITIC_PY.splitlines().index('        system = "Run started " + datetime.now().strftime("%H:%M:%S") + "\\n" + RULES') + 1


@pytest.fixture
def app(tmp_path, monkeypatch):
    (tmp_path / "critic.py").write_text(CRITIC_PY, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for name in ("NO_COLOR", "FORCE_COLOR", "PROMPTLINT_OUTPUT_FORMAT"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def _message(*args: str) -> str:
    result = cli("check", "critic.py", "--no-cache", "--output-format", "concise", *args)
    [line] = [line for line in result.stdout.splitlines() if " PRM102 " in line]
    assert line.startswith(f"critic.py:{ROW}:")
    return line


def _models(*args: str) -> list:
    report = json.loads(cli("check", "critic.py", "--no-cache", "--output-format", "json", *args).stdout)
    [prompt] = [p for p in report["prompts"] if p["api"] == "chat.completions.create"]
    return [(e["provider"], e["model"]) for e in prompt["estimates"]]


def test_target_of_the_calls_provider_names_its_model(app):
    assert "(openai:gpt-4.1: 0 cached tokens per request instead of 2,048" in _message("--target", "openai:gpt-4.1")
    assert _models("--target", "openai:gpt-4.1") == [("openai", "gpt-4.1")]
    stats = cli("check", "critic.py", "--no-cache", "--statistics", "--target", "openai:gpt-4.1").stdout
    assert re.search(r"^openai:gpt-4\.1 +1 +0 +2,164 +2,048$", stats, re.M), stats


def test_targets_in_the_config_apply_the_same(app):
    (app / "promptlint.toml").write_text('targets = ["openai:gpt-4.1", "anthropic:claude-sonnet-4-5"]\n',
                                         encoding="utf-8")
    assert "(openai:gpt-4.1: 0 cached tokens" in _message()
    assert _models() == [("openai", "gpt-4.1")]  # the Anthropic target is not this call's provider
    assert _models("--isolated") == [("openai", None)]


def test_without_a_target_of_that_provider_the_provider_default_stays(app):
    """Negative: no target, or one of another provider: the OpenAI default row (model None)."""
    assert "(openai: 0 cached tokens per request instead of 2,048" in _message()
    assert _models() == [("openai", None)]
    assert _models("--target", "anthropic:claude-sonnet-4-5") == [("openai", None)]
    stats = cli("check", "critic.py", "--no-cache", "--statistics").stdout
    assert re.search(r"^openai \(default: [^)]*\) +1 +0 ", stats, re.M) and "gpt-4.1" not in stats, stats


def test_check_and_explain_agree(app):
    explained = json.loads(cli("explain", f"critic.py:{ROW}", "--no-cache", "--output-format", "json",
                               "--target", "openai:gpt-4.1").stdout)
    rows = [(e["provider"], e["model"]) for p in explained["prompts"] if p["api"] == "chat.completions.create"
            for e in p["estimates"]]
    assert rows == _models("--target", "openai:gpt-4.1") == [("openai", "gpt-4.1")]


def _explained(*args: str) -> list:
    result = cli("explain", f"critic.py:{ROW}", "--no-cache", "--output-format", "json", *args)
    assert result.exit_code == 0, result.stderr
    return [(e["provider"], e["model"]) for p in json.loads(result.stdout)["prompts"]
            if p["api"] == "chat.completions.create" for e in p["estimates"]]


def test_explain_takes_isolated_and_config_as_check_does(app):
    (app / "promptlint.toml").write_text('targets = ["openai:gpt-4.1"]\n', encoding="utf-8")
    (app / "other.toml").write_text('targets = ["openai:gpt-4o"]\n', encoding="utf-8")
    assert _explained() == _models() == [("openai", "gpt-4.1")]  # the config found
    assert _explained("--isolated") == _models("--isolated") == [("openai", None)]
    assert _explained("--config", "other.toml") == _models("--config", "other.toml") == [("openai", "gpt-4o")]
    missing = cli("explain", f"critic.py:{ROW}", "--config", "missing.toml")
    assert missing.exit_code == 2 and "missing.toml" in missing.stderr
    assert "--isolated" in cli("explain", "--help").stdout
