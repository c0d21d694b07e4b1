"""PRM107 in prompts built in Python: content that changes with each turn (retrieved passages,
examples picked for the turn, per-run instructions) placed before the conversation history a
message list replays. Proven per request (data fetched with the newest message) it is PRM101's
warning; known only by its name it is this rule's info, and the message says the name is the
evidence (docs/policies.md, Policies 2, 7, 8). Each test writes a small project and checks the
findings of the whole run."""
from __future__ import annotations

from analysis_support import write

from promptlint import api
from promptlint.turn_names import turn_content

GUIDE = ("You are the front desk of the Saltmarsh sailing school. Answer questions about courses, "
         "boat hire, tides and safety in two or three sentences, and say when you do not know.")


def _found(root, files: dict[str, str]):
    write(root, files)
    report = api.check([root], api.Settings(), jobs=1)
    return sorted((d.span.filename.rsplit("/", 1)[-1], d.span.start.row, d.code, d.severity.value)
                  for d in report.diagnostics if d.code in ("PRM101", "PRM103", "PRM107"))


def _diagnostics(root, files: dict[str, str], code: str = "PRM107"):
    write(root, files)
    return [d for d in api.check([root], api.Settings(), jobs=1).diagnostics if d.code == code]


def test_per_run_instruction_names():
    for name in ("additional_instructions", "extra_instructions", "turn_instructions"):
        assert turn_content(name) == "instructions", name
    for name in ("instructions", "system_instructions", "base_instructions", "tool_instructions"):
        assert turn_content(name) is None, name


# ---------------------------------------------------------------------------- failing: found
def test_chunks_named_so_in_a_dict_system_message_before_the_replayed_history(tmp_path):
    files = {"desk.py": f'''
from openai import OpenAI

client = OpenAI()
GUIDE = "{GUIDE}"


def answer(log: list, kb_chunks: str, text: str):
    messages = [{{"role": "system", "content": GUIDE + "\\nCourse notes:\\n" + kb_chunks}}, *log,
                {{"role": "user", "content": text}}]
    return client.chat.completions.create(model="gpt-4.1", messages=messages)
'''}
    [d] = _diagnostics(tmp_path, files)
    assert (d.span.start.row, d.severity.value) == (8, "info")
    assert "`kb_chunks` is named like content retrieved for each turn" in d.message
    assert "before the conversation history `log`" in d.message and "only its name is the evidence" in d.message
    rows = {(r.span.start.row, r.message) for r in d.related}
    assert rows == {(8, "the conversation history placed after it"), (7, "value produced here")}


def test_langchain_messages_and_a_name_prm101_classifies(tmp_path):
    # `kb_chunks` is known by its name only: info; `relevant_docs`, a name the classifier
    # takes for content retrieved for this turn, stays PRM101's finding
    source = f'''
from langchain_core.messages import HumanMessage, SystemMessage

GUIDE = "{GUIDE}"


def reply(llm, earlier: list, NAME: str, text: str):
    messages = [SystemMessage(content=f"{{GUIDE}}\\nCourse notes:\\n{{NAME}}"), *earlier,
                HumanMessage(content=text)]
    return llm.invoke(messages)
'''
    assert _found(tmp_path / "a", {"lc.py": source.replace("NAME", "kb_chunks")}) == [("lc.py", 7, "PRM107", "info")]
    assert _found(tmp_path / "b", {"lc.py": source.replace("NAME", "relevant_docs")}) == [("lc.py", 7, "PRM101", "warning")]


def test_passages_fetched_with_the_newest_message_are_prm101s_warning_at_the_helper(tmp_path):
    # proven per request (a search on the newest message): PRM101 warns where the value enters the
    # text, inside the helper that returns the system message; no second finding
    files = {"archive.py": f'''
from openai import OpenAI

client = OpenAI()
GUIDE = "{GUIDE}"


def system_message(found_passages: str) -> dict:
    return {{"role": "system", "content": f"{{GUIDE}}\\nFound:\\n{{found_passages}}"}}


def ask(index, turns: list):
    latest = turns[-1]["content"]
    hits = index.query(latest, top_k=4)
    passages = "\\n\\n".join(h.text for h in hits)
    return client.chat.completions.create(model="gpt-4.1", messages=[system_message(passages), *turns])
'''}
    assert _found(tmp_path, files) == [("archive.py", 8, "PRM101", "warning")]


def test_additional_instructions_of_a_run_chosen_in_branches(tmp_path):
    files = {"runs.py": '''
from openai import AsyncOpenAI

client = AsyncOpenAI()


async def run(assistant_id: str, thread_id: str, base: str, additional_instructions: str | None = None,
              override: str | None = None):
    merged = ""
    if override is not None:
        merged = override
    elif base and additional_instructions:
        merged = f"{base}\\n\\n{additional_instructions}"
    else:
        merged = base or additional_instructions or ""
    return await client.beta.threads.runs.create(assistant_id=assistant_id, thread_id=thread_id,
                                                  instructions=merged)
''', "agents.py": '''
async def run(project, agent_id: str, thread_id: str, additional_instructions: str):
    text = f"You teach the evening pottery class.\\n\\n{additional_instructions}"
    return await project.agents.runs.create(agent_id=agent_id, thread_id=thread_id, instructions=text)
'''}
    found = _diagnostics(tmp_path, files)
    assert sorted((d.span.filename.rsplit("/", 1)[-1], d.span.start.row, d.severity.value) for d in found) == [
        ("agents.py", 2, "info"), ("runs.py", 12, "info")]
    assert all("named like instructions given for each run" in d.message
               and "(the messages of thread `thread_id`)" in d.message for d in found)


