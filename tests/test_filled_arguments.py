"""A template filled in an argument of a call no send shape matches (`await model_func(query,
sys_prompt_template.format(report_data=points))`) is a prompt candidate of its own (Policy 9),
judged on its text as the same text kept in a local name is; a template whose name does not say
prompt, or a call the analysis sends through an SDK, adds none."""
from __future__ import annotations

from analysis_support import layouts, parts, pos

TEMPLATE = '''
REDUCE_PROMPT = """---Role---
You are a helpful assistant responding to questions about a dataset by synthesizing perspectives from multiple analysts.
---Analyst Reports---
{report_data}
---Goal---
Generate a response of the target length and format that responds to the user's question, summarize all the reports from multiple analysts who focused on different parts of the dataset.
"""
'''

FILLED = TEMPLATE + '''

async def reduce(query, global_config: dict, store):
    use_model_func = global_config["best_model_func"]
    points = await store.search(query)
    sys_prompt_temp = REDUCE_PROMPT
    return await use_model_func(query, sys_prompt_temp.format(report_data=points))
'''


def test_a_template_filled_in_a_call_argument_is_a_prompt(tmp_path):
    found = [lt for lt in layouts(tmp_path, FILLED) if lt.source == "python-constant"
             and lt.site.row == pos(FILLED, "sys_prompt_temp.format").row]
    assert len(found) == 1
    (role, described), = parts(found[0])
    assert described[0][0] == "text" and described[0][1].startswith("---Role---")
    assert described[1] == ("user-input", "per-request", "store.search(query)")
    assert described[2][0] == "text" and "---Goal---" in described[2][1]


NOT_PROMPT = TEMPLATE + '''

async def reduce(query, global_config: dict, store):
    points = await store.search(query)
    row_template = "{a} and {b} in a row of the table that lists each analyst's points, one row per analyst."
    return await global_config["log"](query, row_template.format(a=points, b=query))
'''


def test_a_template_whose_name_does_not_say_prompt_adds_none(tmp_path):
    assert [lt for lt in layouts(tmp_path, NOT_PROMPT) if lt.site.row == pos(NOT_PROMPT, "row_template.format").row] == []


SENT = TEMPLATE + '''
from openai import OpenAI

client = OpenAI()


def reduce(query, store):
    points = store.search(query)
    return client.responses.create(model="gpt-4.1", instructions=REDUCE_PROMPT.format(report_data=points), input=query)
'''


def test_a_call_sent_through_an_sdk_is_judged_there_only(tmp_path):
    found = layouts(tmp_path, SENT)
    assert [lt.source for lt in found if lt.site.row == pos(SENT, "client.responses").row] == ["python-call"]
