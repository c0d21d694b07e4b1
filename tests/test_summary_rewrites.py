"""The history replaced by a summary made again on every call (PRM105, python/summary_rewrites.py):
info where the summary message is made, and the list handed back is no request of its own (no
PRM101 for the summary at its head); a summary kept on the instance, the history handed back
as it is, is not one."""
from __future__ import annotations

from analysis_support import write

from promptlint import api

AGENT = """
    from openai import OpenAI

    client = OpenAI()


    def chat(messages):
        return client.chat.completions.create(model="gpt-4.1", messages=messages).choices[0].message.content


    class Agent:
        def __init__(self):
            self.history = []
            self.limit = 3000

        def _get_compressed_history(self):
            history = self.history[:]
            message = [{{"role": "user", "content": f"Please summarize this conversation: {{history}}"}}]
            {test}
            summary = chat(message)
            {kept} = [{{"role": "system", "content": summary}}]
            return history
"""


def _found(tmp_path, test, kept="history"):
    write(tmp_path, {"agent.py": AGENT.format(test=test, kept=kept)})
    return [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
            for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics if d.code in ("PRM101", "PRM105")]


def test_a_summary_made_on_every_call_and_handed_back_as_the_history_rewrites_it(tmp_path):
    assert _found(tmp_path, "if not history:\n                return []") == [("PRM105", "info", 21, [20])]
    # (also when it is made only past a size bound: not kept, it is made again on every later call)
    assert _found(tmp_path, "if len(history) < self.limit:\n                return history") == [
        ("PRM105", "info", 21, [20])]


def test_a_summary_kept_on_the_instance_and_the_history_handed_back_as_it_is_is_not_one(tmp_path):
    assert [f for f in _found(tmp_path, "pass", kept="self.summary") if f[0] == "PRM105"] == []
