"""PRM105: a walk by index over the newest items of the conversation only (`for i in
range(max(0, len(history) - k), len(history))`, the length also bound to a name first), each
item added to the request's messages: a window of the newest k, as `for m in history[-k:]`
(python/flow/range_windows.py). Clean: a walk from a fixed start, over every item, or of the
last one."""
from __future__ import annotations

from analysis_support import write

from promptlint import api

HEAD = """
    from openai import OpenAI

    client = OpenAI()
    SYSTEM = "You answer questions about the user's project in detail. " * 40

"""

RANGED = HEAD + """
    def ask(history, question, keep=6):
        messages = [{"role": "system", "content": SYSTEM}]
        step = len(history)
        for idx in range(max(0, step - keep), step):
            messages.append({"role": history[idx]["role"], "content": history[idx]["content"]})
        messages.append({"role": "user", "content": question})
        return client.chat.completions.create(model="gpt-4o", messages=messages)


    def ask_direct(history, question, keep=6):
        messages = [{"role": "system", "content": SYSTEM}]
        for i in range(len(history) - keep, len(history)):
            messages.append(history[i])
        messages.append({"role": "user", "content": question})
        return client.chat.completions.create(model="gpt-4o", messages=messages)
"""

CLEAN = HEAD + """
    def ask(history, question):
        messages = [{"role": "system", "content": SYSTEM}]
        for idx in range(1, len(history)):                  # a fixed head left out: no window
            messages.append(history[idx])
        for idx in range(len(history) - 1, len(history)):   # the last one only
            messages.append(history[idx])
        for idx in range(0, len(history)):                  # every item
            messages.append(history[idx])
        messages.append({"role": "user", "content": question})
        return client.chat.completions.create(model="gpt-4o", messages=messages)
"""


def _found(tmp_path, source):
    write(tmp_path, {"app.py": source})
    return [(d.code, d.severity.value, d.span.start.row)
            for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics if d.code == "PRM105"]


def test_a_walk_by_index_over_the_newest_items_only_is_a_window(tmp_path):
    assert _found(tmp_path, RANGED) == [("PRM105", "warning", 10), ("PRM105", "warning", 18)]


def test_a_walk_from_a_fixed_start_over_every_item_or_of_the_last_one_is_no_window(tmp_path):
    assert _found(tmp_path, CLEAN) == []
