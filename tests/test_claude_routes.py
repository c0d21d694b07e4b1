"""PRM302 on LiteLLM requests of a model not known statically in a package that writes Claude
model names: a model known for one caller says nothing of another's, a branch taken only for
another provider's route (`if model.startswith("ollama/"):`) is not Claude's, and the second send
call of a function knows what the first one read (fixtures/claude_routes, its README)."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "claude_routes"


def _found(path):
    report = api.check([path], api.Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row, d.message, d.related)
            for d in report.diagnostics]


def test_a_model_known_for_one_caller_only_may_be_claude_for_another():
    found = _found(FIXTURES / "mixed")
    # (line 11, the call under `if model.startswith("ollama/")`, is not reported)
    # (the sends of line 14 and 16 send the request the callers build: one finding, line 16 related)
    assert [f[:4] for f in found] == [("send.py", "PRM302", "info", 14)]
    assert [(r.span.start.row, r.message) for r in found[0][5]] == [(16, "the same request is sent here too")]
    # the tool turns converted by a function the first call of `complete` read (llm/convert.py)
    assert all(f[4].startswith("Request re-sends the tool definitions and the conversation history on every step of "
                               "the tool loop with no cache breakpoint: when the model is Claude (the package names "
                               "Claude models or their provider), Anthropic caches nothing without one") for f in found)


def test_every_caller_naming_another_providers_model_is_not_reported():
    assert _found(FIXTURES / "named") == []
