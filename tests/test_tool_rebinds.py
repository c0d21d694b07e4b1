"""PRM204 facts: a tool list that a loop's requests of one conversation pass, rebound in the loop
to another list."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.module import load
from promptlint.python.tool_rebinds import find_tools_rebound_in_loop

from analysis_support import code, write


def _found(source: str):
    module = load(Path("app.py"), code(source))
    return [(stmt.lineno, call.lineno, name) for stmt, call, name in find_tools_rebound_in_loop(module)]


REBOUND = """
    from openai import OpenAI

    client = OpenAI()


    def solve(state, search, answer):
        tools = [search, answer]
        while state.result is None:
            reply = client.chat.completions.create(model="gpt-4.1", messages=state.messages, tools=tools)
            state.messages.append(reply.choices[0].message)
            if not reply.choices[0].message.tool_calls:
                tools = [answer]
                continue
            state.result = reply
"""


def test_a_loop_that_rebinds_the_tools_of_one_conversation_to_another_list_is_a_switch():
    assert _found(REBOUND) == [(12, 9, "solve")]


CLEAN = """
    from openai import OpenAI

    client = OpenAI()


    def label_all(items, search, answer):
        tools = [search, answer]
        for item in items:
            messages = [{"role": "user", "content": item}]        # a new conversation per item
            client.chat.completions.create(model="gpt-4.1", messages=messages, tools=tools)
            tools = [answer]


    def chat(state, search):
        tools = [search]
        while state.open:
            client.chat.completions.create(model="gpt-4.1", messages=state.messages, tools=tools)
            tools = [search]                                       # the same list again
"""


def test_a_new_conversation_per_pass_or_the_same_list_again_is_not_a_switch():
    assert _found(CLEAN) == []


def test_the_rule_reports_the_rebinding_at_info(tmp_path):
    write(tmp_path, {"app.py": REBOUND})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    got = [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics if d.code == "PRM204"]
    assert got == [("PRM204", "info", 12)]
