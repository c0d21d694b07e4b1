"""PRM302 at a Bedrock chat model of LlamaIndex or LangChain running Claude in a package that never
asks for a cache point and runs agents or replays a conversation: fixtures/bedrock_models (its
README says what each package shows)."""
from __future__ import annotations

import ast
from pathlib import Path

from promptlint import api
from promptlint.python.bedrock_models import _caches

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "bedrock_models"


def _found(name):
    report = api.check([FIXTURES / name], api.Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row, d.message)
            for d in report.diagnostics if d.code == "PRM302"]


def test_a_claude_bedrock_model_of_an_agent_package_or_a_replayed_chat_is_reported():
    for name, where in (("agent", ("llm.py", "PRM302", "info", 9)), ("chat", ("chat.py", "PRM302", "info", 11))):
        found = _found(name)
        assert [f[:4] for f in found] == [where]
        assert found[0][4].startswith("This Bedrock chat model runs Claude (the model it is given, or a Claude model id "
                                      "the module writes), built with no caching option, and no file of the package "
                                      "names one")


def test_a_model_that_caches_runs_no_claude_serves_no_agent_or_is_marked_is_not_reported():
    for name in ("cached", "llama", "oneshot", "marked"):
        assert _found(name) == [], name


def test_a_caching_keyword_or_a_mapping_may_ask_for_caching():
    def call(text):
        return ast.parse(text).body[0].value
    assert _caches(call("BedrockConverse(model=m, system_prompt_caching=True)"))
    assert _caches(call("BedrockConverse(model=m, tool_caching=self.cache)"))
    assert _caches(call("BedrockConverse(model=m, **options)"))
    assert not _caches(call("BedrockConverse(model=m, tool_caching=False, temperature=0)"))
