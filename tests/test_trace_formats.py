"""promptlint.trace.formats: each API's request body as units in the provider's cache order."""
from __future__ import annotations

import pytest

from promptlint.trace.formats import FormatError, api_of, model_from_endpoint, units_of


def _shape(units):
    return [(u.label, u.kind, u.role, u.message, u.breakpoint) for u in units]


def test_openai_chat_tools_schema_then_messages_with_blocks_and_tool_calls():
    body = {
        "model": "gpt-4.1",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": [{"type": "text", "text": "Hi"}, {"type": "image_url", "image_url": {"url": "u"}}]},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "function": {"name": "f"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "42"},
        ],
        "tools": [{"type": "function", "function": {"name": "f"}}],
        "response_format": {"type": "json_schema", "json_schema": {"name": "s"}},
    }
    units, auto = units_of(api_of(body), body)
    assert not auto
    assert _shape(units) == [
        ("tools[0]", "tools", "tools", None, False),
        ("response_format", "schema", "schema", None, False),
        ("messages[0]", "system", "system", None, False),
        ("messages[1].content[0]", "message", "user", 0, False),
        ("messages[1].content[1]", "message", "user", 0, False),
        ("messages[2].tool_calls", "message", "assistant", 1, False),
        ("messages[3]", "message", "tool", 2, False),
        ("messages[3].tool_call_id", "message", "tool", 2, False),
    ]
    assert units[3].text == "Hi"
    assert units[4].text == '{"type":"image_url","image_url":{"url":"u"}}'  # compact, body key order


def test_openai_responses_instructions_string_and_list_input():
    body = {"model": "gpt-4.1-mini", "instructions": "Teach.", "input": "What is 1/2 + 1/3?",
            "text": {"format": {"type": "json_schema", "name": "a", "schema": {}}}}
    assert api_of(body) == "responses"
    units, _ = units_of("responses", body)
    assert _shape(units) == [("text.format", "schema", "schema", None, False),
                             ("instructions", "system", "system", None, False),
                             ("input", "message", "user", 0, False)]
    body = {"input": [{"role": "developer", "content": "Rules."},
                      {"role": "user", "content": [{"type": "input_text", "text": "Q"}]},
                      {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}]}
    units, _ = units_of("responses", body)
    assert _shape(units) == [("input[0]", "system", "developer", None, False),
                             ("input[1].content[0]", "message", "user", 0, False),
                             ("input[2]", "message", "function_call", 1, False)]


def test_anthropic_tools_system_messages_breakpoints_and_automatic_caching():
    body = {
        "model": "claude-sonnet-5", "max_tokens": 100, "cache_control": {"type": "ephemeral"},
        "tools": [{"name": "a", "input_schema": {}}, {"name": "b", "input_schema": {}, "cache_control": {"type": "ephemeral"}}],
        "system": [{"type": "text", "text": "Rules.", "cache_control": {"type": "ephemeral", "ttl": "1h"}}],
        "messages": [{"role": "user", "content": "Q"},
                     {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "a", "input": {}}]}],
    }
    assert api_of(body, "/v1/messages") == "messages"
    units, auto = units_of("messages", body)
    assert auto
    assert _shape(units) == [("tools[0]", "tools", "tools", None, False), ("tools[1]", "tools", "tools", None, True),
                             ("system[0]", "system", "system", None, True),
                             ("messages[0]", "message", "user", 0, False),
                             ("messages[1].content[0]", "message", "assistant", 1, False)]
    assert units[1].text == '{"name":"b","input_schema":{}}'  # the marker changes no token: left out
    assert units[2].text == "Rules."


@pytest.mark.parametrize("system_key", ["systemInstruction", "system_instruction"])
def test_gemini_system_instruction_tools_contents(system_key):
    body = {system_key: {"parts": [{"text": "Summarise."}]},
            "tools": [{"functionDeclarations": [{"name": "f"}]}],
            "contents": [{"role": "user", "parts": [{"text": "T"}, {"inlineData": {"mimeType": "image/png"}}]}]}
    endpoint = "/v1beta/models/gemini-2.5-flash:generateContent"
    assert api_of(body, endpoint) == "generateContent"
    assert model_from_endpoint(endpoint) == "gemini-2.5-flash"
    units, _ = units_of("generateContent", body)
    assert _shape(units) == [(f"{system_key}.parts[0]", "system", "system", None, False),
                             ("tools[0]", "tools", "tools", None, False),
                             ("contents[0].parts[0]", "message", "user", 0, False),
                             ("contents[0].parts[1]", "message", "user", 0, False)]


def test_api_from_keys_and_endpoints():
    assert api_of({"messages": []}) == "chat.completions"
    assert api_of({"messages": [], "system": "s"}) == "messages"
    assert api_of({"messages": [], "tools": [{"name": "x", "input_schema": {}}]}) == "messages"
    assert api_of({"messages": []}, "/v1/chat/completions") == "chat.completions"
    assert api_of({"input": "x"}, "/v1/responses") == "responses"
    assert api_of({"contents": []}) == "generateContent"
    with pytest.raises(FormatError, match="not a request body of a known API"):
        api_of({"prompt": "x"})


def test_malformed_bodies_raise_format_error():
    with pytest.raises(FormatError, match="`messages` must be a list"):
        units_of("chat.completions", {"messages": "hi"})
    with pytest.raises(FormatError, match="no prompt content"):
        units_of("chat.completions", {"messages": []})
    with pytest.raises(FormatError, match=r"`messages\[0\]` must be an object"):
        units_of("messages", {"messages": ["hi"]})
