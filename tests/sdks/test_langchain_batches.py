"""promptlint/python/sdks/langchain.py: LangChain's batch form (`generate([[messages...]])`,
`agenerate`, `batch` given message lists: one request per list) and `invoke` / `stream` of a
model whose class is not known, read as chat sends when the list is written as message objects,
a replayed list spread among them (`[*recent, HumanMessage(...)]`, `recent + [HumanMessage(...)]`)
being the conversation; the negative-start slices that cut it (`xs[-2 * self.k:]`)."""
from __future__ import annotations

from analysis_support import layouts, parts, pos, sent

NOTEBOOK = """
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage


    class CellHelper:
        def __init__(self, engines, depth=2):
            self.engines = engines
            self.log = []
            self.depth = depth

        def _keep(self, asked, said):
            self.log.append(HumanMessage(asked))
            self.log.append(AIMessage(said))

        def run(self, engine_name, asked):
            engine = self.engines[engine_name](temperature=0)
            recent = self.log[-2 * self.depth:] if self.depth else []
            if engine.chat_capable:
                out = engine.generate([[*recent, HumanMessage(content=asked)]])
            else:
                out = engine.generate([asked])
            said = out.generations[0][0].text
            self._keep(asked, said)
            return said

        async def run_async(self, engine, asked):
            earlier = self.log[len(self.log) - 6:]
            out = await engine.agenerate([earlier + [HumanMessage(content=asked)]])
            self._keep(asked, out.generations[0][0].text)
"""


def test_generate_of_a_model_picked_at_run_time_sends_its_message_list(tmp_path):
    chat, joined = sent(layouts(tmp_path, NOTEBOOK))
    assert (chat.provider, chat.api, chat.model) == (None, "chat.generate", None)
    assert [p.role for p in chat.parts] == ["history", "user"]
    assert chat.newest_user == 1
    history, = chat.parts[0].segments
    assert history.window.start == pos(NOTEBOOK, "self.log[-2 * self.depth:]")
    assert not history.unconfirmed  # messages are appended to it: the conversation
    assert chat.site.start == pos(NOTEBOOK, "engine.generate([[")
    assert (joined.api, [p.role for p in joined.parts]) == ("chat.generate", ["history", "user"])
    assert joined.parts[0].segments[0].window.start == pos(NOTEBOOK, "self.log[len(self.log) - 6:]")


def test_a_list_of_prompt_strings_is_a_completion_model_call_not_a_chat_request(tmp_path):
    found = sent(layouts(tmp_path, NOTEBOOK))
    assert pos(NOTEBOOK, "engine.generate([asked])").row not in {lt.site.start.row for lt in found}


def test_a_known_chat_model_generates_from_each_message_list_of_the_batch(tmp_path):
    source = """
        from langchain_core.messages import HumanMessage, SystemMessage
        from langchain_openai import ChatOpenAI

        GUIDE = "You grade short answers."


        def grade(first: str, second: str):
            llm = ChatOpenAI(model="gpt-4o-mini")
            return llm.generate([[SystemMessage(content=GUIDE), HumanMessage(content=first)],
                                 [SystemMessage(content=GUIDE), HumanMessage(content=second)]])
    """
    one, two = sent(layouts(tmp_path, source))
    assert (one.provider, one.api, one.model) == ("openai", "langchain.generate", "gpt-4o-mini")
    assert parts(one) == [("system", [("text", "You grade short answers.")]),
                          ("user", [("unknown", "per-request", "first")])]
    assert parts(two)[1] == ("user", [("unknown", "per-request", "second")])
    # one request per list: each named where its list is written
    assert (one.site.start, two.site.start) == (pos(source, "[SystemMessage"), pos(source, "[SystemMessage", 1))


def test_invoke_and_stream_of_an_unknown_model_read_the_spread_list_as_the_conversation(tmp_path):
    found = sent(layouts(tmp_path, """
        from langchain_core.messages import HumanMessage, SystemMessage


        def reply(llm, past, text):
            return llm.invoke([SystemMessage(content="Answer in French."), *past, HumanMessage(content=text)])


        def reply_streamed(llm, past, text):
            for chunk in llm.stream(past + [HumanMessage(content=text)]):
                yield chunk
    """))
    assert [[p.role for p in lt.parts] for lt in found] == [["system", "history", "user"], ["history", "user"]]
    assert [lt.api for lt in found] == ["chat.invoke", "chat.invoke"]
    assert [lt.newest_user for lt in found] == [2, 1]


def test_lists_that_are_no_message_lists_send_nothing(tmp_path):
    found = layouts(tmp_path, """
        from langchain_core.messages import HumanMessage


        def other(llm, hf_model, past, ids, text):
            llm.invoke([*past])  # no message written at the call
            llm.generate([[text, "again"]])  # strings: a completion model's batch
            llm.generate([past])  # a list not written as messages, of a model not known
            hf_model.generate(ids, max_new_tokens=20)  # token ids, no list display
            llm.generate([{"role": "user", "content": text}])  # dicts: not LangChain's batch form
    """)
    assert sent(found) == []


def test_a_file_that_imports_langchain_and_calls_generate_is_read():
    from promptlint.python.prefilter import might_hold_prompt
    source = "from langchain_core.messages import HumanMessage\n\ndef f(m, q):\n    return m.generate([[HumanMessage(q)]])\n"
    assert might_hold_prompt(source)
    assert not might_hold_prompt("def f(m, q):\n    return m.generate([q])\n")
