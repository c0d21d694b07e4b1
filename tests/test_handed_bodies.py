"""Anthropic Messages API bodies that a module bound for Anthropic's endpoint (its URL, Bedrock's
`anthropic_version`) hands to a sender promptlint does not follow, or returns as JSON text, are
read as the SDK call would be (fixtures/handed_bodies and fixtures/marked_bodies, their README)."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.judged import judged
from promptlint.python import request_bodies

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _report(name):
    return api.check([FIXTURES / name], api.Settings(), jobs=1)


def test_a_body_handed_on_or_returned_as_json_for_anthropic_is_reported_once_where_it_is_written():
    report = _report("handed_bodies")
    found = [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row) for d in report.diagnostics]
    assert found == [
        ("bedrock_providers.py", "PRM302", "info", 18),  # Claude's body, sent by `invoke_model`, not the helper
        ("claude_bedrock.py", "PRM105", "info", 14),  # the system messages joined
        ("claude_bedrock.py", "PRM302", "info", 18),  # the dict inside `json.dumps`
        ("claude_http.py", "PRM302", "info", 16),  # the `dict(...)`, not again at `_with_defaults` or the send
    ]
    bodies = {Path(l.site.filename).name: [p.role for p in l.parts] for l in report.prompts if l.provider == "anthropic"}
    assert bodies == {"claude_bedrock.py": ["system", "history"],
                      "claude_http.py": ["tools", "system", "history", "user"]}
    assert not [l for l in report.prompts if Path(l.site.filename).name == "openai_http.py" and l.provider]
    # a body handed to a helper that edits it (its result dropped) is not sent there; Nova's is no Claude body:
    # the one request is Claude's, sent by `invoke_model`
    sent = [(l.site.start.row, l.source, l.provider, l.api, [p.role for p in l.parts]) for l in report.prompts
            if Path(l.site.filename).name == "bedrock_providers.py"]
    assert sent == [(18, "python-call", "bedrock", "invoke_model", ["user"])]


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


def test_a_claude_body_sent_by_bedrock_invoke_model_is_read_through_json_dumps_branches_and_helpers():
    report = _report("invoked_bodies")
    found = [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row) for d in report.diagnostics]
    assert found == [
        ("chat.py", "PRM302", "info", 18),  # the send of a body another module builds: judged at the send only
        ("claude_client.py", "PRM302", "info", 25),  # Claude's dict among the providers' bodies, `json.dumps` named
        ("claude_client.py", "PRM302", "info", 57),  # at the send: the dict is the defaults `__init__` keeps
        ("support.py", "PRM302", "warning", 135),  # the system prompt reaches Claude 3.7 Sonnet's minimum
    ]
    kept = next(d for d in report.diagnostics if d.span.filename.endswith("claude_client.py"))
    assert kept.message.startswith("Request re-sends the tool definitions, system prompt and the conversation "
                                   "history on every step of the tool loop with no cache breakpoint: "
                                   "us.anthropic.claude-sonnet-4-20250514-v1:0 caches nothing without one")
    assert kept.message.endswith("a `cache_control` on the last block of the last message would cache it")
    sent = sorted((Path(l.site.filename).name, l.source, l.provider, l.api, [p.role for p in l.parts])
                  for l in judged(report.prompts))  # (the helper's returned dict is judged at the send)
    assert sent == [
        ("chat.py", "python-call", "bedrock", "invoke_model", ["tools", "system", "history", "user"]),
        ("claude_client.py", "python-call", "bedrock", "invoke_model", ["system", "user"]),
        ("claude_client.py", "python-call", "bedrock", "invoke_model", ["tools", "system", "history"]),
        ("support.py", "python-call", "bedrock", "invoke_model_with_response_stream", ["system", "user"]),
    ]  # (Titan's embedding body is no Claude request, nor is the other branch's `inputText`)


def test_a_claude_body_for_invoke_model_with_a_breakpoint_is_not_reported():
    report = _report("invoked_bodies_marked")
    assert [(l.provider, l.api) for l in report.prompts] == [("bedrock", "invoke_model_with_response_stream")]
    assert report.diagnostics == []
