"""The `value produced here` related location (issue: a new user's trial): it names where a value
is made, never the expression inside the f-string field the finding itself points at, for a file
and for stdin (`check - --stdin-filename`) alike. Columns are 1-based characters."""
from __future__ import annotations

import json

import pytest

from ci_support import cli

FIELD = '''\
from datetime import datetime

from openai import OpenAI

client = OpenAI()
SYSTEM = "You are a support assistant for Acme Corp. Answer briefly and politely, in English. " * 40


def answer(question: str, history: list) -> str:
    stamp = datetime.now()
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": f"Then: {stamp}. " + SYSTEM}, *history, {"role": "user", "content": question}])


def reply(question: str, history: list) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": f"Now: {datetime.now()}. " + SYSTEM}, *history, {"role": "user", "content": question}])
'''
ROW_STAMP, ROW_NOW = 12, 17  # the two system messages


def _findings(args: list[str], **kw) -> list[dict]:
    result = cli("check", *args, "--no-cache", "--isolated", "--output-format", "json", **kw)
    assert result.exit_code == 1, result.stdout + result.stderr
    return [d for d in json.loads(result.stdout)["diagnostics"] if d["code"] == "PRM102"]


@pytest.mark.parametrize("stdin", [False, True])
def test_related_location_names_where_the_value_is_made(tmp_path, monkeypatch, stdin):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "chat.py").write_text(FIELD, encoding="utf-8")
    args = ["-", "--stdin-filename", "chat.py"] if stdin else ["chat.py"]
    found = _findings(args, input=FIELD if stdin else None)
    lines = FIELD.splitlines()
    by_row = {d["location"]["row"]: d for d in found}
    assert sorted(by_row) == [ROW_STAMP, ROW_NOW]
    now = by_row[ROW_NOW]
    # the finding points at the field `{datetime.now()}`; the value is made right there: no related
    assert lines[ROW_NOW - 1][now["location"]["column"] - 1:].startswith("{datetime.now()}")
    assert now["related"] == []
    stamp = by_row[ROW_STAMP]
    assert lines[ROW_STAMP - 1][stamp["location"]["column"] - 1:].startswith("{stamp}")
    assert [(r["location"]["row"], r["message"]) for r in stamp["related"]] == [(10, "value produced here")]
    column = stamp["related"][0]["location"]["column"]
    assert lines[9][column - 1:].startswith("datetime.now()")  # 1-based: `stamp = datetime.now()`


def test_text_report_shows_the_same_related_location_for_stdin_and_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "chat.py").write_text(FIELD, encoding="utf-8")
    as_file = cli("check", "chat.py", "--no-cache", "--isolated")
    piped = cli("check", "-", "--stdin-filename", "chat.py", "--no-cache", "--isolated", input=FIELD)
    assert as_file.stdout == piped.stdout
    related = [line.strip() for line in as_file.stdout.splitlines() if "= related:" in line]
    assert related == ["= related: chat.py:10:13: value produced here"]


# Policy 8: one finding for the first value; the later values it stands for are named with it.
MERGED = '''\
REVIEW_PROMPT = """You are reviewing the performance of an AI assistant in a given interaction.
The current prompt that was used for the session is provided below.
<current_prompt>
{prompt}
</current_prompt>
The developer gave these instructions about when and how to update the prompt:
<update_instructions>
{update_instructions}
</update_instructions>
Analyze the following trajectories and any user feedback attached to them:
<trajectories>
{trajectories}
</trajectories>
Say how well the assistant fulfilled the user's intent, where it deviated from what the user
expected, and which areas (correctness, completeness, style, tone, alignment) need improvement.
Recommend the smallest change that fixes each failure you find, and be concrete about it.
Summarize the key successes and failures in the assistant's response, then name the failure
modes that best describe the issues: style mismatch, unclear or incomplete instructions, flawed
logic or reasoning, hallucination. For each failure mode, recommend the most suitable edit
strategy: synthetic few-shot examples for style or for decision boundaries, explicit instruction
updates for conditionals, rules or logic fixes, step-by-step reasoning guidelines for problems
that take several steps. Then give detailed, concrete suggestions for how to update the prompt.
The final updated prompt should only be changed when there is evidence of poor performance, and
the recommendations should be minimally invasive: keep every instruction that worked as it is,
keep the wording of the prompt where no failure points at it, and never add rules that no
trajectory calls for. Answer with a JSON object with the keys "warrants_adjustment" (a boolean),
"hypotheses" (a list of strings) and "recommendations" (a list of strings), and nothing else.
"""


def review(session: dict) -> str:
    return REVIEW_PROMPT.format(**session)
'''


def test_a_finding_names_the_later_values_it_stands_for(tmp_path):
    from analysis_support import write
    from promptlint import api

    write(tmp_path, {"review.py": MERGED})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    got = [(d.code, d.severity.value, d.span.start.row, [(r.span.start.row, r.message) for r in d.related])
           for d in report.diagnostics]
    unknown = "of unknown volatility: when it changes, it breaks the prefix as well"
    assert got == [("PRM101", "info", 4, [(8, f"a later value, `{{update_instructions}}`, {unknown}"),
                                          (12, f"a later value, `{{trajectories}}`, {unknown}")])]


