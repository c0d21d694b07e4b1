"""promptlint/python/sdks/mistral.py: `client.chat.complete` / `chat.stream` and their `_async`
forms (OpenAI's chat shape); Mistral calls that send no chat prompt."""
from __future__ import annotations

from analysis_support import code, layouts, parts, pos, sent

from promptlint.python.prefilter import might_hold_prompt

MISTRAL = """
    import os

    from mistralai import Mistral

    client = Mistral(api_key=os.environ["MISTRAL_API_KEY"])
    TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]


    def ask(question, history):
        a = client.chat.complete(
            model="mistral-large-latest",
            tools=TOOLS,
            messages=[{"role": "system", "content": "You are a weather bot."}, *history,
                      {"role": "user", "content": question}],
        )
        b = client.chat.stream(model="codestral-latest", messages=[{"role": "user", "content": question}])
        return a, b


    async def ask_async(question):
        return await client.chat.complete_async(model="open-mistral-nemo", messages=[{"role": "user", "content": question}])
"""


def test_chat_complete_tools_system_history_and_newest_message(tmp_path):
    assert might_hold_prompt(code(MISTRAL))
    a = sent(layouts(tmp_path, MISTRAL))[0]
    assert (a.provider, a.api, a.model) == ("mistral", "chat.complete", "mistral-large-latest")
    assert parts(a) == [
        ("tools", [("text", '[{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]')]),
        ("system", [("text", "You are a weather bot.")]),
        ("history", [("history", "unknown", "history")]),
        ("user", [("user-input", "per-request", "question")]),
    ]
    assert a.newest_user == 3
    assert a.parts[3].segments[0].span.start == pos(MISTRAL, "question}")
    assert a.site.start == pos(MISTRAL, "client.chat.complete(")


def test_stream_and_async_forms(tmp_path):
    _, b, c = sent(layouts(tmp_path, MISTRAL))
    assert (b.provider, b.api, b.model) == ("mistral", "chat.stream", "codestral-latest")
    assert (c.provider, c.api, c.model) == ("mistral", "chat.complete_async", "open-mistral-nemo")
    for layout in (b, c):
        assert parts(layout) == [("user", [("user-input", "per-request", "question")])]
        assert layout.newest_user == 0


def test_look_alikes_are_not_mistral_chat_prompts(tmp_path):
    found = layouts(tmp_path, """
        from mistralai import Mistral

        client = Mistral()


        def other(question, doc, chat):
            client.fim.complete(model="codestral-latest", prompt=question, suffix="")  # fill-in-the-middle
            client.chat.complete(model="mistral-small-latest")  # no messages
            client.embeddings.create(model="mistral-embed", inputs=[doc])
            client.agents.complete(agent_id="ag-1", messages=[{"role": "user", "content": question}])
            chat.completed(messages=[{"role": "user", "content": question}])
    """)
    assert sent(found) == []
