"""promptlint/python/layout.py `opening`: the messages a LangGraph agent given tools is run with
(`agent.invoke({"messages": [{"role": "user", "content": opening}]})`) are the start of the run's
conversation, not a one-shot request's newest user message: the agent appends its replies and the
tool results after them and re-sends them on every step. Their per-request content is per
conversation and written once (the steps after it are its own conversation's); content of unknown
volatility stays unknown (Policy 7: info), where the newest user message would read it as
per-request. An agent with no tools, or messages that replay a conversation, keep the newest user
message."""
from __future__ import annotations

from analysis_support import parts, sent, layouts, write

from promptlint import api

AGENT = """
    from datetime import datetime

    from langchain_openai import ChatOpenAI
    from langgraph.prebuilt import create_react_agent

    GUIDE = "You are the team's research assistant. " * 300
    RULES = "Follow the research rules in order and cite every source you read. " * 200


    def search(q: str) -> str:
        \"\"\"Search the web.\"\"\"
        return q


    agent = create_react_agent(ChatOpenAI(model="gpt-4o"), TOOLS, prompt=GUIDE)


    def research(task, notes):
        opening = f"Notes: {notes}\\n\\n{RULES}\\n\\nTask: {task}\\nNow: {datetime.now()}"
        return agent.invoke({"messages": [{"role": "user", "content": opening}]})


    def dated(question):
        return agent.invoke({"messages": [{"role": "user", "content": f"Now: {datetime.now()}\\n\\n{RULES}\\n{question}"}]})


    def chat(history, notes):
        return agent.invoke({"messages": history + [{"role": "user", "content": f"Notes: {notes}\\n\\n{RULES}"}]})
"""


def _check(tmp_path, tools):
    write(tmp_path, {"app.py": AGENT.replace("TOOLS", tools)})
    found = api.check([tmp_path / "app.py"], api.Settings(), jobs=1).diagnostics
    return [(d.code, d.severity.value, d.span.start.row) for d in found]


def test_the_opening_message_of_an_agent_run_is_the_start_of_its_conversation(tmp_path):
    found = sent(layouts(tmp_path, AGENT.replace("TOOLS", "[search]")))
    assert [x.api for x in found] == ["langgraph.create_react_agent"] + ["langgraph.agent.invoke"] * 3
    research = found[1]
    assert [p.role for p in research.parts] == ["tools", "system", "user", "history"]
    assert research.newest_user is None
    notes, task, now = [s for s in research.parts[2].segments if not s.is_static]
    assert (notes.volatility.value, notes.written_once) == ("unknown", True)
    assert (now.kind.value, now.volatility.value, now.written_once) == ("timestamp", "per-conversation", True)
    chat = found[3]  # a conversation replayed before the message: its newest user message, as before
    assert [p.role for p in chat.parts] == ["tools", "system", "history", "user"] and chat.newest_user == 3


def test_unknown_content_before_static_text_of_an_opening_message_is_info(tmp_path):
    # `notes` before the rules: info (of unknown volatility, not the newest user message; it
    # was a warning); the time before the rules: each run's first request writes them (warning);
    # the time at the end of the opening message: the steps after it are the run's own (nothing)
    assert _check(tmp_path, "[search]") == [("PRM101", "info", 19), ("PRM102", "warning", 24)]


def test_an_agent_with_no_tools_sends_one_request_its_message_the_newest(tmp_path):
    # one request: what it cannot read in its newest user message is per-request (Policy 7)
    assert _check(tmp_path, "[]") == [("PRM101", "warning", 19), ("PRM102", "warning", 24)]
