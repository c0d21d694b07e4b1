"""promptlint/python/sdks/llama_index.py: LlamaIndex's `FunctionAgent(tools=..., llm=...,
system_prompt=...)` and `OpenAIAgent.from_tools(tools, system_prompt=...)` drawn as the request the
agent sends (tools, system prompt, the message it is run with); LlamaIndex's own modules are none."""
from __future__ import annotations

from analysis_support import layouts, parts, sent, write

from promptlint import api

AGENT = """
    from llama_index.agent.openai import OpenAIAgent
    from llama_index.core.agent.workflow import FunctionAgent
    from llama_index.llms.openai import OpenAI

    GUIDE = "You answer questions about the user's files. " * 200


    async def ask(message, user, tools):
        agent = FunctionAgent(tools=sorted(set(tools)), llm=OpenAI(model="gpt-4o-mini"),
                              system_prompt=f"The user is {user.name}. " + GUIDE)
        return await agent.run(message)


    def ask_old(message, tools):
        agent = OpenAIAgent.from_tools(list(set(tools)), system_prompt=GUIDE)
        return agent.chat(message)
"""


def test_agents_are_drawn_as_tools_system_prompt_and_message(tmp_path):
    new, old = sent(layouts(tmp_path, AGENT))
    assert (new.provider, new.model, new.api) == ("openai", "gpt-4o-mini", "llama_index.FunctionAgent")
    assert [p.role for p in new.parts] == ["tools", "system", "user"]
    assert parts(new)[1][1][:2] == [("text", "The user is "), ("unknown", "unknown", "user.name")]
    assert (old.provider, old.api) == (None, "llama_index.OpenAIAgent")
    assert [p.role for p in old.parts] == ["tools", "system", "user"]


def test_unsorted_tools_are_found_and_sorted_ones_are_not(tmp_path):
    write(tmp_path, {"app.py": AGENT})
    found = api.check([tmp_path / "app.py"], api.Settings(), jobs=1).diagnostics
    assert [(d.code, d.severity.value, d.span.start.row) for d in found] == [("PRM101", "info", 10),
                                                                            ("PRM203", "warning", 15)]


def test_llama_index_own_modules_are_none(tmp_path):
    write(tmp_path, {"llama_index/__init__.py": "", "llama_index/core/__init__.py": ""})
    assert sent(layouts(tmp_path, """
        from llama_index.core.agent.workflow import FunctionAgent

        def make(tools, llm, prompt):
            return FunctionAgent(tools=tools, llm=llm, system_prompt=prompt)
    """, name="llama_index/core/factory.py")) == []


HANDED = """
    from llama_index.core.agent.workflow import FunctionAgent

    GUIDE = "You answer questions about the user's files. " * 200


    async def ask(message, history, tools, notes):
        agent = FunctionAgent(tools=tools, system_prompt=GUIDE + f"Notes: {notes}")
        return await agent.run(message, chat_history=history)


    async def ask_once(message, tools, notes):
        agent = FunctionAgent(tools=tools, system_prompt=GUIDE + f"Notes: {notes}")
        return await agent.run(message)
"""


def test_a_history_handed_to_the_run_follows_the_system_prompt(tmp_path):
    handed, once = sent(layouts(tmp_path, HANDED))
    assert [p.role for p in handed.parts] == ["tools", "system", "history", "user"]
    assert parts(handed)[2] == ("history", [("history", "unknown", "history")])
    assert [p.role for p in once.parts] == ["tools", "system", "user"]
    write(tmp_path, {"app.py": HANDED})
    found = api.check([tmp_path / "app.py"], api.Settings(), jobs=1).diagnostics
    # the notes at the end of the system prompt: before the history handed to the run (info: of
    # unknown volatility), nothing after them in the one-shot run
    assert [(d.code, d.severity.value, d.span.start.row) for d in found] == [("PRM101", "info", 7)]


def test_a_react_agent_is_not_drawn(tmp_path):
    # its tools and format instructions go into a header of LlamaIndex's own, placed where the
    # documentation does not say
    assert sent(layouts(tmp_path, """
        from llama_index.core.agent.workflow import ReActAgent

        def make(tools, notes):
            return ReActAgent(tools=tools, system_prompt=f"Notes: {notes}. " + "Be precise. " * 300)
    """)) == []
