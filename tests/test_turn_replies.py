"""A tool loop's follow-up request: the model's reply and the tool results appended after the
newest user message are this turn's own messages, not the conversation history
(python/turn_replies.py, prefix.turn_start; docs/policies.md, Policy 3). Per-request content in
the user message they follow costs only that message's static text after it; content before the
replayed conversation is still reported."""
from __future__ import annotations

from pathlib import Path

from analysis_support import layouts, probe, roles, sent

from promptlint import api
from promptlint.estimates import Cut
from promptlint.prefix import placed_segments, prefix_end, replays_history, turn_start
from promptlint.python.turn_replies import reads_reply

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "turn_replies"


def _row(name: str, needle: str) -> int:
    return next(i for i, line in enumerate((FIXTURES / name).read_text().splitlines(), 1) if needle in line)


def test_fixtures_report_only_content_before_the_history_and_the_one_shot_instructions():
    """openai_tools, litellm_turn (the reply as `.to_dict()` in a function its callers hand the
    turn to) and anthropic_tools (a `tool_result` user message after the reply) are silent; before
    this change the first two were PRM101 warnings ("the conversation history after it")."""
    report = api.check([FIXTURES], api.Settings(), jobs=1)
    found = sorted((Path(d.span.filename).name, d.span.start.row, d.code, d.severity.value)
                   for d in report.diagnostics if d.code in ("PRM101", "PRM107", "PRM201"))
    assert found == [("before_history.py", _row("before_history.py", "Documents for this question"), "PRM101", "warning"),
                     ("one_shot.py", _row("one_shot.py", "<documents>"), "PRM101", "warning")]


OPENAI_TURN = '''
from openai import OpenAI
client = OpenAI()
def answer(history: list, question: str, store):
    docs = store.search(question)
    messages = [{"role": "system", "content": "You answer questions."}, *history]
    messages.append({"role": "user", "content": f"{docs}\\n\\nQuestion: {question}"})
    response = client.chat.completions.create(model="gpt-4.1", messages=messages, tools=store.tools)
    messages.append(response.choices[0].message)
    messages.extend(store.run(response.choices[0].message.tool_calls))
    messages.append({"role": "system", "content": "Answer now, without tools."})
    return client.chat.completions.create(model="gpt-4.1", messages=messages)
'''


def test_the_user_message_the_reply_answers_is_the_newest(tmp_path):
    first, follow_up = sent(layouts(tmp_path, OPENAI_TURN))
    assert roles(follow_up) == ["system", "history", "user", "history", "history", "system"]
    assert follow_up.newest_user == 2 and turn_start(follow_up) == 3
    assert [p.reply for p in follow_up.parts] == [False, False, False, True, False, False]
    assert replays_history(follow_up) and prefix_end(follow_up) == Cut(2, 0)
    assert placed_segments(follow_up) == []  # nothing of the user message is in the shared prefix
    assert roles(first) == ["tools", "system", "history", "user"]
    assert first.newest_user == 3 and turn_start(first) is None  # (the first request: unchanged)


def test_a_one_shot_follow_up_keeps_the_one_shot_prefix(tmp_path):
    """No history before the newest user message: the message's own static text after the
    documents is still at stake (in_newest), the reply and tool results after it are not."""
    source = OPENAI_TURN.replace(', *history]', ']')
    follow_up = sent(layouts(tmp_path, source))[1]
    assert follow_up.newest_user == 1 and not replays_history(follow_up)
    assert prefix_end(follow_up) == Cut(2, 0)
    assert [(p.seg.expr, p.in_newest, p.history_after) for p in placed_segments(follow_up)] == \
        [("store.search(question)", True, False), ("question", True, False)]


ANTHROPIC_TURN = '''
import anthropic
client = anthropic.Anthropic()
def answer(history: list, question: str, store):
    messages = [*history, {"role": "user", "content": question}]
    response = client.messages.create(model="claude-sonnet-4-5", max_tokens=9, tools=store.tools, messages=messages)
    messages.append({"role": "assistant", "content": response.content})
    results = [{"type": "tool_result", "tool_use_id": b.id, "content": store.run(b.input)} for b in response.content]
    messages.append({"role": "user", "content": results})
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=9, tools=store.tools, messages=messages)
'''


