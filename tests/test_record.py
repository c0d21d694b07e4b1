"""promptlint.record: the httpx event hook and transport wrapper that log request bodies (JSONL)."""
from __future__ import annotations

import asyncio
import json

import httpx2
import pytest

from promptlint.record import Recorder, RecordingTransport, provider_of


def _answer(request):
    return httpx2.Response(200, json={"ok": True})


def _lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_event_hook_appends_each_json_body_with_provider_endpoint_and_time(tmp_path):
    out = tmp_path / "requests.jsonl"
    recorder = Recorder(out, clock=lambda: 1_764_493_200.0)
    with httpx2.Client(transport=httpx2.MockTransport(_answer), event_hooks={"request": [recorder]}) as http:
        http.post("https://api.openai.com/v1/chat/completions?api-version=1", json={"model": "gpt-4.1", "messages": []},
                  headers={"Authorization": "Bearer sk-secret"})
        http.post("https://api.anthropic.com/v1/messages", json={"model": "claude-sonnet-5", "messages": []})
        http.get("https://api.openai.com/v1/models")  # no body: not recorded
        http.post("https://api.openai.com/v1/files", content=b"not json")
    lines = _lines(out)
    assert [line["provider"] for line in lines] == ["openai", "anthropic"]
    assert lines[0] == {"provider": "openai", "endpoint": "/v1/chat/completions", "time": "2025-11-30T09:00:00+00:00",
                        "body": {"model": "gpt-4.1", "messages": []}}
    assert recorder.count == 2
    text = out.read_text(encoding="utf-8")
    assert "sk-secret" not in text and "api-version" not in text  # headers and query never written


def test_async_hook_and_recording_transport(tmp_path):
    out = tmp_path / "requests.jsonl"
    recorder = Recorder(out, clock=lambda: 0.0)

    async def answer(request):
        return httpx2.Response(200, json={})

    async def run():
        async with httpx2.AsyncClient(transport=httpx2.MockTransport(answer),
                                      event_hooks={"request": [recorder.async_hook]}) as http:
            await http.post("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
                            json={"contents": []})
        transport = RecordingTransport(httpx2.MockTransport(answer), recorder)
        async with httpx2.AsyncClient(transport=transport) as http:
            await http.post("https://example.test/v1/chat/completions", json={"messages": [{"role": "user"}]})

    asyncio.run(run())
    with httpx2.Client(transport=RecordingTransport(httpx2.MockTransport(_answer), recorder)) as http:
        response = http.post("https://x.openai.azure.com/openai/deployments/d/chat/completions", json={"messages": []})
    assert response.json() == {"ok": True}  # the wrapped transport still answers
    lines = _lines(out)
    assert [(line["provider"], line["endpoint"]) for line in lines] == [
        ("google", "/v1beta/models/gemini-2.5-flash:generateContent"),
        (None, "/v1/chat/completions"),
        ("azure-openai", "/openai/deployments/d/chat/completions"),
    ]


@pytest.mark.parametrize("host, provider", [
    ("api.openai.com", "openai"), ("my-resource.openai.azure.com", "azure-openai"),
    ("api.anthropic.com", "anthropic"), ("us-central1-aiplatform.googleapis.com", "google-vertex"),
    ("bedrock-runtime.us-east-1.amazonaws.com", "bedrock"), ("localhost", None), ("evil-api.openai.com.example", None),
])
def test_provider_of_host(host, provider):
    assert provider_of(host) == provider
