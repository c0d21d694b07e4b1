"""Older messages of a conversation rewritten in place, picked by a test (PRM105,
python/inplace_rewrites.py): info where the rewrite is called, the write related."""
from __future__ import annotations

from analysis_support import write

from promptlint import api

STORE = """
    from openai import OpenAI

    client = OpenAI()


    class Reads:
        def __init__(self):
            self.entries = {}

        def compact(self, messages: list) -> None:
            newest = {}
            for i in sorted(self.entries):
                newest[self.entries[i]] = i
            for i, key in list(self.entries.items()):
                if newest[key] != i:
                    self._elide(messages, i)

        def _elide(self, messages: list, index: int) -> None:
            messages[index]["content"] = "[superseded: read again later]"


    def run(reads: Reads, messages: list):
        while True:
            reads.compact(messages)
            reply = client.chat.completions.create(model="gpt-4.1", messages=messages)
            messages.append({"role": "assistant", "content": reply.choices[0].message.content})
"""


def _found(tmp_path, source):
    write(tmp_path, {"app.py": source})
    return [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
            for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics if d.code == "PRM105"]


def test_an_older_read_elided_when_a_newer_one_exists_is_a_rewrite(tmp_path):
    assert _found(tmp_path, STORE) == [("PRM105", "info", 16, [19])]


def test_every_message_rewritten_the_same_way_is_not_one(tmp_path):
    """A format conversion of every message writes the same text on every call."""
    assert _found(tmp_path, STORE.replace("if newest[key] != i:", "if key:")) == []
