"""PRM105 facts: system messages of anywhere in a conversation moved into the Responses API's
instructions, or to the head of the list a converter builds (python/system_hoists.py; the
second's fixture is fixtures/system_moves/converters.py)."""
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


FRONT = Path(__file__).resolve().parent.parent / "fixtures" / "system_moves" / "converters.py"


def test_system_messages_moved_to_the_head_of_the_converted_list_are_found():
    from promptlint.python.system_hoists import find_front_moves
    module = load(FRONT, FRONT.read_text(encoding="utf-8"))
    # `to_endpoint` (`out.insert(0, ...)` in the SystemMessage branch, the others appended),
    # `system_first` (the system part joined before the rest); not `keeps_order`,
    # `one_system_prompt` (its own prompt at index 0, after the walk), `leading_only` (stops),
    # `system_field` (a field of its own), `one_shot` (no conversation walked)
    assert [(n.lineno, f, how) for n, f, how in find_front_moves(module)] == [
        (13, "to_endpoint", "front"), (20, "system_first", "partition")]


def test_the_rule_reports_the_move_once_at_info_not_as_a_head_message_put_on_some_calls():
    from promptlint import api
    report = api.check([FRONT], api.Settings(), jobs=1)
    found = sorted((d.code, d.severity.value, d.span.start.row) for d in report.diagnostics)
    assert found == [("PRM105", "info", 13), ("PRM105", "info", 20)]


def test_the_text_test_needs_a_system_word_and_a_head_put_or_a_filter():
    from promptlint.python.system_hoists import might_move
    assert might_move("out.insert(0, m)  # SystemMessage")
    assert might_move('[m for m in ms if m["role"] != "system"]')
    assert not might_move("out.insert(0, m)")
    assert not might_move('[m for m in ms if m["role"] == "user"]')  # no system test
