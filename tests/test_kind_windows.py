"""The oldest messages of a kind dropped beyond a limit (PRM105, python/kind_windows.py): info where
the excess is taken, with the statement that drops one as a related place."""
from __future__ import annotations

from analysis_support import write

from promptlint import api

POPS = """
    class Caller:
        def __init__(self, system_prompt: str):
            self.max_images = 5
            self.message_history: list = [{"role": "user", "content": system_prompt}]

        def add_screenshot(self, image: dict) -> None:
            self.message_history.append({"role": "user", "content": [image]})
            count = self._count_images()
            if count <= self.max_images:
                return
            excess = count - self.max_images
            removed, i = 0, 1
            while i < len(self.message_history) and removed < excess:
                if isinstance(self.message_history[i]["content"], list):
                    self.message_history.pop(i)
                    removed += 1
                else:
                    i += 1

        def _count_images(self) -> int:
            return sum(1 for m in self.message_history if isinstance(m["content"], list))
"""

STRIPS = """
    import anthropic

    MAX_IMAGES = 10


    def build(messages: list, blocks: list) -> list:
        messages.append({"role": "user", "content": blocks})
        count = 0
        for m in messages:
            if any(b.get("type") == "image" for b in m["content"]):
                count += 1
        to_strip = count - MAX_IMAGES
        if to_strip > 0:
            kept = []
            for m in messages:
                if to_strip > 0 and any(b.get("type") == "image" for b in m["content"]):
                    to_strip -= 1
                    m = {"role": m["role"], "content": [b for b in m["content"] if b.get("type") != "image"]}
                kept.append(m)
            messages = kept
        return messages


    def send(client, messages: list, blocks: list):
        return client.messages.create(model="claude-sonnet-4-5", max_tokens=1024, messages=build(messages, blocks))
"""


def _found(tmp_path, source):
    write(tmp_path, {"app.py": source})
    return [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
            for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics]


def test_the_oldest_screenshots_popped_beyond_a_limit_are_a_window(tmp_path):
    # one finding for the one cause: the pop is also what python/memory_windows.py finds (a memory
    # class that cuts the conversation it grows), named here as the related place
    assert _found(tmp_path, POPS) == [("PRM105", "info", 11, [15])]


def test_the_oldest_images_stripped_beyond_a_limit_are_a_window(tmp_path):
    assert _found(tmp_path, STRIPS)[0] == ("PRM105", "info", 12, [17])


def test_an_excess_that_no_walk_of_the_conversation_drops_is_not_one(tmp_path):
    """The excess only reported, or items dropped from a list that is not the conversation."""
    assert _found(tmp_path, POPS.replace("self.message_history.pop(i)", "print(i)")) == []
    assert [f for f in _found(tmp_path, STRIPS.replace("to_strip -= 1", "pass")) if f[0] == "PRM105"] == []
    assert [f for f in _found(tmp_path, STRIPS.replace("for m in messages:", "for m in blocks:"))
            if f[0] == "PRM105"] == []