def test_a_template_two_prompts_fill_keeps_the_history_of_each(tmp_path):
    files = {"rag.py": f'''
TEMPLATE = """{GUIDE}
<context>
[context]
</context>"""


def put_first(text, messages):
    if messages and messages[0].get("role") == "system":
        messages[0]["content"] += text
    else:
        messages.insert(0, {{"role": "system", "content": text}})
    return messages


def with_sources(messages, sources):
    for doc in sources:
        text = TEMPLATE.replace("[context]", doc)
        return put_first(text, messages)


def with_sources_again(form_data, sources):
    for doc in sources:
        form_data["messages"] = put_first(TEMPLATE.replace("[context]", doc), form_data["messages"])
    return form_data
'''}
    [d] = _diagnostics(tmp_path, files)
    assert d.span.start.row == 3 and d.severity.value == "info"
    places = {r.span.start.row for r in d.related}
    assert {18, 23} <= places, places  # both prompts that put it before their conversation


# ---------------------------------------------------------------------------- passing: nothing
def test_fixed_context_and_context_after_the_history_are_no_finding(tmp_path):
    files = {"style.md": "Write in a friendly tone and never promise a course date.\n", "desk.py": f'''
from pathlib import Path

from anthropic import Anthropic

client = Anthropic()
GUIDE = "{GUIDE}"
HOUSE_STYLE = Path(__file__).with_name("style.md").read_text()


class Desk:
    def __init__(self, notes_file: str):
        self.context = Path(notes_file).read_text()

    def ask(self, turns: list):
        return client.messages.create(model="claude-sonnet-4-5", max_tokens=400, system=GUIDE + self.context,
                                      messages=turns)


def ask_styled(turns: list):
    context = HOUSE_STYLE
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=400, system=f"{{GUIDE}}\\n{{context}}",
                                  messages=turns)


def ask_after(turns: list, kb_chunks: str, text: str):
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=400, system=GUIDE,
                                  messages=[*turns, {{"role": "user", "content": f"Notes:\\n{{kb_chunks}}\\n\\n{{text}}"}}])


def ask_once(search_context: str, query: str):
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=400, system=GUIDE + search_context,
                                  messages=[{{"role": "user", "content": query}}])
'''}
    assert [f for f in _found(tmp_path, files) if f[2] == "PRM107"] == []


def test_a_response_read_by_key_is_not_the_random_pick_kept_beside_it(tmp_path):
    # the dict of one branch keeps a random model pick beside the response's items: the content read
    # from it by key is the response's, of unknown volatility, not a random value (PRM103)
    files = {"club.py": '''
import random

from openai import OpenAI

client = OpenAI()


async def complete(backend, payload: dict, pool: list):
    if payload.get("arena"):
        picked = random.choice(pool)
        response = await backend.send(payload)
        return {**response, "picked_model": picked}
    return await backend.send(payload)


def _text(response) -> str:
    choices = response.get("choices") or []
    if choices:
        message = choices[0]["message"]
        return message.get("content") or ""
    return ""


async def reply(backend, turns: list, pool: list):
    reply_text = await complete(backend, {"messages": [{"role": "user", "content": "Summarise."}]}, pool)
    summary = _text(reply_text).strip()
    system = {"role": "system", "content": f"You are the assistant of the Brookside garden club.\\nEarlier: {summary}"}
    return client.chat.completions.create(model="gpt-4.1", messages=[system, *turns])
'''}
    assert _found(tmp_path, files) == [("club.py", 27, "PRM101", "info")]


def test_a_one_shot_text_with_a_value_named_history_in_another_variant_is_no_finding(tmp_path):
    # one request, no conversation: `history` is terminal output written into the single user
    # message; the question given on the command line comes before it in one variant
    files = {"fix.py": '''
import sys

from openai import OpenAI

client = OpenAI()
SYSTEM = "You fix shell errors. Answer with the command to run in a code block."


def main(terminal):
    question = None
    if len(sys.argv) > 1:
        question = "fix " + " ".join(sys.argv[1:])
    history = terminal.read_output()
    if "fix" in history:
        cut = history.rindex("fix")
        history = history[:cut]
    if question:
        text = "Answer this question: " + question + "\\nMy terminal output:\\n" + history + "\\nAgain: " + question
    else:
        text = history.strip() + "\\n\\nHelp me fix the last error above."
    messages = [{"role": "system", "content": SYSTEM.strip()}, {"role": "user", "content": text.strip()}]
    return client.chat.completions.create(model="gpt-4.1", messages=messages)
'''}
    assert [f for f in _found(tmp_path, files) if f[2] == "PRM107"] == []


def test_a_message_of_a_role_of_its_own_is_not_judged_as_text_before_the_history(tmp_path):
    # a framework's own message role (`context`: variables for its rails) is not known to be sent as
    # text before the conversation; the same value in a system message is
    source = '''
async def check(rails, body):
    messages = list(body.messages)
    if body.extra.context:
        messages.insert(0, {"role": "ROLE", "content": body.extra.context})
    return await rails.generate_async(messages=messages)
'''
    assert _diagnostics(tmp_path / "own", {"api.py": source.replace("ROLE", "context")}) == []
    assert [d.span.start.row for d in _diagnostics(tmp_path / "system", {"api.py": source.replace("ROLE", "system")})] == [4]
