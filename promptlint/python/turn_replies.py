"""The model's reply of this turn written back into the message list that is sent again, and the
newest user message it answers (docs/policies.md, Policy 3).

A tool loop's follow-up request re-sends the turn with the model's reply and the tool results
appended after the newest user message:

    messages.append({"role": "user", "content": f"<context>{docs}</context>\\n{question}"})
    response = client.chat.completions.create(model=m, messages=messages, tools=tools)
    messages.append(response.choices[0].message)                        # the reply
    messages.extend(run_tools(response.choices[0].message.tool_calls))  # tool results
    client.chat.completions.create(model=m, messages=messages, tools=tools)

Everything from the reply on is new in this turn (the reply is the model's answer to this very
request), so the user message before it is still the newest user message: the end of the prefix
a later request shares, and the next turn appends after it.

A message is the model's reply when its value reads a response's message (OpenAI's and
LiteLLM's `response.choices[0].message`, also `.to_dict()` / `.model_dump()` of it or
`response["choices"][0]["message"]`; Gemini's `response.candidates[0].content`; Bedrock
Converse's `response["output"]["message"]`), or is the value of a request this module sends (a
send site already recorded: `{"role": "assistant", "content": response.content}` after `response
= client.messages.create(...)`, `ai_msg = llm.invoke(messages)`), or, as an assistant message,
carries tool calls that are not written in the code (`{"role": "assistant", "tool_calls":
msg.tool_calls}`). A user message made of tool results (Anthropic's `tool_result` blocks) is no
newest user message: it is the turn's own.
"""
from __future__ import annotations

import re

from ..model import Part, Span
from .flow.values import Mapping, Seq, Text, Value, is_none

#: A response's message read by subscripts and attributes (then a conversion: `.to_dict()`).
_RESPONSE_MESSAGE = re.compile(
    r"""\.choices\s*\[\s*-?\d+\s*\]\s*\.\s*message\b"""            # OpenAI chat, LiteLLM, compatible clients
    r"""|\[\s*["']choices["']\s*\]\s*\[\s*-?\d+\s*\]\s*\[\s*["']message["']\s*\]"""  # the same as a dict
    r"""|\.candidates\s*\[\s*-?\d+\s*\]\s*\.\s*content\b"""        # Gemini
    r"""|\[\s*["']output["']\s*\]\s*\[\s*["']message["']\s*\]""")  # Bedrock Converse
#: An expression that only reads: names, attributes, subscripts, calls without nested calls.
_CHAIN = re.compile(r"""[A-Za-z_][\w]*(\s*(\.\s*\w+|\[[^\[\]]*\]|\([^()]*\)))*""")
_ARGUMENTS = re.compile(r"""\([^()]*\)""")

_TOOL_CALL_KEYS = ("tool_calls", "function_call")
_RESULT_TYPES = ("tool_result", "function_response", "toolResult")


def _only_value(value: Value | None):
    """The one dynamic segment of a text value with no other text, else None."""
    if not isinstance(value, Text):
        return None
    dynamic = [s for s in value.segs if not s.is_static]
    if len(dynamic) != 1 or any(s.is_static and s.text.strip() for s in value.segs):
        return None
    return dynamic[0]


def reads_reply(value: Value | None, sent: list[Span]) -> bool:
    """True when `value` is a response's message (`response.choices[0].message.to_dict()`) or
    the value of a request sent at one of `sent` (the spans of send sites recorded so far)."""
    seg = _only_value(value)
    if seg is None or not seg.expr:
        return False
    if seg.origin is not None and seg.origin in sent:
        return True
    expr = seg.expr.strip()
    # (read outside the arguments of a call: `run(response.choices[0].message.tool_calls)` is not it)
    return bool(_CHAIN.fullmatch(expr) and _RESPONSE_MESSAGE.search(_ARGUMENTS.sub("()", expr)))


def is_reply(item: Value, role: str | None, content: Value | None, sent: list[Span]) -> bool:
    """True when the message `item` (its `role` and `content` as the layout reads them; role None
    for a message we cannot read) is the model's reply of this turn (module docstring)."""
    if role is None:
        return reads_reply(item, sent)
    if role != "assistant":
        return False
    if reads_reply(content, sent):
        return True
    calls = [item.items[k] for k in _TOOL_CALL_KEYS if isinstance(item, Mapping) and k in item.items]
    return any(not _written(c) and not is_none(c) for c in calls)


def _written(value: Value) -> bool:
    """True for tool calls written in the code (a dict, or a list display of dicts: an example
    exchange), not read from a response (`msg.tool_calls`, a list made from them in a loop)."""
    if isinstance(value, Mapping):
        return True
    return isinstance(value, Seq) and not value.repeated and all(isinstance(x, Mapping) for x in value.items)


def holds_tool_results(content: Value | None) -> bool:
    """True for a user message's content made of tool results (`[{"type": "tool_result", ...}]`,
    also a list of them grown in a loop)."""
    if not isinstance(content, Seq) or not content.items:
        return False
    for block in content.items:
        kind = block.items.get("type") if isinstance(block, Mapping) else None
        text = "".join(s.text for s in kind.segs if s.is_static) if isinstance(kind, Text) else ""
        if text not in _RESULT_TYPES:
            return False
    return True


def newest_before_reply(parts: list[Part], results: set[int]) -> int | None:
    """The index of the user part just before the first reply part (the newest user message of a
    turn the list continues: module docstring), or None; `results`: ids of user parts made of tool
    results, never the newest user message."""
    for i, part in enumerate(parts):
        if part.reply:
            before = parts[i - 1] if i else None
            if before is not None and before.role == "user" and id(before) not in results:
                return i - 1
            return None
    return None
