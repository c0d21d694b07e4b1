"""A cache breakpoint set by a statement in a loop over the conversation: on every message, or
only on the loop's last item (item_markers.marks_last_only), judged by PRM304."""
import ast
import textwrap

from promptlint.api import check
from promptlint.python.item_markers import marks_last_only

SEND = """
from anthropic import Anthropic

client = Anthropic()


def as_params(turns):
    messages = []
    for i, turn in enumerate(turns):
        content = [{"type": "text", "text": turn.text}]
        {guard}
            content[-1]["cache_control"] = {"type": "ephemeral"}
        messages.append({"role": turn.role, "content": content})
    return messages


def send(turns):
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=1024, messages=as_params(turns))
"""


def _codes(tmp_path, guard: str):
    (tmp_path / "app.py").write_text(SEND.replace("{guard}", guard))
    report = check([str(tmp_path)])
    return [(d.code, d.severity.value) for d in report.diagnostics if d.code == "PRM304"]


def test_a_breakpoint_on_every_message_of_a_loop_is_too_many(tmp_path):
    assert _codes(tmp_path, "if True:") == [("PRM304", "error")]


def test_a_breakpoint_on_the_last_turn_only_is_one(tmp_path):
    assert _codes(tmp_path, "if i == len(turns) - 1:") == []


def test_the_last_item_tested_through_a_name_or_by_identity():
    func = ast.parse(textwrap.dedent("""
        def f(turns, flags):
            for i, t in enumerate(turns):
                is_last_turn = i == len(turns) - 1
                if flags and is_last_turn:
                    t["cache_control"] = 1
                if t is turns[-1]:
                    t["cache_control"] = 2
                if i == 0 or is_last_turn:
                    t["cache_control"] = 3
                t["cache_control"] = 4
    """)).body[0]
    targets = [n.targets[0] for n in ast.walk(func) if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Subscript)]
    assert [marks_last_only(func, t) for t in sorted(targets, key=lambda t: t.lineno)] == [True, True, False, False]


IN_PLACE = """
from anthropic import Anthropic

client = Anthropic()


def mark(messages):
    for i, message in enumerate(messages):
        {guard}
            message["content"][-1]["cache_control"] = {"type": "ephemeral"}
    return messages


def send(history):
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=1024, messages=mark(history))
"""


def _in_place(tmp_path, guard: str):
    (tmp_path / "app.py").write_text(IN_PLACE.replace("{guard}", guard))
    report = check([str(tmp_path)])
    return [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics if d.code == "PRM304"]


def test_the_callers_list_marked_in_place_and_handed_back_carries_a_breakpoint_per_message(tmp_path):
    # the list is the caller's own (a parameter of unknown length): one breakpoint per message of it
    assert _in_place(tmp_path, "if True:") == [("PRM304", "error", 10)]  # at the marker


def test_the_callers_list_marked_on_its_last_message_only_is_one_breakpoint(tmp_path):
    assert _in_place(tmp_path, "if i == len(messages) - 1:") == []


EXAMPLES_THEN_QUESTION = """
import anthropic

client = anthropic.Anthropic()
CC = {"type": "ephemeral"}


def ask(system, examples, question):
    msgs = []
    for u, a in examples:
        msgs.append({"role": "user", "content": u})
        msgs.append({"role": "assistant", "content": a})
    msgs.append({"role": "user", "content": [{"type": "text", "text": question, "cache_control": CC}]})
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=100,
                                  system=[{"type": "text", "text": system, "cache_control": CC}], messages=msgs)
"""


def test_a_breakpoint_on_a_message_added_once_after_the_loop_is_one(tmp_path):
    # the few-shot pairs are appended in the loop, the question with its breakpoint once after it:
    # two breakpoints in all, not one per message (from a new user's trial: fenic's convert_messages)
    (tmp_path / "app.py").write_text(EXAMPLES_THEN_QUESTION)
    assert [d.code for d in check([str(tmp_path)]).diagnostics if d.code == "PRM304"] == []
    in_loop = EXAMPLES_THEN_QUESTION.replace(
        '        msgs.append({"role": "assistant", "content": a})\n',
        '        msgs.append({"role": "assistant", "content": [{"type": "text", "text": a, "cache_control": CC}]})\n')
    (tmp_path / "app.py").write_text(in_loop)
    assert [(d.code, d.severity.value, d.span.start.row) for d in check([str(tmp_path)]).diagnostics
            if d.code == "PRM304"] == [("PRM304", "error", 12)]


COUNTED = """
from anthropic import Anthropic

client = Anthropic()


def as_params(turns):
    messages = []
    used = 0
    since = 0
    for turn in turns:
        since += len(turn.text) // 4
        content = [{"type": "text", "text": turn.text}]
        if since >= 1024 and {guard}:
            content[-1]["cache_control"] = {"type": "ephemeral"}
            used += 1
            since = 0
        messages.append({"role": turn.role, "content": content})
    return messages


def send(turns):
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=1024, messages=as_params(turns))
"""


def _counted(tmp_path, guard: str):
    (tmp_path / "app.py").write_text(COUNTED.replace("{guard}", guard))
    report = check([str(tmp_path)])
    return [(d.code, d.span.start.row, d.message) for d in report.diagnostics if d.code == "PRM304"]


def test_a_counter_that_stops_the_loop_at_the_limit_sets_no_breakpoint_too_many(tmp_path):
    # `used < 4` and `used <= 3`: at most 4 breakpoints, what Anthropic allows
    assert _counted(tmp_path, "used < 4") == []
    assert _counted(tmp_path, "used <= 3") == []
    assert _counted(tmp_path, "4 > used") == []


def test_a_counter_that_stops_the_loop_past_the_limit_is_counted_at_its_number(tmp_path):
    assert _counted(tmp_path, "used < 5") == [
        ("PRM304", 15, "Up to 5 cache breakpoints in one request: a loop over the messages sets up to 5 of them once "
                       "the conversation is long enough; claude-sonnet-4-5 allows 4: the API rejects the request then")]


def test_a_count_set_again_on_every_message_is_no_cap(tmp_path):
    # `used = 0` inside the loop: the test holds on every message
    source = COUNTED.replace("{guard}", "used < 2").replace("        since += len", "        used = 0\n        since += len")
    (tmp_path / "app.py").write_text(source)
    report = check([str(tmp_path)])
    assert [(d.code, d.span.start.row) for d in report.diagnostics if d.code == "PRM304"] == [("PRM304", 16)]
