"""A cache breakpoint written in place into the newest message of a conversation kept from turn to
turn (python/kept_marks.py): one more every turn, so Anthropic rejects the request once it carries
more than 4 (PRM304: an error when the code keeps the list, info when it is the callers'); counted
and capped, the older ones stay and the newest turns go unmarked (PRM302). Fixtures:
fixtures/kept_marks (its README says what each file shows)."""
from __future__ import annotations

import shutil
from pathlib import Path

from analysis_support import fixture_findings, write

from promptlint import api
from promptlint.python.kept_marks import kept_marks
from promptlint.python.module import load

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "kept_marks"


def _found(tmp_path, name):
    return [(d.code, d.severity.value, d.span.start.row, d.span.start.column,
             [r.span.start.row for r in d.related]) for d in fixture_findings(FIXTURE, name, tmp_path)]


def _facts(tmp_path, source):
    write(tmp_path, {"app.py": source})
    path = tmp_path / "app.py"
    return [(m.node.lineno, m.holder, m.kept, m.caller.lineno if m.caller else None, m.capped is not None)
            for m in kept_marks(load(path, path.read_text()))]


def test_a_chat_that_marks_the_newest_message_of_the_list_it_grows_is_rejected_after_a_few_turns(tmp_path):
    assert _found(tmp_path, "kept_chat.py") == [("PRM304", "error", 15, 9, [])]
    message = fixture_findings(FIXTURE, "kept_chat.py", tmp_path)[0].message
    assert "`self.messages`" in message and "`Chat.ask` grows it" in message
    assert "more than 4 (a 400 error), from the 5th turn at the latest" in message


def test_a_copy_marked_the_older_marks_removed_or_the_same_first_message_marked_are_fine(tmp_path):
    assert _found(tmp_path, "copied_chat.py") == []
    assert _found(tmp_path, "stripped_chat.py") == []
    assert _found(tmp_path, "first_turn.py") == []


def test_a_helper_marking_the_list_a_loop_keeps_is_reported_at_the_marker_with_the_call(tmp_path):
    assert _found(tmp_path, "loop_helper.py") == [("PRM304", "error", 12, 5, [20])]
    assert "the loop in `main` grows it" in fixture_findings(FIXTURE, "loop_helper.py", tmp_path)[0].message


def test_callers_that_build_a_new_list_for_each_request_keep_nothing(tmp_path):
    assert _found(tmp_path, "fresh_caller.py") == []


def test_the_callers_list_marked_in_place_is_info(tmp_path):
    assert _found(tmp_path, "adapter.py") == [("PRM304", "info", 13, 17, [])]
    assert "(its callers' list)" in fixture_findings(FIXTURE, "adapter.py", tmp_path)[0].message


def test_a_converted_list_holding_the_callers_blocks_is_info_and_new_blocks_are_fine(tmp_path):
    assert _found(tmp_path, "converter.py") == [("PRM304", "info", 21, 13, [])]
    assert "the result of `to_anthropic(...)`, which holds its input's own items" in \
        fixture_findings(FIXTURE, "converter.py", tmp_path)[0].message
    assert _found(tmp_path, "converted_anew.py") == []


def test_counted_and_capped_marks_leave_the_newest_turns_unmarked(tmp_path):
    assert _found(tmp_path, "capped.py") == [("PRM302", "warning", 21, 13, [20])]


def test_the_facts_follow_names_loops_and_callers(tmp_path):
    assert _facts(tmp_path, '''
        history = []


        def mark(msgs):
            for i, m in enumerate(reversed(msgs)):
                content = m.get("content")
                if isinstance(content, str):
                    m["content"] = [{"type": "text", "text": content, "cache_control": {"type": "ephemeral"}}]
                    break
                content[-1]["cache_control"] = {"type": "ephemeral"}
                break


        def every(msgs):
            for m in msgs:
                m["content"][-1]["cache_control"] = {"type": "ephemeral"}


        def turn(text):
            history.append({"role": "user", "content": text})
            mark(history)
            every(history)
    ''') == [(8, "msgs", "the module grows it", 21, False)]  # the first statement; `every` marks each message


