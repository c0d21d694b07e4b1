"""promptlint.trace.reader: JSONL request logs, streamed; envelopes, LiteLLM's logged forms, times,
and malformed lines reported with their line number and skipped."""
from __future__ import annotations

import gzip
import json

import pytest

from promptlint.source import SourceError
from promptlint.trace.reader import BadLine, read_requests

CHAT = {"model": "gpt-4.1", "messages": [{"role": "system", "content": "S"}, {"role": "user", "content": "Q"}]}


def _write(path, lines):
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines),
                    encoding="utf-8")
    return path


def test_bare_bodies_envelopes_and_times(tmp_path):
    log = _write(tmp_path / "r.jsonl", [
        CHAT,
        {"provider": "anthropic", "endpoint": "/v1/messages", "time": "2025-11-30T09:00:00Z",
         "body": {"model": "claude-sonnet-5", "system": "S", "messages": [{"role": "user", "content": "Q"}]}},
        {"endpoint": "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
         "time": 1764493200123, "body": json.dumps({"contents": [{"parts": [{"text": "T"}]}]})},
        {"body": CHAT, "time": 1764493200.5, "conversation": 7},
    ])
    got = list(read_requests(log))
    assert [(r.line, r.api, r.provider, r.model, r.time, r.conversation) for r in got] == [
        (1, "chat.completions", "openai", "gpt-4.1", None, None),
        (2, "messages", "anthropic", "claude-sonnet-5", 1764493200.0, None),
        (3, "generateContent", "google", "gemini-2.5-flash", 1764493200.123, None),
        (4, "chat.completions", "openai", "gpt-4.1", 1764493200.5, "7"),
    ]
    assert [r.head for r in got] == [1, 1, 0, 1]


def test_litellm_standard_logging_payload_callback_kwargs_and_spend_logs(tmp_path):
    payload = {"id": "x", "call_type": "acompletion", "model": "claude-sonnet-5", "custom_llm_provider": "anthropic",
               "startTime": 1764493200.0, "messages": CHAT["messages"],
               "model_parameters": {"temperature": 0.2, "tools": [{"type": "function", "function": {"name": "f"}}]}}
    spend = {"request_id": "r", "model": "gemini-2.5-flash", "custom_llm_provider": "vertex_ai",
             "startTime": "2025-11-30T09:00:05+00:00", "proxy_server_request": json.dumps(CHAT)}
    log = _write(tmp_path / "litellm.jsonl", [payload, {"standard_logging_object": payload, "litellm_params": {}}, spend])
    got = list(read_requests(log))
    assert [(r.api, r.provider, r.model, r.time) for r in got] == [
        ("chat.completions", "anthropic", "claude-sonnet-5", 1764493200.0),
        ("chat.completions", "anthropic", "claude-sonnet-5", 1764493200.0),
        ("chat.completions", "google-vertex", "gemini-2.5-flash", 1764493205.0),
    ]
    assert [u.label for u in got[0].units] == ["tools[0]", "messages[0]", "messages[1]"]  # OpenAI form, tools first


def test_malformed_lines_are_reported_with_their_number_and_skipped(tmp_path):
    log = _write(tmp_path / "bad.jsonl", [
        CHAT, "{not json", "", "[1, 2]", {"prompt": "legacy completion"}, {"messages": "hi"},
        {"messages": [{"role": "user", "content": "Q"}], "tools": 3}, "\xff-not-json", CHAT,
    ])
    got = list(read_requests(log))
    assert [item.line for item in got if not isinstance(item, BadLine)] == [1, 9]
    bad = [item for item in got if isinstance(item, BadLine)]
    assert [b.line for b in bad] == [2, 4, 5, 6, 7, 8]  # the blank line 3 is no error
    assert bad[0].message.startswith("not valid JSON (Expecting property name")
    assert bad[1].message == "expected a JSON object, got list"
    assert "not a request body of a known API" in bad[2].message
    assert bad[3].message == "`messages` must be a list"
    assert bad[4].message == "`tools` must be a list"


def test_a_line_over_the_limit_is_skipped_without_reading_it_whole(tmp_path):
    log = _write(tmp_path / "long.jsonl", [CHAT, {"messages": [{"role": "user", "content": "x" * 5000}]}, CHAT])
    got = list(read_requests(log, max_line_bytes=1000))
    assert [type(item).__name__ for item in got] == ["Request", "BadLine", "Request"]
    assert got[1] == BadLine(2, "longer than 1,000 bytes: skipped")
    assert got[2].line == 3


def test_gzip_logs_are_read_as_they_stream(tmp_path):
    path = tmp_path / "r.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.write(json.dumps(CHAT) + "\n" + json.dumps(CHAT) + "\n")
    assert [r.line for r in read_requests(path)] == [1, 2]


def test_a_missing_file_or_a_folder_is_a_source_error(tmp_path):
    with pytest.raises(SourceError, match="cannot read file"):
        list(read_requests(tmp_path / "missing.jsonl"))
    with pytest.raises(SourceError, match="not a regular file"):
        list(read_requests(tmp_path))