def test_anthropic_reply_blocks_and_tool_results(tmp_path):
    """`{"role": "assistant", "content": response.content}`: the value of the request sent just
    before; the `tool_result` user message after it is no newest user message."""
    follow_up = sent(layouts(tmp_path, ANTHROPIC_TURN))[1]
    assert roles(follow_up)[-4:] == ["history", "user", "assistant", "user"]
    at = roles(follow_up).index("assistant")
    assert follow_up.newest_user == at - 1 and follow_up.parts[at].reply


def test_an_example_exchange_or_a_prefill_is_no_reply(tmp_path):
    """An assistant message written in the code (a prefill, example tool calls) is not the
    model's reply: the layout keeps its old reading (no newest user message before it)."""
    source = '''
    from openai import OpenAI
    client = OpenAI()
    def ask(history, question):
        return client.chat.completions.create(model="gpt-4.1", messages=[*history,
            {"role": "user", "content": question},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "1", "type": "function",
                "function": {"name": "search", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "1", "content": "no results"},
            {"role": "assistant", "content": "{"}])
    '''
    layout = sent(layouts(tmp_path, source))[0]
    assert [p.reply for p in layout.parts] == [False] * 5
    assert layout.newest_user is None and turn_start(layout) is None


def test_a_response_message_read_in_each_sdk_shape(tmp_path):
    source = '''
    def f(response, r, store, out):
        probe(response.candidates[0].content)
        probe(r["output"]["message"])
        probe(r["choices"][0]["message"])
        probe(response.choices[0].message.model_dump(exclude_none=True))
        probe(response.choices[0].message.content + "!")
        probe(store.messages)
        probe(out.message)
    '''
    found = [reads_reply(probe(tmp_path, source, index=i).value, []) for i in range(7)]
    assert found == [True, True, True, True, False, False, False]


def test_tool_results_a_loop_appends_after_the_reply_are_this_turns_own():
    """looped_results.py: `for call in ...tool_calls: messages.append({"role": "tool", "content":
    json.dumps(result)})` after the reply, the send not in the loop. Before this change the
    follow-up's `json.dumps(result)` was a PRM201 warning "in the conversation history" and its
    user message was the first turn re-sent on every pass (per-conversation)."""
    report = api.check([FIXTURES / "looped_results.py"], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value) for d in report.diagnostics] == [("PRM301", "info"), ("PRM301", "info")]
    follow_up = max(report.prompts, key=lambda lt: lt.site.start.row)
    assert roles(follow_up) == ["tools", "system", "user", "history", "history"]
    assert follow_up.newest_user == 2 and turn_start(follow_up) == 3 and not replays_history(follow_up)
    assert [s.volatility.value for _, _, _, s in follow_up.segments() if s.expr == "question"] == ["per-request"]


CHAT_LOOP = '''
import json
from openai import OpenAI
client = OpenAI()
SYSTEM = "You answer questions about the weather."
def chat(question: str, ask):
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}]
    response = client.chat.completions.create(model="gpt-4.1", messages=messages)
    messages.append(response.choices[0].message)
    while True:
        messages.append({"role": "user", "content": ask()})
        response = client.chat.completions.create(model="gpt-4.1", messages=messages)
        messages.append(response.choices[0].message)
'''


def test_a_loop_that_appends_user_messages_after_the_reply_grows_the_history(tmp_path):
    """A chat loop appends the next turns after the first reply: what it appends is the
    conversation, and the first turn is re-sent on every pass (unchanged)."""
    in_loop = sent(layouts(tmp_path, CHAT_LOOP))[1]
    assert roles(in_loop) == ["system", "user", "history", "history"]
    assert in_loop.newest_user is None and turn_start(in_loop) is None and replays_history(in_loop)
