"""Request bodies of the provider APIs, turned into units in the provider's cache order.

- OpenAI chat completions: tools (or functions) -> `response_format` schema -> messages.
- OpenAI Responses: tools -> `text.format` schema -> instructions -> input (a string is the
  newest user message; a list holds messages and items such as function calls).
- Anthropic messages: tools -> system -> messages; `cache_control` on a tool, system block or
  message block is a breakpoint after it; a top-level `cache_control` is automatic caching.
- Gemini generateContent: system_instruction -> tools -> contents (camelCase or snake_case keys).

A text block's unit text is its string; any other block (image, tool call, tool result) is
compact JSON in the body's own key order, without `cache_control` (markers change no token).
`api_of` tells the API from the endpoint path and the body's keys.
"""
from __future__ import annotations

import json
import re

from .model import Unit

__all__ = ["API_NAMES", "FormatError", "api_of", "model_from_endpoint", "units_of"]

API_NAMES = ("chat.completions", "responses", "messages", "generateContent")
_HEAD_KINDS = ("tools", "schema", "system")
_GEMINI_MODEL = re.compile(r"models/([^/:?]+):(?:stream)?[gG]enerateContent")


class FormatError(ValueError):
    """The body is not a request of a known API, or a field has the wrong shape."""


def _json(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _strip_marker(block):
    if isinstance(block, dict) and ("cache_control" in block or "prompt_cache_breakpoint" in block):
        return {k: v for k, v in block.items() if k not in ("cache_control", "prompt_cache_breakpoint")}
    return block


def _marked(block) -> bool:
    return isinstance(block, dict) and bool(block.get("cache_control") or block.get("prompt_cache_breakpoint"))


def api_of(body: dict, endpoint: str | None = None) -> str:
    """The API of a body: from the endpoint path when given, else from its keys.
    Raises FormatError when neither tells."""
    path = (endpoint or "").lower()
    if "generatecontent" in path:
        return "generateContent"
    if path.rstrip("/").endswith("/responses"):
        return "responses"
    if path.rstrip("/").endswith("/chat/completions"):
        return "chat.completions"
    if path.rstrip("/").endswith("/messages") and "/threads/" not in path:
        return "messages"
    if "contents" in body:
        return "generateContent"
    if "messages" in body:
        if "system" in body or _anthropic_shaped(body):
            return "messages"
        return "chat.completions"
    if "input" in body or "instructions" in body:
        return "responses"
    raise FormatError("not a request body of a known API (no messages, input, instructions or contents)")


def _anthropic_shaped(body: dict) -> bool:
    tools = body.get("tools")
    if isinstance(tools, list) and any(isinstance(t, dict) and "input_schema" in t for t in tools):
        return True
    if "cache_control" in body:
        return True
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") in ("tool_use", "tool_result")
                                             for b in content):
            return True
    return False


def model_from_endpoint(endpoint: str | None) -> str | None:
    """The model named in a Gemini endpoint path (`.../models/gemini-2.5-flash:generateContent`)."""
    m = _GEMINI_MODEL.search(endpoint or "")
    return m.group(1) if m else None


