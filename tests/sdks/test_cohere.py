"""promptlint/python/sdks/cohere.py: `ClientV2(...).chat(...)` / `chat_stream(...)` (also the async
client); `.chat(` of objects that are not Cohere clients, and other Cohere endpoints."""
from __future__ import annotations

from analysis_support import code, layouts, parts, pos, sent

from promptlint.python.prefilter import might_hold_prompt

COHERE = """
    import cohere

    co = cohere.ClientV2()
    PREAMBLE = "You are a legal research assistant."


    def research(question, history):
        return co.chat(
            model="command-r-plus-08-2024",
            tools=[{"type": "function", "function": {"name": "search_cases", "parameters": {}}}],
            messages=[{"role": "system", "content": PREAMBLE}, *history, {"role": "user", "content": question}],
        )


    async def stream(question):
        aco = cohere.AsyncClientV2()
        return aco.chat_stream(model="command-a-03-2025", messages=[{"role": "user", "content": question}])
"""


def test_chat_tools_system_history_and_newest_message(tmp_path):
    assert might_hold_prompt(code(COHERE))  # `import cohere` and `.chat(`: generic names pass with the import
    chat, _ = sent(layouts(tmp_path, COHERE))
    assert (chat.provider, chat.api, chat.model) == ("cohere", "chat", "command-r-plus-08-2024")
    assert parts(chat) == [
        ("tools", [("text", '[{"type": "function", "function": {"name": "search_cases", "parameters": {}}}]')]),
        ("system", [("text", "You are a legal research assistant.")]),
        ("history", [("history", "unknown", "history")]),
        ("user", [("user-input", "per-request", "question")]),
    ]
    assert chat.newest_user == 3
    assert chat.parts[1].segments[0].span.start == pos(COHERE, "You are a legal")
    assert chat.site.start == pos(COHERE, "co.chat(")


def test_chat_stream_on_the_async_client(tmp_path):
    _, stream = sent(layouts(tmp_path, COHERE))
    assert (stream.provider, stream.api, stream.model) == ("cohere", "chat_stream", "command-a-03-2025")
    assert parts(stream) == [("user", [("user-input", "per-request", "question")])]
    assert stream.newest_user == 0


NOT_COHERE = """
    import cohere

    co = cohere.ClientV2()


    class Bot:
        def chat(self, messages):
            return messages


    def other(bot: Bot, session, question):
        bot.chat(messages=[{"role": "user", "content": question}])
        session.chat(messages=[{"role": "user", "content": question}])
        co.embed(texts=[question], model="embed-english-v3.0", input_type="search_query")
        co.rerank(query=question, documents=[], model="rerank-v3.5")
"""


def test_chat_of_other_objects_is_not_a_cohere_prompt(tmp_path):
    assert sent(layouts(tmp_path, NOT_COHERE)) == []
    # without the import, a `.chat(` call alone does not make a file worth parsing
    assert not might_hold_prompt("from bots import Bot\n\nBot().chat(messages=[])\n")
