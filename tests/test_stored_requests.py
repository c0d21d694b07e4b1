"""PRM204 facts: a method of a class that re-sends the conversation the instance keeps with other
tools than another method sends it with (python/stored_requests.py)."""
import ast
import textwrap
from pathlib import Path

from promptlint import api
from promptlint.python.module import load
from promptlint.python.stored_requests import find_stored_requests

from analysis_support import write


def _found(src: str):
    return find_stored_requests(load(Path("m.py"), textwrap.dedent(src)))


OPENAI = """
    class Chat:
        async def generate(self, message):
            messages = []
            messages.extend(self.history.get())
            if self.instruction and len(messages) == 0:
                messages.append(SystemMessage(role="system", content=self.instruction))
            messages.append(user(message))
            available_tools = [spec(t) for t in await self.agent.list_tools()]
            arguments = {"model": self.model, "messages": messages, "tools": available_tools}
            await self.send(arguments)
            self.history.set(messages)

        async def generate_structured(self, message, model, options=None):
            messages = []
            if self.instruction:
                messages.append(SystemMessage(role="system", content=self.instruction))
            messages.extend(self.history.get())
            messages.append(user(message))
            payload = {"model": self.model, "messages": messages, "response_format": fmt(model)}
            payload.update(self.metadata)
            return await self.send(payload)
"""


def test_a_structured_request_without_tools_over_the_kept_conversation_is_found():
    found, = _found(OPENAI)
    assert (found.function, found.other_function, found.stored, found.written) == (
        "generate_structured", "generate", "history", False)
    assert isinstance(found.node, ast.Dict) and found.node.lineno == 20  # the request: no tools to point at
    assert ast.unparse(found.system_first) == "messages.append(SystemMessage(role='system', content=self.instruction))"
    assert found.system_first.lineno == 17 and found.read.lineno == 18 and ast.unparse(found.other) == "available_tools"


GEMINI = """
    class Chat:
        def generate(self, message):
            contents = list(self.history)
            contents.append(message)
            tools = [Tool(declare(t)) for t in self.agent.tools()]
            config = types.GenerateContentConfig(system_instruction=self.instruction, tools=tools)
            reply = self.client.models.generate_content(model=self.model, contents=contents, config=config)
            self.history.append(reply)

        def generate_structured(self, message, schema):
            config = types.GenerateContentConfig(system_instruction=self.instruction)
            config.response_schema = schema
            conversation = list(self.history)
            conversation.append(message)
            return self.client.models.generate_content(model=self.model, contents=conversation, config=config)
"""


def test_a_config_made_without_the_tools_the_conversation_is_sent_with_is_found():
    found, = _found(GEMINI)
    assert ast.unparse(found.node) == "types.GenerateContentConfig(system_instruction=self.instruction)"
    assert found.system_first is None and not found.written


def test_a_forced_answer_tool_written_in_place_is_found_and_reported_at_info(tmp_path):
    write(tmp_path, {"app.py": """
        from anthropic import Anthropic

        class Chat:
            def __init__(self):
                self.client = Anthropic()
                self.history = []

            def generate(self, message):
                messages = [*self.history, {"role": "user", "content": message}]
                tool_specs = [t.spec for t in self.registry.all()]
                reply = self.client.messages.create(model="m", max_tokens=9, messages=messages, tools=tool_specs)
                self.history += [messages[-1], {"role": "assistant", "content": reply.content}]

            def answer(self, message, schema):
                messages = [*self.history, {"role": "user", "content": message}]
                return self.client.messages.create(model="m", max_tokens=9, messages=messages,
                                                   tools=[{"name": "answer", "input_schema": schema}],
                                                   tool_choice={"type": "tool", "name": "answer"})
    """})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    found, = [d for d in report.diagnostics if d.code == "PRM204"]
    assert (found.severity.value, found.span.start.row) == ("info", 17)
    assert [r.span.start.row for r in found.related] == [15, 11, 18]  # read, the other tools, the forced tool


def test_same_tools_a_conversation_not_kept_a_one_shot_request_or_unknown_options_are_not():
    assert not _found("""
        class Same:
            def generate(self, message):
                messages = [*self.history.get(), message]
                tools = [spec(t) for t in self.tools]
                self.send(messages=messages, tools=tools)
                self.history.set(messages)

            def generate_structured(self, message):
                messages = [*self.history.get(), message]
                tools = [spec(t) for t in self.tools]
                return self.send(messages=messages, tools=tools, response_format=FMT)

        class NotKept:
            def generate(self, message):
                tools = [spec(t) for t in self.tools]
                return self.send(messages=[*self.examples, message], tools=tools)

            def structured(self, message):
                return self.send(messages=[*self.examples, message], response_format=FMT)

        class OneShot:
            def generate(self, message):
                messages = [*self.history.get(), message]
                tools = [spec(t) for t in self.tools]
                self.send(messages=messages, tools=tools)
                self.history.set(messages)

            def classify(self, message):
                return self.send(messages=[{"role": "user", "content": message}], response_format=FMT)

        class Options:
            def generate(self, message):
                messages = [*self.history.get(), message]
                tools = [spec(t) for t in self.tools]
                self.send(messages=messages, tools=tools)
                self.history.set(messages)

            def structured(self, message, **kwargs):
                messages = [*self.history.get(), message]
                return self.send(messages=messages, response_format=FMT, **kwargs)
    """)
