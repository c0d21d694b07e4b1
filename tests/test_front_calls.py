"""PRM105: a conversation rebound, in a `while` loop that runs until a size fits, to what a
function of the module (or a method of the class) returns without its first items
(`rounds = self.evict(rounds)`, `def evict(self, rounds): return rounds[1:]`): the oldest dropped
on every request once the conversation is over the budget (python/flow/front_calls.py)."""
from __future__ import annotations

from analysis_support import write

from promptlint import api

HEAD = """
    from openai import OpenAI

    client = OpenAI()
    SYSTEM = "You answer questions about the user's project in detail. " * 40


    def count_tokens(messages):
        return sum(len(m["content"]) // 4 for m in messages)

"""

EVICTED = HEAD + """
    def evict(rounds):
        return rounds[1:]


    class Mapper:
        def __init__(self, limit):
            self.limit = limit

        def evict_oldest(self, rounds):
            return rounds[2:]

        def fit(self, history):
            tokens = count_tokens(history)
            while tokens > self.limit:
                history = self.evict_oldest(history)
                tokens = count_tokens(history)
            return history

        def ask(self, history, question):
            return client.chat.completions.create(model="gpt-4o", messages=[
                {"role": "system", "content": SYSTEM}, *self.fit(history), {"role": "user", "content": question}])


    def fit(history, limit):
        while count_tokens(history) > limit:
            history = evict(history)
        return history


    def ask(history, question):
        return client.chat.completions.create(model="gpt-4o", messages=[
            {"role": "system", "content": SYSTEM}, *fit(history, 3000), {"role": "user", "content": question}])
"""

CLEAN = HEAD + """
    def evict(rounds):
        return rounds[1:]


    def newest_dropped(rounds):
        return rounds[:-1]


    def once(history):
        history = evict(history)                      # not in a loop until it fits: a fixed head dropped
        return history


    def fit(history, limit):
        while count_tokens(history) > limit:
            history = newest_dropped(history)         # the newest dropped: the prefix is kept
        return history


    def ask(history, question):
        return client.chat.completions.create(model="gpt-4o", messages=[
            {"role": "system", "content": SYSTEM}, *once(history), *fit(history, 3000),
            {"role": "user", "content": question}])
"""


def _found(tmp_path, source):
    write(tmp_path, {"app.py": source})
    return [(d.code, d.severity.value, d.span.start.row)
            for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics if d.code == "PRM105"]


def test_a_conversation_rebound_to_a_function_that_drops_its_head_until_it_fits_is_a_window(tmp_path):
    assert _found(tmp_path, EVICTED) == [("PRM105", "warning", 25), ("PRM105", "warning", 36)]


def test_a_head_dropped_once_or_the_newest_dropped_until_it_fits_is_no_window(tmp_path):
    assert _found(tmp_path, CLEAN) == []
