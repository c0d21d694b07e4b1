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

    from .types import ChatMessage, Completion, LiveServerMessage


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


    def new_id() -> str:
        return uuid.uuid4().hex


    def events_of(message: LiveServerMessage) -> list[dict]:   # a response turned into events: made once
        return [{"type": "tool_call", "id": message.call_id or new_id()}]
"""


def test_ids_stored_on_the_message_or_made_with_a_new_message_are_not_read():
    assert _found(MADE_ONCE) == []


LOOKUP_KEYS = """
    import random
    import uuid

    from .types import QueueMessage


    class Queue:
        def select_consumer(self, message: QueueMessage):
            consumer_id = random.choice(list(self.consumers[message.type].keys()))
            return self.consumers[message.type][consumer_id]     # the key picks an item: no new id in it

        def route(self, message):
            return self.routes[random.choice(self.names)]

        def tag(self, message):
            tag = random.choice(self.tags)
            return {"content": message.text, "tag": tag}          # the draw is in the result
"""


def test_a_random_key_that_only_looks_up_what_is_returned_is_not_a_new_id():
    assert _found(LOOKUP_KEYS) == [(16, "tag", "message")]


def test_the_rule_reports_the_id_at_info_where_it_is_made(tmp_path):
    write(tmp_path, {"app.py": CONVERTERS, "types.py": "class NoteMessage: ...\nclass Turn: ...\n"})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row, d.span.start.column) for d in report.diagnostics
            if d.code == "PRM103"] == [("PRM103", "info", 14, 73), ("PRM103", "info", 21, 27)]


def test_the_prefilter_lets_a_file_that_converts_messages_with_new_ids_be_analysed():
    from promptlint.python.prefilter import might_hold_prompt
    assert might_hold_prompt(code(CONVERTERS))
    assert not might_hold_prompt("import uuid\n\ndef new_row(table):\n    return {'id': uuid.uuid4()}\n")


DISPATCHED = {
    "pkg/__init__.py": "",
    "pkg/ids.py": """
        from uuid import uuid4


        def new_call_id() -> str:
            return uuid4().hex[-9:]


        class ToolCall:
            def __init__(self, name):
                self.name = name
                self.call_id = new_call_id()     # made once per object: stable when re-sent
        """,
    "pkg/adapter.py": """
        from functools import singledispatch
        from typing import Any

        import openai

        from pkg.ids import ToolCall, new_call_id
        from pkg.types import AssistantMessage, Message, UserMessage


        @singledispatch
        def to_openai(message: Message[Any]) -> dict:
            raise NotImplementedError(type(message))


        @to_openai.register(UserMessage)
        def _(message: UserMessage[Any]) -> dict:
            return {"role": "user", "content": message.content}


        @to_openai.register(AssistantMessage)
        def _(message: AssistantMessage[Any]) -> dict:
            if isinstance(message.content, ToolCall):
                return {"role": "assistant", "tool_calls": [{"id": message.content.call_id}]}
            return {"role": "assistant", "tool_calls": [{"id": new_call_id(), "function": repr(message.content)}]}


        @singledispatch
        async def ato_openai(message: Message[Any]) -> dict:
            return to_openai(message)


        class Model:
            def __init__(self):
                self.client = openai.AsyncOpenAI()

            async def complete(self, messages):
                return await self.client.chat.completions.create(
                    model="gpt-4.1", messages=[await ato_openai(m) for m in messages])
        """,
    "pkg/types.py": "class Message: ...\nclass UserMessage(Message): ...\nclass AssistantMessage(Message): ...\n",
}


def test_an_id_helper_of_the_package_in_a_dispatched_converter_whose_conversion_is_sent_is_a_warning(tmp_path):
    # the helper is imported from another module; the converter is registered with singledispatch
    # and annotated `AssistantMessage[Any]`; the request converts `messages` through the async
    # dispatcher that hands each message on to it
    write(tmp_path, DISPATCHED)
    report = api.check([tmp_path / "pkg"], api.Settings(), jobs=1)
    found = [(Path(d.span.filename).name, d.severity.value, d.span.start.row, d.span.start.column, [r.span.start.row for r in d.related])
             for d in report.diagnostics if d.code == "PRM103"]
    assert found == [("adapter.py", "warning", 24, 56, [38])]
    d = next(d for d in report.diagnostics if d.code == "PRM103")
    assert "each time `to_openai` converts a message (`message`)" in d.message
    assert "`[await ato_openai(m) for m in messages]`" in d.message


def test_a_dispatched_converter_without_a_send_of_the_conversation_is_info_and_a_stored_id_is_clean(tmp_path):
    files = dict(DISPATCHED)
    files["pkg/adapter.py"] = DISPATCHED["pkg/adapter.py"].replace(
        "messages=[await ato_openai(m) for m in messages])", "messages=messages)\n\n"
        "            async def convert(self, messages):\n                return [await ato_openai(m) for m in messages]")
    write(tmp_path, files)
    report = api.check([tmp_path / "pkg"], api.Settings(), jobs=1)
    assert [(d.severity.value, d.span.start.row) for d in report.diagnostics if d.code == "PRM103"] == [("info", 24)]
    stored = dict(DISPATCHED)
    stored["pkg/adapter.py"] = DISPATCHED["pkg/adapter.py"].replace('"id": new_call_id(), ', "")
    write(tmp_path, stored)
    report = api.check([tmp_path / "pkg"], api.Settings(), jobs=1)
    assert [d for d in report.diagnostics if d.code == "PRM103"] == []


STAMPED = """
    from datetime import datetime

    from anthropic import Anthropic

    from .types import ChatMessage

    client = Anthropic()


    def to_anthropic(msg: ChatMessage) -> dict:
        return {"role": msg.role, "content": f"[{datetime.now():%H:%M}] {msg.text}"}


    def to_stored(msg: ChatMessage) -> dict:
        return {"role": msg.role, "content": msg.text, "saved_at": datetime.now().isoformat()}


    def reply(history: list[ChatMessage]):
        return client.messages.create(model="claude-sonnet-4-5", max_tokens=512, system="Be brief.",
                                      messages=[to_anthropic(m) for m in history])
