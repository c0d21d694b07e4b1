"""Anthropic Messages API bodies that a module bound for Anthropic's endpoint (its URL, Bedrock's
`anthropic_version`) hands to a sender promptlint does not follow, or returns as JSON text, are
read as the SDK call would be (fixtures/handed_bodies and fixtures/marked_bodies, their README)."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python import request_bodies

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _report(name):
    return api.check([FIXTURES / name], api.Settings(), jobs=1)


def test_a_body_handed_on_or_returned_as_json_for_anthropic_is_reported_once_where_it_is_written():
    report = _report("handed_bodies")
    found = [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row) for d in report.diagnostics]
    assert found == [
        ("claude_bedrock.py", "PRM105", "info", 14),  # the system messages joined
        ("claude_bedrock.py", "PRM302", "info", 18),  # the dict inside `json.dumps`
        ("claude_http.py", "PRM302", "info", 16),  # the `dict(...)`, not again at `_with_defaults` or the send
    ]
    bodies = {Path(l.site.filename).name: [p.role for p in l.parts] for l in report.prompts if l.provider == "anthropic"}
    assert bodies == {"claude_bedrock.py": ["system", "history"],
                      "claude_http.py": ["tools", "system", "history", "user"]}
    assert not [l for l in report.prompts if Path(l.site.filename).name == "openai_http.py" and l.provider]
    # a body handed to a helper that edits it (its result dropped) is not sent there; Nova's is no Claude body
    assert not [l for l in report.prompts if Path(l.site.filename).name == "bedrock_providers.py"]


def test_a_handed_body_with_a_breakpoint_is_not_reported():
    report = _report("marked_bodies")
    assert [l.provider for l in report.prompts if l.provider] == ["anthropic"]
    assert report.diagnostics == []


def test_the_text_test_needs_anthropic_endpoint_and_the_body_keys():
    url = 'URL = "https://api.anthropic.com/v1/messages"\nbody = dict(messages=m, max_tokens=5)\n'
    assert request_bodies.might_hold(url)
    assert request_bodies.might_hold('{"anthropic_version": "bedrock-2023-05-31", "max_tokens": 1, "messages": m}')
    assert not request_bodies.might_hold(url.replace("/v1/messages", "/v1/chat/completions").replace(
        "api.anthropic.com", "api.openai.com"))
    assert not request_bodies.might_hold('URL = "https://api.anthropic.com/v1/chat/completions"\n'
                                         'body = {"messages": m, "max_tokens": 5}\n')
