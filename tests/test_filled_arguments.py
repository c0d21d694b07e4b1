"""A template filled in an argument of a call no send shape matches (`await model_func(query,
sys_prompt_template.format(report_data=points))`) is a prompt candidate of its own (Policy 9),
judged on its text as the same text kept in a local name is; a template whose name does not say
prompt, or a call the analysis sends through an SDK, adds none."""
from __future__ import annotations

from analysis_support import layouts, parts, pos, write

from promptlint import api

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


SELECTION = '''
SELECTION_PROMPT = """# Your goal
Match each skill in the skill list to one expert of the expert pool.
# Skills
{skills}
# Expert pool
{expert_pool}
# Answer format
Answer with a JSON object that maps every skill to the name of the expert chosen for it, and nothing
else: no prose before or after it, no comments inside it. Choose only experts listed in the pool, use
each expert's name exactly as it is written there, and map a skill no expert fits to null.
{rules}"""


class Builder:
    def __init__(self, wrapper):
        self.wrapper = wrapper

    def build(self, task, library):
        picked = set()
        for skill in task.split("\\n"):
            picked = picked.union(set(library.query(skill)))
        pool = [f"{p['name']}: {p['description']}" for p in picked]
        return self.wrapper.create(
            messages=[{"role": "user", "content": SELECTION_PROMPT.format(expert_pool=pool, skills=task)}]
        )
'''
# The rules of choice after the pool: enough static text (256+ tokens) to be worth caching on its own,
# so the pool's order costs something although the wrapper's send is not followed.
RULES_OF_CHOICE = """# Rules of choice
Prefer the expert whose description names the skill itself over one who names a related skill.
When two experts fit a skill equally well, prefer the one who covers more of the other skills.
Never split one skill between two experts, and never invent an expert who is not in the pool.
""" * 4
SELECTION = SELECTION.replace("{rules}", RULES_OF_CHOICE)


def test_a_message_list_written_into_a_wrappers_call_is_a_prompt(tmp_path):
    # `create` is a name of SDK shapes; a call of a wrapper of the tree that no shape matches is
    # judged as a message list kept in a local name is
    found = [lt for lt in layouts(tmp_path, SELECTION) if lt.source == "python-constant"
             and lt.site.row == pos(SELECTION, "messages=[").row]
    assert len(found) == 1
    (role, described), = parts(found[0])
    assert role == "user"
    assert described[0][0] == "text" and described[0][1].startswith("# Your goal")
    assert [d[:2] for d in described[1::2]] == [("unknown", "per-request"), ("unordered-iteration", "per-process")]


def test_the_set_order_of_a_message_list_in_a_wrappers_call_is_reported(tmp_path):
    write(tmp_path, {"app.py": SELECTION})
    codes = [(d.code, d.span.start.row) for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics]
    assert ("PRM202", pos(SELECTION, "for p in picked").row) in codes


SHORT_TAIL = SELECTION.replace(RULES_OF_CHOICE, "")


def test_the_set_order_before_a_few_words_of_a_prompt_sent_apart_is_info(tmp_path):
    # the same pool with only the answer format (~60 tokens) after it: the wrapper's send is not
    # followed, so what the request adds is not known: still info (the pool's items are at stake)
    write(tmp_path, {"app.py": SHORT_TAIL})
    found = [(d.code, d.severity.value, d.span.start.row) for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics]
    assert found == [("PRM202", "info", pos(SHORT_TAIL, "for p in picked").row)]


STATIC_ONLY = '''
class Builder:
    def __init__(self, wrapper):
        self.wrapper = wrapper

    def ping(self):
        return self.wrapper.create(messages=[{"role": "user", "content": "Reply with the single word: pong."}])
'''


def test_a_message_list_of_static_text_in_a_wrappers_call_adds_none(tmp_path):
    assert layouts(tmp_path, STATIC_ONLY) == []
