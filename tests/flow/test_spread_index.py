"""flow/spread_index.py: an index of a list that holds a spread list reaches into the spread, not
the item written after it: `messages[0]` of the kept conversation with the user's message appended
is an early message of the conversation (its first messages added in `__init__` by a method), never
the user's message."""
from __future__ import annotations

from analysis_support import probe

from promptlint.model import Kind

AGENT = """
    class Agent:
        def __init__(self, system_prompt=None):
            self.messages = []
            self.add_system_prompt(system_prompt or "You are a helpful assistant.")

        def add_system_prompt(self, system_prompt):
            self.messages.append({"role": "system", "content": system_prompt})

        def add_message(self, text):
            self.messages.append({"role": "user", "content": text})

        def respond(self, user_message=None, messages=None):
            if messages is None:
                messages = self.messages
            if user_message:
                messages.append({"role": "user", "content": user_message})
            probe(messages[0])
            probe(messages[-1])


    def build(history, question, images):
        probe([*history, {"role": "user", "content": question}][0])
        probe([{"role": "system", "content": "Be brief."}, *history][0]["content"])
        probe([*images, question][0])
"""


def test_the_first_message_of_a_kept_conversation_with_a_message_appended_is_an_early_message(tmp_path):
    seg = probe(tmp_path, AGENT, index=0).segs[0]
    assert seg.kind is Kind.UNKNOWN and "an early message of the conversation `self.messages`" in seg.evidence


def test_the_last_item_is_the_message_appended(tmp_path):
    seg = probe(tmp_path, AGENT, index=1).segs[0]
    assert seg.kind is Kind.USER_INPUT and "`user_message`" in seg.evidence


def test_an_index_past_the_items_written_before_a_spread_lands_in_it(tmp_path):
    seg = probe(tmp_path, AGENT, index=2).segs[0]
    assert seg.kind is not Kind.USER_INPUT
    assert probe(tmp_path, AGENT, index=3).text == "Be brief."  # written before the spread: itself
    assert all(s.expr != "question" for s in probe(tmp_path, AGENT, index=4).segs)