def test_a_top_level_key_popped_from_the_options_is_no_removal_of_the_marks(tmp_path):
    source = '''
        def mark(messages):
            messages[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}


        def send(messages, **kwargs):
            kwargs.pop("cache_control", None)
            mark(messages)
    '''
    assert _facts(tmp_path, source) == [(2, "messages", None, None, False)]
    assert _facts(tmp_path, source + '''

        def send_clean(messages):
            for m in messages:
                m["content"][-1].pop("cache_control", None)
            mark(messages)
    ''') == []  # a caller that takes the older marks off first


def test_lists_named_for_tools_or_marked_on_a_slice_that_drops_the_newest_are_not_facts(tmp_path):
    assert _facts(tmp_path, '''
        class Agent:
            def __init__(self):
                self.tools = []
                self.messages = []

            def add(self, tool, text):
                self.tools.append(tool)
                self.tools[-1]["cache_control"] = {"type": "ephemeral"}
                self.messages.append(text)
                older = self.messages[:-1]
                older[-1]["cache_control"] = {"type": "ephemeral"}
    ''') == []


def test_the_messages_of_a_request_object_are_the_callers_unless_every_caller_makes_it_anew(tmp_path):
    source = '''
        def to_bedrock(request_data):
            messages = request_data.get("messages", [])
            messages[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
            return {"messages": messages}
    '''
    assert _facts(tmp_path, source) == [(3, "request_data.messages", None, None, False)]
    assert _facts(tmp_path, source + '''

        async def handle(request):
            request_data = await request.json()
            return to_bedrock(request_data)
    ''') == []  # the body parsed for this request


def test_a_marked_message_added_to_the_kept_list_piles_up_and_one_added_to_a_copy_does_not(tmp_path):
    assert _found(tmp_path, "kept_added.py") == [("PRM304", "error", 14, 9, [])]
    assert "adds a message carrying a cache breakpoint to `self.messages`" in \
        fixture_findings(FIXTURE, "kept_added.py", tmp_path)[0].message


def test_a_loop_that_adds_marked_messages_is_reported_once_at_the_request(tmp_path):
    found = fixture_findings(FIXTURE, "loop_added.py", tmp_path)
    assert [(d.code, d.severity.value, d.span.start.row) for d in found] == [("PRM304", "error", 13)]
    assert found[0].message.startswith("A cache breakpoint set on every message of the conversation in a loop")


def test_a_copy_of_the_message_marked_itself_is_fine_but_its_shared_blocks_are_not(tmp_path):
    assert _facts(tmp_path, '''
        class Chat:
            def __init__(self):
                self.messages = []

            def ask(self, text):
                self.messages.append({"role": "user", "content": [{"type": "text", "text": text}]})
                last = self.messages[-1].copy()
                last["cache_control"] = {"type": "ephemeral"}
                blocks = list(self.messages[-1]["content"])
                blocks.append({"type": "text", "text": "ok", "cache_control": {"type": "ephemeral"}})
                for m in self.messages[::-1]:
                    m["content"][-1]["cache_control"] = {"type": "ephemeral"}
                    break
    ''') == [(12, "self.messages", "`Chat.ask` grows it", None, False)]  # the shallow copies are new objects


def _package_findings(tmp_path, name):
    shutil.copytree(FIXTURE / name, tmp_path / name)
    report = api.check([tmp_path / name], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.filename.rsplit("/", 1)[-1], d.span.start.row)
            for d in report.diagnostics if d.code == "PRM304"]


def test_a_list_the_only_caller_in_another_module_builds_for_each_request_is_not_kept(tmp_path):
    # `messages = convert(events); mark_newest(messages)` in client.py: nothing piles up
    assert _package_findings(tmp_path, "split_fresh") == []


def test_a_list_a_caller_in_another_module_keeps_is_still_reported(tmp_path):
    assert _package_findings(tmp_path, "split_kept") == [("PRM304", "info", "marking.py", 12)]
