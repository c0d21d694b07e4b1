"""PRM105: a conversation window kept by an agent library's memory or context class that the module
only configures (python/library_windows.py states where, with what limit, how the conversation
goes through it and whether it outlives one call; rules/_library_windows.py judges). The fixtures
are fixtures/library_windows/*.py."""
from __future__ import annotations

from pathlib import Path

import pytest

from promptlint.python.library_windows import library_windows, might_configure
from promptlint.python.module import load

from analysis_support import code, fixture_findings

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "library_windows"


def _facts(source: str):
    module = load(Path("app.py"), code(source))
    return [(c.at.lineno, c.window.name, c.limit, c.unit, c.context, c.off, c.steps, c.use_how,
             c.use.lineno if c.use is not None else None, c.kept) for c in library_windows(module)]


def _found(name: str, tmp_path):
    return [(d.code, d.severity.value, d.span.start.row, d.span.start.column)
            for d in fixture_findings(FIXTURES, name, tmp_path)]


LLAMA = """
    from llama_index.core.agent import ReActAgentWorker
    from llama_index.core.memory import ChatMemoryBuffer, ChatSummaryMemoryBuffer, Memory

    TOKENS = 2 * 1024


    class Service:
        def __init__(self, index, llm, tools, stored):
            self.memory = ChatMemoryBuffer.from_defaults(token_limit=TOKENS)
            self.engine = index.as_chat_engine(memory=self.memory)
            self.sized = index.as_chat_engine(memory=ChatMemoryBuffer.from_defaults(llm=llm))
            self.flushed = index.as_chat_engine(memory=Memory.from_defaults(token_limit=3000))
            self.summary = index.as_chat_engine(memory=ChatSummaryMemoryBuffer.from_defaults(None, llm, token_limit=900))
            self.agent = ReActAgentWorker.from_tools(tools, llm=llm).as_agent()
            self.given = ReActAgentWorker.from_tools(tools, llm=llm).as_agent(memory=self.memory)


    def once(index, question):
        engine = index.as_chat_engine(memory=ChatMemoryBuffer.from_defaults(token_limit=1500))
        return engine.chat(question)


    def restored(index, stored, question):
        engine = index.as_chat_engine(memory=ChatMemoryBuffer.from_defaults(chat_store=stored, token_limit=1500))
        return engine.chat(question)


    def configured_only():
        memory = ChatMemoryBuffer.from_defaults(token_limit=1500)
        return "ok"
"""


def test_llama_index_windows_are_stated_with_their_limit_use_and_whether_they_outlive_a_call():
    assert _facts(LLAMA) == [
        (9, "ChatMemoryBuffer", 2048, "tokens", False, False, "", "handed", 10, "the window is kept on the instance"),
        (11, "ChatMemoryBuffer", 3000, "tokens", True, False, "", "handed", 11,
         "what takes it is kept on the instance"),
        (12, "Memory", 3000, "tokens", False, False, "", "handed", 12, "what takes it is kept on the instance"),
        (13, "ChatSummaryMemoryBuffer", 900, "tokens", False, False, "", "handed", 13,
         "what takes it is kept on the instance"),
        (14, "ChatMemoryBuffer", 3000, "tokens", False, False, "", "agent", 14, "the agent is kept on the instance"),
        (19, "ChatMemoryBuffer", 1500, "tokens", False, False, "", "handed", 19, ""),  # one call only
        (24, "ChatMemoryBuffer", 1500, "tokens", False, False, "", "handed", 24,
         "it is loaded with a conversation kept elsewhere (`chat_store=`)"),
        (29, "ChatMemoryBuffer", 1500, "tokens", False, False, "", "", None, ""),  # nothing uses it
    ]


OTHERS = """
    from autogen_core.model_context import BufferedChatCompletionContext, TokenLimitedChatCompletionContext
    from langchain.memory import ConversationBufferWindowMemory, ConversationTokenBufferMemory
    from langchain_core.messages import trim_messages
    from semantic_kernel.contents import ChatHistoryTruncationReducer


    class Bot:
        def __init__(self, client, llm, margin):
            self.ctx = BufferedChatCompletionContext(8)
            self.fit = TokenLimitedChatCompletionContext(client)
            self.window = ConversationBufferWindowMemory()
            self.tokens = ConversationTokenBufferMemory(llm=llm, max_token_limit=self.limit)
            self.first = trim_messages(max_tokens=30, strategy="first", token_counter=len)
            self.reducer = ChatHistoryTruncationReducer(target_count=10, threshold_count=margin)
            self.auto = ChatHistoryTruncationReducer(target_count=10, auto_reduce=True)

        async def turn(self, message):
            await self.ctx.add_message(message)
            await self.auto.add_message_async(message)
            await self.reducer.reduce()
            self.first.invoke([message])
            return (await self.ctx.get_messages(), await self.fit.get_messages(),
                    self.window.load_memory_variables({}), self.tokens.buffer)
"""


