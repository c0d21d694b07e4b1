"""PRM103 facts: a new id made for a message each time a converter turns it into a provider's
format for a request (the history converted again on every turn), and the converters and makers
of messages that make their ids once."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.converted_ids import find_fresh_ids
from promptlint.python.module import load

from analysis_support import code, write


def _found(source: str):
    module = load(Path("app.py"), code(source))
    return [(call.lineno, function, param) for call, function, param in find_fresh_ids(module)]


CONVERTERS = """
    import uuid
    from uuid import uuid4

    from .types import NoteMessage, Turn


    def turn_to_api(turn: Turn) -> dict:
        return {"role": turn.role, "content": turn.text}


    def note_to_items(msg: "NoteMessage") -> list[dict]:
        items = []
        for step in msg.steps:
            items.append({"type": "step", "id": step.meta.get("api_id", str(uuid.uuid4())), "text": step.text})
        items.append({"type": "message", "content": msg.text})
        return items


    class Adapter:
        def convert(self, message):
            call_id = f"call_{uuid4().hex[:8]}"
            block = {"type": "tool_use", "id": call_id, "name": message.name}
            return [block]
"""


def test_a_new_id_in_what_a_message_converter_returns_is_found_once_per_converter():
    # `turn_to_api` makes no id; the annotation of `note_to_items` is a message class; `convert`
    # takes a parameter named as a message and returns a block built with the new id
    assert _found(CONVERTERS) == [(14, "note_to_items", "msg"), (21, "convert", "message")]


MADE_ONCE = """
    import uuid

    from .types import ChatMessage, Completion


    def ensure_id(msg: ChatMessage) -> ChatMessage:
        msg.id = msg.id or str(uuid.uuid4())          # stored on the message: made once
        return msg


    def from_completion(completion: Completion) -> ChatMessage:
        return ChatMessage(id=str(uuid.uuid4()), text=completion.text)   # a message made once


    def to_api(msg: ChatMessage, request_id) -> dict:
        return {"content": msg.text, "id": msg.id}


    def log_message(msg: ChatMessage) -> None:
        trace = {"trace": str(uuid.uuid4())}
        print(trace, msg)
"""


def test_ids_stored_on_the_message_or_made_with_a_new_message_are_not_read():
    assert _found(MADE_ONCE) == []


def test_the_rule_reports_the_id_at_info_where_it_is_made(tmp_path):
    write(tmp_path, {"app.py": CONVERTERS, "types.py": "class NoteMessage: ...\nclass Turn: ...\n"})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row, d.span.start.column) for d in report.diagnostics
            if d.code == "PRM103"] == [("PRM103", "info", 14, 73), ("PRM103", "info", 21, 27)]


def test_the_prefilter_lets_a_file_that_converts_messages_with_new_ids_be_analysed():
    from promptlint.python.prefilter import might_hold_prompt
    assert might_hold_prompt(code(CONVERTERS))
    assert not might_hold_prompt("import uuid\n\ndef new_row(table):\n    return {'id': uuid.uuid4()}\n")
