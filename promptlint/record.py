"""Record the request bodies an application sends to LLM providers, for `promptlint trace`.

Two ways to plug it into the HTTP client of the OpenAI or Anthropic SDK (`httpx`, or `httpx2`
for the SDK generations built on it; nothing here imports either, any client with httpx's
request objects works):

    recorder = Recorder("requests.jsonl")
    http = httpx.Client(event_hooks={"request": [recorder]})            # an event hook
    http = httpx.AsyncClient(event_hooks={"request": [recorder.async_hook]})
    http = httpx.Client(transport=RecordingTransport(httpx.HTTPTransport(), recorder))
    client = OpenAI(http_client=http)

Each request whose body is a JSON object is appended to the file as one line,
`{"provider": "openai", "endpoint": "/v1/chat/completions", "time": "2026-...+00:00", "body": {...}}`.
Headers and the query string are never written (they carry API keys); the file is local and
nothing is sent anywhere. Appends are serialised with a lock, so one Recorder may be shared by
threads.
"""
from __future__ import annotations

import json
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

__all__ = ["Recorder", "RecordingTransport", "provider_of"]

# host suffix -> provider key of providers.toml
_HOSTS = (
    ("api.openai.com", "openai"),
    (".openai.azure.com", "azure-openai"),
    ("api.anthropic.com", "anthropic"),
    ("generativelanguage.googleapis.com", "google"),
    ("aiplatform.googleapis.com", "google-vertex"),
    ("amazonaws.com", "bedrock"),
    ("api.deepseek.com", "deepseek"),
    ("api.x.ai", "xai"),
    ("api.mistral.ai", "mistral"),
)


def provider_of(host: str) -> str | None:
    """The provider key for an API host name ("api.openai.com" -> "openai"), or None."""
    host = (host or "").lower()
    for suffix, provider in _HOSTS:
        if host == suffix.lstrip(".") or host.endswith(suffix):
            return provider
    return None


def _json_body(content: bytes) -> dict | None:
    if not content or content[:1] not in (b"{", b" ", b"\n", b"\t", b"\r"):
        return None
    try:
        body = json.loads(content)
    except (ValueError, UnicodeDecodeError):
        return None
    return body if isinstance(body, dict) else None


class Recorder:
    """Appends the JSON body of each request it sees to `path` (JSONL, UTF-8).

    `clock()` gives the request time in seconds since the epoch (default `time.time`); tests
    pass a fake clock. `count` is the number of lines written. Errors writing the file are
    raised to the caller (the HTTP client), so a broken log never goes unnoticed.
    """

    def __init__(self, path: str | Path, *, clock: Callable[[], float] | None = None):
        self.path = Path(path)
        self.clock = clock or time.time
        self.count = 0
        self._lock = threading.Lock()

    def __call__(self, request) -> None:
        """The synchronous event hook: `event_hooks={"request": [recorder]}`."""
        self.record(request)

    async def async_hook(self, request) -> None:
        """The hook for an async client: `event_hooks={"request": [recorder.async_hook]}`."""
        await request.aread()
        self.record(request)

    def line_for(self, request) -> dict | None:
        """The JSONL record of a request, or None when its body is not a JSON object."""
        try:
            content = request.content
        except Exception:  # httpx RequestNotRead: a streamed body not read yet
            content = request.read()
        body = _json_body(content)
        if body is None:
            return None
        url = request.url
        stamp = datetime.fromtimestamp(self.clock(), timezone.utc).isoformat()
        return {"provider": provider_of(url.host), "endpoint": url.path, "time": stamp, "body": body}

    def record(self, request) -> bool:
        """Append the request's line; True when one was written."""
        line = self.line_for(request)
        if line is None:
            return False
        data = json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n"
        with self._lock:
            with open(self.path, "a", encoding="utf-8") as out:
                out.write(data)
            self.count += 1
        return True


class RecordingTransport:
    """Wraps an httpx transport (sync or async): each request is recorded, then handed on.

    In tests, wrap a `MockTransport` to capture what an SDK sends without any network:
    `httpx.Client(transport=RecordingTransport(httpx.MockTransport(handler), recorder))`.
    """

    def __init__(self, transport, recorder: Recorder):
        self.transport = transport
        self.recorder = recorder

    def handle_request(self, request):
        self.recorder.record(request)
        return self.transport.handle_request(request)

    async def handle_async_request(self, request):
        await request.aread()
        self.recorder.record(request)
        return await self.transport.handle_async_request(request)

    def close(self) -> None:
        self.transport.close()

    async def aclose(self) -> None:
        await self.transport.aclose()

    def __enter__(self):
        self.transport.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.transport.__exit__(*exc)

    async def __aenter__(self):
        await self.transport.__aenter__()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.transport.__aexit__(*exc)
