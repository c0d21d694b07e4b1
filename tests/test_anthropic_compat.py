"""PRM302 at requests sent with the OpenAI SDK to Anthropic's OpenAI-compatible endpoint, which
does no prompt caching: fixtures/anthropic_compat (its README says what each function shows)."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "anthropic_compat"


def _found():
    report = api.check([FIXTURES], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row, d.message) for d in report.diagnostics]


def test_the_compatibility_endpoint_caches_nothing_and_a_breakpoint_would_not_help():
    found = _found()
    assert [f[:3] for f in found] == [
        ("PRM302", "warning", 94),  # `answer`: the 80-rule policy, at its end
        # (`short_answer`: one sentence before the question; `answer_openai`: OpenAI caches it)
        ("PRM302", "info", 124),  # `CompatClient.call`: its callers' request, base URL by default
    ]
    assert found[0][3].startswith("Static prefix of about 3,073 tokens reaches the 1,024-token minimum of "
                                  "claude-sonnet-4-5 but is sent to Anthropic's OpenAI-compatible endpoint")
    assert "never cached, with or without a breakpoint" in found[0][3]
    assert found[1][3].startswith("This request is sent to Anthropic's OpenAI-compatible endpoint")
    assert all("https://docs.claude.com/en/api/openai-sdk" in f[3] for f in found)
