"""promptlint/python/sdks/llama_index_llms.py: LlamaIndex's LLMs called directly (`llm.chat(messages)`,
`llm.complete(prompt)`, `llm.predict(template, **kwargs)`), a model annotated as `LLM`, `Settings.llm`;
calls of the same names that are no LlamaIndex LLM's."""
from __future__ import annotations

from analysis_support import code, layouts, parts, pos, sent

from promptlint.python.prefilter import might_hold_prompt

CHAT = """
    from llama_index.core.llms import ChatMessage, MessageRole
    from llama_index.llms.openai import OpenAI

    SYSTEM = "You are the support desk assistant."


    def answer(history, question):
        messages = [ChatMessage(role=MessageRole.SYSTEM, content=SYSTEM)]
        messages += history
        messages.append(ChatMessage(role=MessageRole.ASSISTANT, content="Let me check."))
        messages.append(ChatMessage(role="user", content=question))
        return OpenAI(model="gpt-4o").chat(messages)


    async def answer_async(question):
        llm = OpenAI(model="gpt-4o-mini")
        return await llm.achat([ChatMessage(role=MessageRole.USER, content=question)])
"""


def test_chat_sends_its_messages_with_their_roles(tmp_path):
    assert might_hold_prompt(code(CHAT))
    a, b = sent(layouts(tmp_path, CHAT))
    assert (a.provider, a.api, a.model) == ("openai", "llama_index.chat", "gpt-4o")
    # (the role enum's member gives the role: not the module constant that shares its name, `SYSTEM`)
    assert parts(a) == [
        ("system", [("text", "You are the support desk assistant.")]),
        ("history", [("history", "unknown", "history")]),
        ("assistant", [("text", "Let me check.")]),
        ("user", [("user-input", "per-request", "question")]),
    ]
    assert a.newest_user == 3
    assert a.site.start == pos(CHAT, "OpenAI(model=\"gpt-4o\").chat(")
    assert (b.provider, b.api, b.model) == ("openai", "llama_index.chat", "gpt-4o-mini")
    assert parts(b) == [("user", [("user-input", "per-request", "question")])]


COMPLETE = """
    import time

    from llama_index.core import PromptTemplate, Settings
    from llama_index.core.llms import LLM
    from llama_index.llms.anthropic import Anthropic

    GUIDE = "Follow the house style guide."
    QA = PromptTemplate("Request: {rid}\\n" + GUIDE + "\\nQuestion: {question}")


    def ask(llm: LLM, question):
        return llm.complete(f"Time: {time.time()}\\n{GUIDE}\\n{question}")


    def ask_default(question):
        return Settings.llm.complete(GUIDE + question)


    def predict(question, rid):
        llm = Anthropic(model="claude-sonnet-4-5")
        return llm.predict(QA, rid=rid, question=question)
"""


def test_complete_sends_the_prompt_as_one_user_message(tmp_path):
    a, b, _ = sent(layouts(tmp_path, COMPLETE))
    assert (a.provider, a.api) == (None, "llama_index.complete")  # `llm: LLM`: the model is the caller's
    assert parts(a) == [("user", [("text", "Time: "), ("timestamp", "per-request", "time.time()"), ("text", "\n"),
                                  ("text", "Follow the house style guide."), ("text", "\n"),
                                  ("user-input", "per-request", "question")])]
    assert a.newest_user == 0
    assert (b.api, parts(b)) == ("llama_index.complete", [("user", [("text", "Follow the house style guide."),
                                                                    ("user-input", "per-request", "question")])])


def test_predict_fills_the_template_with_its_keyword_arguments(tmp_path):
    c = sent(layouts(tmp_path, COMPLETE))[2]
    assert (c.provider, c.api, c.model) == ("anthropic", "llama_index.predict", "claude-sonnet-4-5")
    # (`rid`, a parameter before the question, the request's known input: of unknown volatility, Policy 7)
    assert parts(c) == [("user", [("text", "Request: "), ("unknown", "unknown", "rid"), ("text", "\n"),
                                  ("text", "Follow the house style guide."), ("text", "\nQuestion: "),
                                  ("user-input", "per-request", "question")])]


def test_same_names_of_other_objects_are_not_llama_index_requests(tmp_path):
    found = layouts(tmp_path, """
        from llama_index.core import VectorStoreIndex
        from llama_index.core.llms import ChatMessage

        index = VectorStoreIndex.from_documents([])


        def run(question, engine, session):
            index.as_chat_engine().chat(question)     # a chat engine: its own prompts, not drawn here
            engine.complete(question)                 # an object we know nothing of
            session.chat([question])                  # a list of strings: no ChatMessage in it
            return index.as_query_engine().query(question)
    """)
    assert [lay.api for lay in sent(found)] == []
