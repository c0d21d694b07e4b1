"""PRM105: a conversation cut in its middle by a head and a tail of the same list joined
(`all_messages[:first_k] + all_messages[-last_k:]`), where the head is not read as the conversation
by its name alone (a list read from a state dict): the tail's window is reported, at info when no
request is linked, a warning when the module's request sends it as the history."""
from __future__ import annotations

from analysis_support import write

from promptlint import api

HEAD_AND_TAIL = """
    class Flow:
        def __init__(self, config, state, backend):
            self.config = config
            self.state = state
            self.backend = backend

        def previous_messages(self):
            all_messages = self.state["previous_messages"]
            first_k = self.config["first_k"]
            last_k = self.config["last_k"]
            if first_k and last_k:
                return all_messages[:first_k] + all_messages[-last_k:]
            return all_messages

        def call(self):
            return self.backend(messages=self.previous_messages())
"""

SENT = """
    from openai import OpenAI

    client = OpenAI()
    SYSTEM = "You answer questions about the user's project in detail. " * 40


    def reply(history, first_k, last_k, question):
        kept = history[:first_k] + history[-last_k:]
        return client.chat.completions.create(model="gpt-4o", messages=[
            {"role": "system", "content": SYSTEM}, *kept, {"role": "user", "content": question}])
"""

CLEAN = """
    class Flow:
        def __init__(self, config, state, backend):
            self.config = config
            self.state = state
            self.backend = backend

        def examples(self):
            all_messages = self.state["previous_messages"]
            shots = self.state["shots"]
            return all_messages[:self.config["first_k"]] + shots[-3:]    # two lists: no middle cut

        def head(self):
            all_messages = self.state["previous_messages"]
            return all_messages[:self.config["first_k"]]                 # the oldest only: fixed

        def call(self):
            return self.backend(messages=self.examples() + self.head())
"""


def _found(tmp_path, source):
    write(tmp_path, {"app.py": source})
    return [(d.code, d.severity.value, d.span.start.row)
            for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics if d.code == "PRM105"]


def test_a_head_and_a_tail_of_one_list_joined_is_a_window_in_its_middle(tmp_path):
    assert _found(tmp_path, HEAD_AND_TAIL) == [("PRM105", "info", 12)]


def test_a_head_and_a_tail_of_the_history_sent_is_a_warning(tmp_path):
    assert _found(tmp_path, SENT) == [("PRM105", "warning", 8)]


def test_a_head_alone_or_a_head_and_another_lists_tail_is_no_window(tmp_path):
    assert _found(tmp_path, CLEAN) == []
