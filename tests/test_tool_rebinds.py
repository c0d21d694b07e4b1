"""PRM204 facts: a tool list that a loop's requests of one conversation pass, rebound in the loop
to another list."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.module import load
from promptlint.python.tool_rebinds import find_tool_choice_rebound_in_loop, find_tools_rebound_in_loop

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


FORCED_FIRST = """
    async def task_generate(model, state, config):
        tool_choice = state.tool_choice
        while True:
            state.output = await model.generate(input=state.messages, tools=state.tools,
                                                tool_choice=tool_choice, config=config)
            message = state.output.message
            state.messages.append(message)
            if not message.tool_calls:
                return state
            if isinstance(tool_choice, dict):
                tool_choice = "auto"
"""

CHOICE_KEPT = """
    async def label_all(model, items):
        tool_choice = {"type": "tool", "name": "label"}
        for item in items:
            messages = [{"role": "user", "content": item}]          # a new conversation per item
            await model.generate(input=messages, tool_choice=tool_choice)
            tool_choice = "auto"


    async def chat(model, state):
        tool_choice = "auto"
        while state.open:
            await model.generate(input=state.messages, tool_choice=tool_choice)
            tool_choice = "auto"                                   # the same choice again
"""


def _choices(source: str):
    module = load(Path("app.py"), code(source))
    return [(stmt.lineno, call.lineno, name) for stmt, call, name in find_tool_choice_rebound_in_loop(module)]


def test_a_forced_tool_choice_rebound_to_auto_in_the_loop_of_one_conversation_is_a_fact():
    assert _choices(FORCED_FIRST) == [(11, 4, "task_generate")]


def test_a_choice_rebound_per_item_of_new_conversations_or_to_the_same_value_is_no_fact():
    assert _choices(CHOICE_KEPT) == []


def test_the_rebound_tool_choice_is_info_at_the_rebinding_with_the_request_related():
    path = Path(__file__).resolve().parent.parent / "fixtures" / "tool_rebinds" / "forced_first.py"
    report = api.check([path], api.Settings(), jobs=1)
    found = [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
             for d in report.diagnostics if d.code == "PRM204"]
    assert found == [("PRM204", "info", 14, [7])]
    assert "on Anthropic a change of `tool_choice` invalidates the cached messages" in report.diagnostics[0].message


def test_a_tool_choice_chosen_per_pass_of_the_loop_of_one_conversation_is_info_there():
    path = Path(__file__).resolve().parent.parent / "fixtures" / "tool_rebinds" / "required_first.py"
    module = load(path, path.read_text(encoding="utf-8"))
    assert [(n.lineno, type(n).__name__, c.lineno, f) for n, c, f in find_tool_choice_rebound_in_loop(module)] == [
        (11, "IfExp", 10, "run")]
    report = api.check([path], api.Settings(), jobs=1)
    found = [(d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
             for d in report.diagnostics if d.code == "PRM204"]
    assert found == [("info", 11, [10])]
    assert next(d.message for d in report.diagnostics if d.code == "PRM204").startswith(
        "The tool choice is chosen here by `step == 0`, which changes from one pass of the loop of `run` to the next")
