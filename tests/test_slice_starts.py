"""PRM105: a conversation sliced from a start kept in a local name (`start = len(history) - keep`,
then `history[start:]`) is cut to its newest messages as `history[len(history) - keep:]` is; a
start bound to a constant (`history[skip:]` after `skip = 1`) drops the same leading messages
on every turn and is no window."""
from __future__ import annotations

from promptlint import api

from analysis_support import code, write

KEPT = """
    from openai import OpenAI


    class History:
        def __init__(self, keep=20):
            self.messages = []
            self.keep = keep

        def add(self, message):
            self.messages.append(message)

        def reduce(self):
            history = self.messages
            if len(history) <= self.keep:
                return None
            {bind}
            self.messages = history[start:]
            return self


    def chat(client, h: History, text: str):
        h.add({{"role": "user", "content": text}})
        h.reduce()
        return client.chat.completions.create(
            model="gpt-4.1", messages=[{{"role": "system", "content": "You are terse."}}, *h.messages])
"""


def _windows(tmp_path, bind: str) -> list[tuple[str, int]]:
    write(tmp_path, {"app.py": code(KEPT.format(bind=bind))})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.code, d.span.start.row) for d in report.diagnostics]  # row 17: `self.messages = history[start:]`


def test_start_counted_from_the_length_is_a_window(tmp_path):
    found = _windows(tmp_path, "start = len(history) - self.keep")
    assert found == [("PRM105", 17)]


def test_start_clamped_at_zero_is_a_window(tmp_path):
    found = _windows(tmp_path, "start = max(0, len(history) - self.keep)")
    assert found == [("PRM105", 17)]


def test_constant_start_of_the_kept_list_under_its_size_test_is_a_window(tmp_path):
    # (`self.messages = history[1:]` once it holds more than `keep`: the oldest message is dropped at
    # every add past the limit, python/stored_cuts.py; a constant start of a slice sent is no window)
    assert _windows(tmp_path, "start = 1") == [("PRM105", 17)]
