"""Read a JSONL request log, one record a line, streamed (never the whole file in memory).

A line is one of:
- a bare request body (OpenAI chat / Responses, Anthropic messages, Gemini generateContent);
- the recorder's envelope `{"provider", "endpoint", "body", "time"}` (promptlint.record), where
  `body` may also be a JSON string; optional `model` and `conversation` keys are honoured;
- LiteLLM's logged forms: a StandardLoggingPayload (`messages` + `model_parameters`, with
  `custom_llm_provider`, `startTime`), a callback's kwargs holding one under
  `standard_logging_object`, or a spend-log row with `proxy_server_request`. LiteLLM logs the
  OpenAI-format request it was given, whatever the provider it routed to.

`read_requests(path)` yields Request objects in file order and `BadLine(line, message)` for a
line that is skipped (not JSON, not an object, not a request of a known API, too long). Empty
lines are ignored. Raises SourceError when the file cannot be opened.
"""
from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Iterator, NamedTuple

from ..profiles import UnknownTargetError, canonical_provider, lookup
from ..record import provider_of
from ..source import iter_lines
from .formats import FormatError, api_of, model_from_endpoint, units_of
from .model import Request

__all__ = ["BadLine", "MAX_LINE_BYTES", "parse_line", "read_requests"]

MAX_LINE_BYTES = 64 * 1024 * 1024  # bytes: a longer line is skipped unread
_LITELLM_PARAMS = ("tools", "functions", "tool_choice", "response_format")
_API_PROVIDER = {"messages": "anthropic", "generateContent": "google", "responses": "openai"}


class BadLine(NamedTuple):
    """A skipped line: its 1-based number and a one-line reason."""

    line: int
    message: str


def _time(value) -> float | None:
    """Seconds since the epoch from a number (seconds, or milliseconds when > 1e11) or an ISO
    8601 string; None when absent or unreadable."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return value / 1000.0 if value > 1e11 else float(value)
    if isinstance(value, str):
        text = value.strip().replace("Z", "+00:00").replace("z", "+00:00")
        try:
            return datetime.fromisoformat(text).timestamp()
        except ValueError:
            try:
                return _time(float(text))
            except ValueError:
                return None
    return None


def _loads(value, what: str):
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError as exc:
            raise FormatError(f"`{what}` is a string that is not valid JSON ({exc.msg})") from None
    return value


def _unwrap(obj: dict) -> tuple[dict, dict]:
    """(body, facts) where facts may hold provider, endpoint, time, model, conversation."""
    if isinstance(obj.get("standard_logging_object"), dict):
        obj = obj["standard_logging_object"]
    if "body" in obj and isinstance(obj["body"], (dict, str)):
        body = _loads(obj["body"], "body")
        facts = {k: obj.get(k) for k in ("provider", "endpoint", "time", "model", "conversation")}
        facts["endpoint"] = facts["endpoint"] or obj.get("url")
        return body, facts
    if "proxy_server_request" in obj:
        body = _loads(obj["proxy_server_request"], "proxy_server_request")
        return body, {"provider": obj.get("custom_llm_provider"), "time": obj.get("startTime"),
                      "model": obj.get("model"), "endpoint": None, "litellm": True}
    if "model_parameters" in obj and "messages" in obj:
        messages = obj["messages"]
        if isinstance(messages, str):
            messages = [{"role": "user", "content": messages}]
        body = {"model": obj.get("model"), "messages": messages}
        params = obj.get("model_parameters") if isinstance(obj.get("model_parameters"), dict) else {}
        body.update({k: params[k] for k in _LITELLM_PARAMS if k in params})
        return body, {"provider": obj.get("custom_llm_provider"), "time": obj.get("startTime"),
                      "model": obj.get("model"), "endpoint": None, "litellm": True}
    return obj, {}


def _provider(given, endpoint: str | None, api: str, model: str | None) -> str | None:
    if isinstance(given, str) and given.strip():
        return canonical_provider(given.strip().replace("_", "-"))
    if endpoint and "://" in endpoint:
        host = re.sub(r"^[a-z]+://", "", endpoint).split("/", 1)[0].split(":", 1)[0]
        found = provider_of(host)
        if found:
            return found
    if model:
        try:
            return lookup(None, model)[0].provider
        except UnknownTargetError:
            pass
    return _API_PROVIDER.get(api)


def parse_line(line: int, data: bytes) -> Request:
    """One log line as a Request. Raises FormatError (or ValueError for bad JSON)."""
    obj = json.loads(data)
    if not isinstance(obj, dict):
        raise FormatError(f"expected a JSON object, got {type(obj).__name__}")
    body, facts = _unwrap(obj)
    if not isinstance(body, dict):
        raise FormatError("the request body is not a JSON object")
    endpoint = facts.get("endpoint") if isinstance(facts.get("endpoint"), str) else None
    api = "chat.completions" if facts.get("litellm") else api_of(body, endpoint)
    units, auto = units_of(api, body)
    model = facts.get("model") or body.get("model") or model_from_endpoint(endpoint)
    model = model if isinstance(model, str) and model else None
    provider = _provider(facts.get("provider"), endpoint, api, model)
    head = 0
    while head < len(units) and units[head].kind != "message":
        head += 1
    conversation = facts.get("conversation")
    return Request(line, _time(facts.get("time")), provider, api, model, units, head, auto,
                   str(conversation) if conversation is not None else None)


def read_requests(path, max_line_bytes: int = MAX_LINE_BYTES) -> Iterator[Request | BadLine]:
    """Stream the requests of a JSONL log (`path` "-" is standard input, `.gz` is decompressed).
    Yields Request or BadLine per non-empty line, in file order."""
    for line, data in iter_lines(path, max_line_bytes):
        if data is None:
            yield BadLine(line, f"longer than {max_line_bytes:,} bytes: skipped")
            continue
        if not data.strip():
            continue
        try:
            yield parse_line(line, data)
        except json.JSONDecodeError as exc:
            yield BadLine(line, f"not valid JSON ({exc.msg} at column {exc.colno})")
        except UnicodeDecodeError as exc:
            yield BadLine(line, f"not valid UTF-8 (byte {exc.start})")
        except (FormatError, ValueError) as exc:
            yield BadLine(line, str(exc) or type(exc).__name__)
        except (TypeError, AttributeError, KeyError) as exc:  # a field of an unexpected type
            yield BadLine(line, f"not a request of the expected shape ({exc})")