def test_other_libraries_state_units_defaults_cut_settings_and_reads():
    assert _facts(OTHERS) == [
        (9, "BufferedChatCompletionContext", 8, "messages", False, False, "", "read", 22,
         "the window is kept on the instance"),
        (10, "TokenLimitedChatCompletionContext", None, "tokens", True, False, "", "read", 22,
         "the window is kept on the instance"),  # no limit: the model's remaining context
        (11, "ConversationBufferWindowMemory", 5, "turns", False, False, "", "read", 23,
         "the window is kept on the instance"),  # k = 5 by default
        (12, "ConversationTokenBufferMemory", None, "tokens", False, False, "", "read", 23,
         "the window is kept on the instance"),  # a limit that is no constant
        (13, "trim_messages", 30, "messages", False, True, "", "read", 21, "the window is kept on the instance"),
        (14, "ChatHistoryTruncationReducer", 10, "messages", False, False, "unknown", "read", 20,
         "the window is kept on the instance"),
        (15, "ChatHistoryTruncationReducer", 10, "messages", False, False, "", "read", 19,
         "the window is kept on the instance"),  # auto_reduce: adding applies it
    ]


def test_a_trim_of_a_list_or_an_unknown_class_of_the_same_name_configures_nothing():
    assert _facts("""
        from langchain_core.messages import trim_messages
        from mylib.memory import ConversationBufferWindowMemory

        memory = ConversationBufferWindowMemory(k=2)
        kept = trim_messages(history, max_tokens=300, token_counter=len)
        also = ChatMemoryBuffer.from_defaults(token_limit=100)
    """) == []


def test_the_prefilter_and_the_gate_let_a_file_with_a_library_window_be_analysed():
    from promptlint.python.prefilter import might_hold_prompt
    source = "from langchain.memory import ConversationBufferWindowMemory\nmemory = ConversationBufferWindowMemory(k=3)\n"
    assert might_hold_prompt(source) and might_configure(source)
    assert not might_configure("from llama_index.core.memory import Memory\n")  # cuts in steps only


@pytest.mark.parametrize("name, expected", [
    ("llama_chat.py", [("PRM105", "warning", 10, 23), ("PRM105", "warning", 12, 72), ("PRM105", "info", 13, 72),
                       ("PRM105", "warning", 23, 21)]),
    ("langchain_chains.py", [("PRM105", "warning", 9, 49), ("PRM105", "warning", 15, 23)]),
    ("autogen_contexts.py", [("PRM105", "warning", 13, 46), ("PRM105", "info", 15, 44), ("PRM105", "warning", 32, 25),
                             ("PRM105", "info", 33, 24)]),
    ("sk_trimmers.py", [("PRM105", "warning", 6, 11), ("PRM105", "warning", 7, 10), ("PRM105", "warning", 22, 24)]),
    ("clean.py", []),
    ("context_windows.py", [("PRM105", "info", 9, 22), ("PRM105", "info", 15, 14)]),
])
def test_the_rule_reports_each_window_sent_across_calls_where_it_is_configured(name, expected, tmp_path):
    assert _found(name, tmp_path) == expected


def test_the_message_says_the_class_its_limit_and_how_the_conversation_goes_through_it(tmp_path):
    first, agent, sized, restored = fixture_findings(FIXTURES, "llama_chat.py", tmp_path)
    assert first.message.startswith("`ChatMemoryBuffer` (LlamaIndex) keeps only the newest messages whose tokens fit "
                                    "`token_limit`, here 3,000 tokens: once the conversation is longer, every turn "
                                    "drops its oldest message")
    assert [(r.span.start.row, r.message) for r in first.related] == [
        (10, "the window's limit set here"), (11, "it is handed to what sends the conversation here")]
    assert agent.message.startswith("`as_agent()` makes a LlamaIndex `AgentRunner` with no `memory=` and no `llm=`, "
                                    "so it keeps its conversation in a default `ChatMemoryBuffer`")
    assert "here 3,000 tokens (the default)" in agent.message
    assert "(it is set as `runner.memory`: the object it is set on sends its conversation through it)" \
        in restored.message
    assert sized.message.startswith("`as_agent()` makes a LlamaIndex `AgentRunner` with no `memory=`, so it keeps its "
                                    "conversation in a default `ChatMemoryBuffer`")
    assert "here a share of the model's context window (no limit given)" in sized.message
    assert "it cuts only once a conversation nears the model's context window, and then on every turn" in sized.message


