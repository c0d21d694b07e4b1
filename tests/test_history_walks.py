"""PRM105: a conversation rebuilt each turn by a walk over it, or edited in place after it is sent
(the twenty-ninth session's shapes). Fixtures under fixtures/history_walks/."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "history_walks"


def _report(name):
    report = api.check([FIXTURES / name], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related], d.message)
            for d in report.diagnostics]


def test_a_kept_list_flattened_with_its_newest_groups_whole_is_found_at_the_flag_it_tests():
    # `flatten` walks `self.groups` (grown by `new_group`) and tells the newest groups apart through a
    # flag (`is_tail = i >= len(self.groups) - keep`); the display copy and the plain walk are not found
    found = _report("kept_groups.py")
    assert [(code, sev, row, related) for code, sev, row, related, _ in found] == [("PRM105", "info", 18, [16])]
    assert found[0][4].startswith("The conversation is rendered here (into text or messages) with its newest turns written apart")


def test_steps_rendered_with_images_for_the_newest_few_are_found_through_the_names_read_from_the_step():
    # `thought = step["thought"]` is the step's own value: the branches render the step two ways; the
    # log helper and the walk that renders every step alike are not found
    found = _report("step_history.py")
    assert [(code, sev, row, related) for code, sev, row, related, _ in found] == [("PRM105", "info", 12, [10])]


def test_a_sent_messages_images_cleared_after_the_send_are_found_with_the_send_related():
    # only `ask_with_screenshot`: the reply added before the write, the function's own copy and a
    # list of its own are not the sent caller's messages
    found = [f for f in _report("sent_then_cleared.py") if f[0] == "PRM105"]
    assert [(code, sev, row, related) for code, sev, row, related, _ in found] == [("PRM105", "info", 13, [12])]
    assert found[0][4].startswith("A field of a message of the conversation is cleared or replaced here, after")


def test_messages_stored_with_an_expiry_each_are_found_where_the_expiry_is_given():
    # `PerMessageHistory` only: a session list whose expiry is renewed, a store that keeps no
    # conversation, and no expiry are not found
    found = [f for f in _report("expiring_store.py") if f[0] == "PRM105"]
    assert [(code, sev, row) for code, sev, row, _, _ in found] == [("PRM105", "info", 17)]
    assert found[0][4].startswith("Each message is stored here with an expiry of its own")


def test_messages_stored_field_by_field_without_tool_calls_are_found_at_their_content():
    # `FieldHistory` only: a message stored whole, one stored with its tool calls, and a new message made
    # from a received one's content for another agent (nothing stored: `PlanChatManager`) are not found
    found = [f for f in _report("stored_records.py") if f[0] == "PRM105"]
    assert [(code, sev, row) for code, sev, row, _, _ in found] == [("PRM105", "info", 15)]
    assert found[0][4].startswith("A message is stored here field by field, without its tool calls")


def test_older_messages_rendered_otherwise_once_a_newest_first_walk_has_passed_the_newest_are_found():
    # the flag `found_last` set once the newest assistant message is passed: the older ones are
    # sent without their reasoning; a walk that only notes the newest user message renders all alike
    found = [f for f in _report("newest_reasoning.py") if f[0] == "PRM105"]
    assert [(code, sev, row, related) for code, sev, row, related, _ in found] == [("PRM105", "info", 14, [12])]


def test_older_messages_given_placeholders_in_place_by_their_place_from_the_end_are_found():
    # one finding per walk, at its first write, the walk related; a copy, a breakpoint, a read and
    # the newest message are not found
    found = [f for f in _report("older_placeholders.py") if f[0] == "PRM105"]
    assert [(code, sev, row, related) for code, sev, row, related, _ in found] == [
        ("PRM105", "info", 18, [13]), ("PRM105", "info", 29, [27]), ("PRM105", "info", 39, [37])]
    assert found[0][4].startswith("A message older than the newest few of the conversation is rewritten in place")