"""


def _stamps(tmp_path, source):
    write(tmp_path, {"app.py": source, "types.py": "class ChatMessage: ...\n"})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
            for d in report.diagnostics if d.code == "PRM102"]


def test_a_clock_read_by_a_converter_of_the_sent_history_is_a_warning_where_it_is_read(tmp_path):
    # `to_stored` reads the clock too, but what it returns is not sent (the time a message is stored)
    assert _stamps(tmp_path, STAMPED) == [("PRM102", "warning", 11, [20])]


def test_a_date_is_info_and_a_converter_whose_result_is_not_sent_is_clean(tmp_path):
    assert _stamps(tmp_path / "a", STAMPED.replace("%H:%M", "%Y-%m-%d")) == [("PRM102", "info", 11, [20])]
    assert _stamps(tmp_path / "b", STAMPED.replace("[to_anthropic(m) for m in history]", "history")) == []


TURN_HANDLER = """
    from uuid import uuid1

    import openai


    class Chat:
        def complete(self, history):
            return openai.ChatCompletion.create(model="gpt-4o", messages=history)

        def send_new_message(self, message):
            history = [{"role": "user", "content": message}]
            reply = self.complete(history)
            conversation_id = str(uuid1())
            return reply, conversation_id

        def to_api(self, message):
            return {"role": "user", "content": message.text, "id": str(uuid1())}
"""


def test_a_function_that_sends_the_request_itself_handles_a_turn_and_is_not_a_message_converter(tmp_path):
    # `send_new_message` takes the newest message's text, sends it (through `complete`, which holds
    # the send) and returns a new conversation id with the reply: called once per turn, its id is no
    # message's; `to_api` sends nothing and returns its message with a new id on every conversion
    write(tmp_path, {"app.py": TURN_HANDLER})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    assert [(d.code, d.span.start.row, d.message.split("each time `")[1].split("`")[0]) for d in report.diagnostics
            if d.code == "PRM103"] == [("PRM103", 17, "to_api")]