def test_a_window_sized_by_the_context_window_or_a_summary_rewritten_every_turn_is_info(tmp_path):
    sized, summary = fixture_findings(FIXTURES, "context_windows.py", tmp_path)
    assert "here a share of the model's context window (no limit given)" in sized.message
    assert "compact the conversation in steps (summarise its oldest half) before it nears the context window" \
        in sized.message
    assert summary.message.startswith("`ConversationSummaryMemory` (LangChain) keeps no messages: after every exchange "
                                      "it asks the model for a new summary of the whole conversation")
    assert "every turn it is rewritten, so nothing after the system prompt is read from the cache" in summary.message
    assert "what takes it is returned to the caller" in summary.message


def test_a_large_limit_or_one_handed_on_by_position_is_info(tmp_path):
    (tmp_path / "app.py").write_text(code("""
        from langchain.memory import ConversationBufferWindowMemory, ConversationTokenBufferMemory

        big = ConversationTokenBufferMemory(llm=None, max_token_limit=120_000)
        small = ConversationBufferWindowMemory(k=2)
        chain = make_chain(ConversationBufferWindowMemory(k=6))
        agent = make_agent(memory=big)
        other = make_agent(memory=small)
    """))
    from promptlint import api
    found = api.check([tmp_path / "app.py"], api.Settings(), jobs=1).diagnostics
    assert [(d.severity.value, d.span.start.row) for d in found] == [("info", 3), ("info", 4), ("info", 5)]
    assert "only long conversations reach a window this large" in found[0].message
    assert "a window this small holds little" in found[1].message
    assert "what it is handed to is not known to send it as the conversation" in found[2].message


def test_what_takes_the_window_kept_on_another_object_keeps_the_conversation_an_empty_history_loads_none():
    assert _facts("""
        import streamlit as st
        from llama_index.core.memory import ChatMemoryBuffer


        def start(index):
            memory = ChatMemoryBuffer.from_defaults(token_limit=3900)
            st.session_state["engine"] = index.as_chat_engine(memory=memory)


        def fresh(index, question):
            engine = index.as_chat_engine(memory=ChatMemoryBuffer.from_defaults(chat_history=[], token_limit=3900))
            return engine.chat(question)
    """) == [
        (6, "ChatMemoryBuffer", 3900, "tokens", False, False, "", "handed", 7,
         "what takes it is kept as `st.session_state`"),
        (11, "ChatMemoryBuffer", 3900, "tokens", False, False, "", "handed", 11, ""),
    ]


def test_what_takes_the_window_named_first_then_returned_or_kept_keeps_the_conversation():
    assert _facts("""
        from langchain.chains import LLMChain
        from langchain.memory import ConversationBufferWindowMemory


        def create_chatbot(llm, prompt):
            chain = LLMChain(llm=llm, prompt=prompt, memory=ConversationBufferWindowMemory(k=2))
            return chain


        class Bot:
            def __init__(self, llm, prompt):
                chain = LLMChain(llm=llm, prompt=prompt, memory=ConversationBufferWindowMemory(k=3))
                self.chain = chain

            def once(self, llm, prompt, question):
                chain = LLMChain(llm=llm, prompt=prompt, memory=ConversationBufferWindowMemory(k=4))
                return chain.predict(question=question)
    """) == [
        (6, "ConversationBufferWindowMemory", 2, "turns", False, False, "", "handed", 6,
         "what takes it is returned to the caller"),
        (12, "ConversationBufferWindowMemory", 3, "turns", False, False, "", "handed", 12,
         "what takes it is kept on the instance"),
        (16, "ConversationBufferWindowMemory", 4, "turns", False, False, "", "handed", 16, ""),
    ]


def test_a_model_given_as_none_leaves_the_default_limit_and_a_window_of_nothing_is_no_window(tmp_path):
    assert _facts("""
        from llama_index.core.memory import ChatMemoryBuffer

        memory = ChatMemoryBuffer.from_defaults(llm=None)
        engine = make_engine(memory=memory)
    """) == [(3, "ChatMemoryBuffer", 3000, "tokens", False, False, "", "handed", 4, "the window is kept at module level")]
    (tmp_path / "app.py").write_text(code("""
        from langchain.chains import ConversationChain
        from langchain.memory import ConversationBufferWindowMemory

        chat = ConversationChain(llm=None, memory=ConversationBufferWindowMemory(k=0))
    """))
    from promptlint import api
    assert api.check([tmp_path / "app.py"], api.Settings(), jobs=1).diagnostics == []
