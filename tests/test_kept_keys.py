"""The conversation's newest groups kept by their keys, the others marked excluded or removed
(PRM105, python/kept_keys.py): info at the slice that keeps the newest keys, with the statement
that leaves one out as a related place; the bound may be the instance's setting."""
from __future__ import annotations

from analysis_support import write

from promptlint import api

SLIDING = """
    def set_excluded(message, excluded: bool, reason: str) -> bool:
        message.excluded = excluded
        return True


    def group_ids(messages: list) -> list:
        return [m.group_id for m in messages]


    class SlidingWindowStrategy:
        def __init__(self, *, keep_last_groups: int) -> None:
            self.keep_last_groups = keep_last_groups

        async def __call__(self, messages: list) -> bool:
            grouped = {m.group_id: [m] for m in messages}
            ids = [g for g in group_ids(messages) if g != "system"]
            keep_ids = set(ids[-self.keep_last_groups:])
            changed = False
            for group_id in ids:
                if group_id in keep_ids:
                    continue
                for message in grouped.get(group_id, []):
                    changed = set_excluded(message, excluded=True, reason="sliding_window") or changed
            return changed
"""

#: The same walk that only collects the older messages into a list of its own: what it is for is
#: not known (a summary's input, a log), no window.
COLLECTS = SLIDING.replace("changed = set_excluded(message, excluded=True, reason=\"sliding_window\") or changed",
                           "older.append(message)").replace("changed = False", "older = []\n            changed = False")


def _found(tmp_path, source):
    write(tmp_path, {"app.py": source})
    return [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
            for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics]


def test_the_newest_groups_kept_by_key_with_a_bound_of_the_instance_are_a_window(tmp_path):
    found = _found(tmp_path, SLIDING)
    assert found == [("PRM105", "info", 17, [23])]


def test_a_bound_written_as_a_constant_is_the_same_window(tmp_path):
    assert _found(tmp_path, SLIDING.replace("ids[-self.keep_last_groups:]", "ids[-20:]")) == [("PRM105", "info", 17, [23])]


REMOVES = """
    def history_window(messages: list, keep_turns: int = 8) -> list:
        turns = [m["turn"] for m in messages]
        kept = set(turns[-keep_turns:])
        for message in list(messages):
            if message["turn"] not in kept:
                messages.remove(message)
        return messages
"""


def test_older_messages_removed_from_the_conversation_by_key(tmp_path):
    assert _found(tmp_path, REMOVES) == [("PRM105", "info", 3, [6])]


def test_older_messages_only_collected_into_another_list_are_not_one(tmp_path):
    assert "older.append(message)" in COLLECTS
    assert _found(tmp_path, COLLECTS) == []
