"""python/flow/class_facts.holds_conversation: a list an instance grows is the conversation by its
name or by the messages its methods add to it (written there, bound to a name first, a parameter
annotated with a message class, a role dict, a `(role, text)` pair); a list of other items is not."""
from __future__ import annotations

import ast
import textwrap

from promptlint.python.flow.class_facts import holds_conversation

STORES = textwrap.dedent('''
    class Keeper:
        def __init__(self):
            self.chat_log = []
            self.entries = []
            self.pairs = []
            self.rows = []
            self.shown = []
            self.events = []
            self.bits = []

        def add(self, text: str, reply: "AssistantReply", shown: Message):
            self.chat_log.append(text)
            made = HumanMessage(content=text)
            self.entries.append(made)
            self.pairs += [("human", text), ("ai", reply)]
            self.rows.extend([{"role": "user", "content": text}])
            self.shown.append(shown)
            self.events.append({"kind": "added", "text": text})
            self.bits.append(text.upper())
''')


def test_a_grown_list_is_the_conversation_by_its_name_or_the_messages_added_to_it():
    cls = ast.parse(STORES).body[0]
    found = {attr: holds_conversation(cls, attr) for attr in
             ("chat_log", "entries", "pairs", "rows", "shown", "events", "bits")}
    assert found == {"chat_log": True, "entries": True, "pairs": True, "rows": True, "shown": True,
                     "events": False, "bits": False}
