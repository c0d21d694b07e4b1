"""promptlint/python/sdks/langchain.py `agent_invoke`: `agent.invoke({"messages": ...})` on an agent
built with `create_react_agent(model, tools, prompt=...)`, here or by a factory function of
another module, is a request with the agent's tools and prompt, then the messages handed to it:
a history cut before the call is judged as in a direct call; an input of another shape is none."""
from __future__ import annotations

from analysis_support import layouts, parts, sent, write

from promptlint import api

FACTORY = """
    from langchain_openai import ChatOpenAI
    from langgraph.prebuilt import create_react_agent

    GUIDE = "You are the team's research assistant. " * 300


    def get_agent(tools):
        return create_react_agent(ChatOpenAI(model="gpt-4o"), tools, prompt=GUIDE)
"""

APP = """
    from agent import get_agent


    def answer(history, message):
        return get_agent(list({"search", "fetch"})).invoke({"messages": history[-10:] + [message]})


    def answer_whole(history, message):
        return get_agent(["search", "fetch"]).invoke({"messages": history + [message]})


    def answer_text(message):
        return get_agent([]).invoke(message)
"""


def test_invoke_of_an_agent_from_a_factory_is_a_request_with_its_tools_and_prompt(tmp_path):
    found = sent(layouts(tmp_path, APP, files={"agent.py": FACTORY}))
    cut, whole = found
    assert (cut.provider, cut.model, cut.api) == ("openai", "gpt-4o", "langgraph.agent.invoke")
    assert [p.role for p in cut.parts] == ["tools", "system", "history", "history"]
    assert parts(cut)[0][1][0][:2] == ("unordered-iteration", "per-process")
    assert parts(whole)[0] == ("tools", [("unknown", "unknown", "tools")])  # names, no definitions
    assert parts(whole)[1] == ("system", [("text", "You are the team's research assistant. " * 300)])


def test_the_history_cut_and_the_set_of_tools_are_found(tmp_path):
    write(tmp_path, {"agent.py": FACTORY, "app.py": APP})
    found = api.check([tmp_path / "app.py"], api.Settings(), jobs=1).diagnostics
    assert [(d.code, d.severity.value, d.span.start.row) for d in found] == [("PRM203", "warning", 5),
                                                                            ("PRM105", "warning", 5)]
