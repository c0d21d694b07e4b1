"""Calls made through a relay (flow/relays.py): `functools.partial`, `asyncio.to_thread`,
`loop.run_in_executor`, `executor.submit` call the function they are given with the other
arguments: an SDK method given to one is a send call; a function of the tree given to one takes
the relay's arguments as a call site."""
from __future__ import annotations

from analysis_support import layouts, one_call, parts, sent


def test_a_partial_of_an_sdk_method_is_a_send_call(tmp_path):
    lt = one_call(tmp_path, """
        import asyncio
        import functools

        import anthropic


        async def send(history, question):
            client = anthropic.Anthropic()
            payload = {"model": "claude-sonnet-4-5", "system": "You are a code reviewer.",
                       "messages": [*history, {"role": "user", "content": question}]}
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(None, functools.partial(client.messages.create, **payload))
    """)
    assert [p.role for p in lt.parts] == ["system", "history", "user"] and lt.api == "messages.create"
    assert lt.site.start.row == 12  # where the partial is written


def test_bedrock_converse_on_a_thread(tmp_path):
    lt = one_call(tmp_path, """
        import asyncio

        import boto3


        async def converse(messages):
            client = boto3.client("bedrock-runtime")
            kwargs = {"modelId": "anthropic.claude-3-5-sonnet", "system": [{"text": "Answer briefly."}],
                      "messages": messages}
            return await asyncio.to_thread(client.converse, **kwargs)
    """)
    assert [p.role for p in lt.parts] == ["system", "history"] and lt.provider == "bedrock"


def test_a_relay_of_something_else_is_no_send_call(tmp_path):
    found = layouts(tmp_path, """
        import asyncio
        import functools


        async def save(store, record):
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(None, functools.partial(store.create, name=record))
            return await asyncio.to_thread(print, record)
    """)
    assert sent(found) == []


def test_a_function_given_to_a_relay_takes_its_arguments(tmp_path):
    source = """
        import asyncio
        import functools
        from datetime import datetime

        import anthropic


        class Llm:
            def _send(self, payload):
                return anthropic.Anthropic().messages.create(**payload)

            async def ask(self, history, question):
                payload = {"model": "claude-sonnet-4-5",
                           "system": f"Now: {datetime.now()}. You are a careful assistant.",
                           "messages": [*history, {"role": "user", "content": question}]}
                loop = asyncio.get_running_loop()
                return await loop.run_in_executor(None, functools.partial(self._send, payload))
    """
    lt = one_call(tmp_path, source)
    (_, system), *_ = parts(lt)
    assert system == [("text", "Now: "), ("timestamp", "per-request", "datetime.now()"),
                      ("text", ". You are a careful assistant.")]
    # `asyncio.to_thread(fn, *args)`: the same
    threaded = one_call(tmp_path / "thread", source.replace(
        "loop.run_in_executor(None, functools.partial(self._send, payload))", "asyncio.to_thread(self._send, payload)"))
    assert parts(threaded)[0] == parts(lt)[0]