def _list(value, name: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise FormatError(f"`{name}` must be a list")
    return value


def _tools(body: dict, key: str = "tools") -> list[Unit]:
    units = []
    tools = _list(body.get(key), key)
    for i, tool in enumerate(tools):
        units.append(Unit(f"{key}[{i}]", "tools", "tools", _json(_strip_marker(tool)), None, _marked(tool)))
    return units


def _content_units(label: str, kind: str, role: str, content, message: int | None,
                   text_types=("text", "input_text", "output_text")) -> list[Unit]:
    """Units of one message's content: a string, or a list of blocks."""
    if content is None:
        return []
    if isinstance(content, str):
        return [Unit(label, kind, role, content, message)]
    if not isinstance(content, list):
        return [Unit(label, kind, role, _json(content), message)]
    units = []
    for j, block in enumerate(content):
        sub = f"{label}.content[{j}]" if kind == "message" else f"{label}[{j}]"
        if isinstance(block, str):
            text = block
        elif isinstance(block, dict) and block.get("type") in text_types and isinstance(block.get("text"), str):
            text = block["text"]
        else:
            text = _json(_strip_marker(block))
        units.append(Unit(sub, kind, role, text, message, _marked(block)))
    return units


def _chat(body: dict) -> list[Unit]:
    units = _tools(body, "tools" if "tools" in body else "functions")
    fmt = body.get("response_format")
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        units.append(Unit("response_format", "schema", "schema", _json(fmt)))
    index = 0
    for i, message in enumerate(_list(body.get("messages"), "messages")):
        if not isinstance(message, dict):
            raise FormatError(f"`messages[{i}]` must be an object")
        role = str(message.get("role", "user"))
        leading = role in ("system", "developer") and index == 0  # before any conversation message
        kind, number = ("system", None) if leading else ("message", index)
        rest = {k: v for k, v in message.items() if k not in ("role", "content")}
        found = _content_units(f"messages[{i}]", kind, role, message.get("content"), number)
        if rest:  # tool_calls, tool_call_id, name: part of the rendered message
            found.append(Unit(f"messages[{i}].{'+'.join(rest)}", kind, role, _json(rest), number))
        units += found
        if not leading:
            index += 1
    return units


def _responses(body: dict) -> list[Unit]:
    units = _tools(body)
    text = body.get("text")
    if isinstance(text, dict) and isinstance(text.get("format"), dict) and text["format"].get("type") == "json_schema":
        units.append(Unit("text.format", "schema", "schema", _json(text["format"])))
    if isinstance(body.get("instructions"), str):
        units.append(Unit("instructions", "system", "system", body["instructions"]))
    value = body.get("input")
    if isinstance(value, str):
        units.append(Unit("input", "message", "user", value, 0))
        return units
    index = 0
    for i, item in enumerate(_list(value, "input")):
        if not isinstance(item, dict):
            raise FormatError(f"`input[{i}]` must be an object")
        role = item.get("role")
        if role is not None and item.get("type", "message") == "message":
            leading = role in ("system", "developer") and index == 0
            kind, number = ("system", None) if leading else ("message", index)
            units += _content_units(f"input[{i}]", kind, str(role), item.get("content"), number)
        else:  # function_call, function_call_output, reasoning, ...
            kind, number = "message", index
            units.append(Unit(f"input[{i}]", kind, str(item.get("type", "item")), _json(_strip_marker(item)), number))
        if kind == "message":
            index += 1
    return units


def _anthropic(body: dict) -> list[Unit]:
    units = _tools(body)
    system = body.get("system")
    if isinstance(system, str):
        units.append(Unit("system", "system", "system", system))
    elif system is not None:
        units += _content_units("system", "system", "system", _list(system, "system"), None)
    for i, message in enumerate(_list(body.get("messages"), "messages")):
        if not isinstance(message, dict):
            raise FormatError(f"`messages[{i}]` must be an object")
        units += _content_units(f"messages[{i}]", "message", str(message.get("role", "user")), message.get("content"), i)
    return units


def _gemini_parts(label: str, kind: str, role: str, parts, message: int | None) -> list[Unit]:
    units = []
    for j, part in enumerate(_list(parts, f"{label}.parts")):
        text = part["text"] if isinstance(part, dict) and isinstance(part.get("text"), str) and len(part) == 1 else _json(part)
        units.append(Unit(f"{label}.parts[{j}]", kind, role, text, message))
    return units


def _gemini(body: dict) -> list[Unit]:
    units: list[Unit] = []
    key = "systemInstruction" if "systemInstruction" in body else "system_instruction"
    system = body.get(key)
    if isinstance(system, str):
        units.append(Unit(key, "system", "system", system))
    elif isinstance(system, dict):
        units += _gemini_parts(key, "system", "system", system.get("parts"), None)
    units += _tools(body)
    for i, content in enumerate(_list(body.get("contents"), "contents")):
        if isinstance(content, str):
            units.append(Unit(f"contents[{i}]", "message", "user", content, i))
        elif isinstance(content, dict):
            units += _gemini_parts(f"contents[{i}]", "message", str(content.get("role", "user")), content.get("parts"), i)
        else:
            raise FormatError(f"`contents[{i}]` must be an object")
    return units


_BUILDERS = {"chat.completions": _chat, "responses": _responses, "messages": _anthropic, "generateContent": _gemini}


def units_of(api: str, body: dict) -> tuple[list[Unit], bool]:
    """The units of a body of `api` in cache order, and whether it asks for automatic caching
    (Anthropic's top-level `cache_control`). Raises FormatError for a malformed body."""
    units = _BUILDERS[api](body)
    auto = api == "messages" and bool(body.get("cache_control"))
    if not units:
        raise FormatError("the body has no prompt content")
    return units, auto
