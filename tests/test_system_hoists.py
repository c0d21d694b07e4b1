"""PRM105 facts: system messages of anywhere in a conversation moved into the Responses API's
instructions (python/system_hoists.py)."""
import ast
import textwrap
from pathlib import Path

from promptlint.python.module import load
from promptlint.python.system_hoists import find_system_hoists


def _hoists(src: str) -> list[tuple[str, str]]:
    module = load(Path("hoists.py"), textwrap.dedent(src))
    return [(ast.unparse(n), f) for n, f in find_system_hoists(module)]


def test_every_system_message_moved_into_instructions_is_found():
    assert _hoists("""
        def to_input(messages):
            parts, items = [], []
            for message in messages:
                role = message.get("role")
                if role == "system":
                    text = message["content"].strip()
                    if text:
                        instructions_parts.append(text)
                    continue
                items.append(message)

        def last_wins(prompt):
            instructions = None
            for msg in prompt.messages:
                if msg.role == "system":
                    instructions = msg.text
                else:
                    items.append(msg)
    """) == [("instructions_parts.append(text)", "to_input"), ("instructions = msg.text", "last_wins")]


def test_leading_system_messages_or_a_system_field_of_another_api_are_not():
    assert _hoists("""
        def leading(messages):
            for m in messages:
                if m["role"] == "system":
                    instructions.append(m["content"])
                    continue
                break

        def anthropic(messages):
            for m in messages:
                if m["role"] == "system":
                    system_instruction = m["content"]
                    continue
                rest.append(m)

        def kept(messages):
            for m in messages:
                if m["role"] == "system":
                    instructions.append(m["content"])
                rest.append(m)
    """) == []