SECOND = '''\
from openai import OpenAI

client = OpenAI()
POLICY = "You are the support assistant of Harbor Bank's mobile app. Answer briefly and politely. " * 30


def answer(question: str):
    system = (f"The customer asks: {question}\\n\\n"
              f"{POLICY}\\n\\n"
              f"Answer this question: {question}\\n\\nAnswer in two or three sentences, in the customer's language.")
    return client.chat.completions.create(model="gpt-4.1", messages=[{"role": "system", "content": system}])
'''


def test_a_later_value_of_the_same_rate_is_named_once(tmp_path):
    from analysis_support import write
    from promptlint import api

    write(tmp_path, {"bank.py": SECOND})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    got = [(d.code, d.span.start.row, [(r.span.start.row, r.message) for r in d.related]) for d in report.diagnostics]
    assert got == [("PRM101", 8, [(7, "value produced here"), (10, "the same value again: it must move as well")])]


REPEATED = '''\
CODE_PROMPT = """You solve tasks by writing code. Open each code block with {opening_tag}
and close it with {closing_tag}. Here is an example:
{opening_tag}
print("hello")
{closing_tag}
Another example follows, in the same format.
{opening_tag}
print("goodbye")
{closing_tag}
Always think step by step before you write the code, explain what it does, and keep each block
short: one step of the task per block, with the result printed at its end so that you can read it
in the next turn. Never invent the output of a block; wait for it to be run. Use only the modules
you were told are installed, and say which module you need when one is missing instead of writing
code that imports it. When a block fails, read the error, say what went wrong in one sentence, and
write a corrected block; never repeat a block that failed without changing it. When the task is
done, write the final answer in plain text after the last block, with the figures it asks for,
and nothing else. Keep variable names short and meaningful, and reuse the variables of earlier
blocks instead of computing the same values again: every block runs in the same interpreter.
Print intermediate results only when you need them for the next step, and keep printed output
short: a few lines, or the first rows of a table, never a whole file. Handle files with care:
read them once, keep their contents in a variable, and write new files only where the task says
so. Dates, currencies and units must be printed the way the task writes them. If the task is
ambiguous, state the reading you chose in one sentence before the first block, and stick to it.
"""


def render(tags: dict) -> str:
    return CODE_PROMPT.format(**tags)
'''


def test_a_value_written_several_times_is_named_once(tmp_path):
    from analysis_support import write
    from promptlint import api

    write(tmp_path, {"code.py": REPEATED})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    got = [(d.span.start.row, [r.span.start.row for r in d.related]) for d in report.diagnostics]
    assert got == [(1, [2, 3])]  # {closing_tag} at 2, {opening_tag} again at 3; not lines 5, 7, 9
    assert [r.message for r in report.diagnostics[0].related][1] == "the same value again: it must move as well"


TAIL = '''\
ANALYSIS_PROMPT = """You evaluate the result of a task done by a worker of a team. First check
whether the result answers the task completely, then whether it is correct, then whether it is
presented as the task asks. Give a quality score from 0 to 100.
Select a recovery strategy from the enabled strategies below when the quality is insufficient:
{available_strategies}
Decision guidelines: retry when the failure looks transient (a timeout, a rate limit, a network
error); replan when the task was understood wrongly; decompose when the task is too large for one
worker; reassign when the worker lacks a tool the task needs. Never select a strategy that is not
enabled. Explain your choice in one sentence. A quality score below 60 means the task failed and
a recovery strategy must be selected; a score of 60 or more means no recovery strategy at all.
Answer with a JSON object with the keys quality_score, reasoning, recovery_strategy and issues,
and nothing else: no introduction, no closing remark, no markdown around the object. Keep the
reasoning short and concrete, and list each issue you found as one short sentence. Do not repeat
the task or the result in your answer. Do not guess at facts that the result does not state.
When the result is empty, the score is 0 and the strategy is retry. When the result is a refusal,
the score is 0 and the strategy is reassign. When the result answers part of the task, the score
is at most 59 and the strategy is decompose, unless the missing part needs a tool the worker lacks,
in which case the strategy is reassign. Report issues in the order they appear in the result.
Task ID: {task_id}
Task: {task_content}"""


def analyse(values: dict) -> str:
    return ANALYSIS_PROMPT.format(**values)
'''


def test_a_later_value_with_nothing_cacheable_after_it_is_not_named(tmp_path):
    from analysis_support import write
    from promptlint import api

    write(tmp_path, {"analysis.py": TAIL})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    got = [(d.span.start.row, [r.span.start.row for r in d.related]) for d in report.diagnostics]
    assert got == [(5, [])]  # `{task_id}` is followed by 2 static tokens, `{task_content}` by none
