"""A conversation sliced from a start chosen by size (PRM105): `messages[k:]` where `k` is what a
function of the tree returns for the list's token counts and a budget (it searches a running
total, or compares sizes), an index stepped down in a `while` loop until a size passes a bound,
or the index of a walk over the list that returns the slice under a size test. Once the
conversation outgrows the budget its oldest messages drop out on every turn. Clean: a start
found by what an item is (the last user message), and a walk over every item."""
from __future__ import annotations

from analysis_support import write

from promptlint import api


def _found(tmp_path, source: str):
    write(tmp_path, {"app.py": source})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics if d.code == "PRM105"]


HEAD = """
    import numpy as np
    from openai import OpenAI

    client = OpenAI()
    SYSTEM = "You are a careful assistant who answers questions about the user's files. " * 20


    def count(items):
        return sum(len(str(m)) for m in items) // 4

"""

SEARCHED = HEAD + """
    def cutoff_idx(token_counts, max_tokens, *, reverse=False):
        counts = token_counts[::-1] if reverse else token_counts
        cum_tokens = np.cumsum(counts)
        cut = int(np.searchsorted(cum_tokens, max_tokens, side="right"))
        return len(token_counts) - cut if reverse else cut


    def clip(messages, max_tokens):
        token_counts = [count([m]) for m in messages]
        cut = cutoff_idx(token_counts, max_tokens, reverse=True)
        if cut == len(messages):
            return messages[-1:]
        return messages[cut:]


    def reply(messages, max_tokens):
        return client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "system", "content": SYSTEM}, *clip(messages, max_tokens)])
"""

STEPPED = HEAD + """
    def clip(messages, budget):
        start = len(messages)
        used = 0
        while start > 0 and used + count([messages[start - 1]]) <= budget:
            start -= 1
            used += count([messages[start]])
        return messages[start:]


    def reply(messages, budget):
        return client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "system", "content": SYSTEM}, *clip(messages, budget)])
"""

WALKED = HEAD + """
    def clip(messages, budget):
        for i in range(len(messages)):
            if count(messages[i:]) <= budget:
                return messages[i:]
        return messages[-1:]


    def reply(messages, budget):
        return client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "system", "content": SYSTEM}, *clip(messages, budget)])
"""

WALKED_PAST = HEAD + """
    def clip(messages, budget):
        counts = [count([m]) for m in messages]
        total = sum(counts)
        if total < budget:
            return messages
        for i in range(1, len(messages) - 1):
            if total < budget:
                return messages[:1] + messages[i + 1:]
            total -= counts[i]
        return messages[:1] + messages[-1:]


    def reply(history, budget):
        return client.chat.completions.create(model="gpt-4o", messages=clip(history, budget))
"""

CLEAN_PAST = HEAD + """
    def after_system(messages):
        for i in range(len(messages)):
            if messages[i]["role"] != "system":
                return messages[:1] + messages[i + 1:]
        return messages


    def reply(history):
        return client.chat.completions.create(model="gpt-4o", messages=after_system(history))
"""

CALLERS = SEARCHED + """

    def ask(history, question):
        working = list(history)
        working.append({"role": "user", "content": question})
        return reply(working, 3000)


    def follow_up(history):
        return reply([*history, {"role": "system", "content": "Answer now."}], 3000)
"""

CLEAN = HEAD + """
    def last_index(messages, role):
        for i in range(len(messages) - 1, -1, -1):
            if messages[i]["role"] == role:
                return i
        return 0


    def guarded_index(messages, role):
        if len(messages) > 1:
            for i in range(len(messages) - 1, -1, -1):
                if messages[i]["role"] == role:
                    return i
        return 0


    def after_first(messages):
        for i in range(len(messages)):
            if i > 0 and messages[i]["role"] == "user":
                return messages[i:]
        return messages


    def since_user(messages):
        idx = last_index(messages, "user")
        return messages[idx:]


    def since_guarded(messages):
        idx = guarded_index(messages, "user")
        return messages[idx:]


    def since_user_inline(messages):
        idx = max(i for i, m in enumerate(messages) if m["role"] == "user")
        return messages[idx:]


    def from_start(messages):
        i = 0
        while i < len(messages) and messages[i]["role"] == "system":
            i += 1
        return messages[i:]


    def reply(messages):
        return client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "system", "content": SYSTEM}, *since_user(messages)])


    def reply_guarded(messages):
        return client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "system", "content": SYSTEM}, *since_guarded(messages)])


    def reply_first(messages):
        return client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "system", "content": SYSTEM}, *after_first(messages)])


    def reply_inline(messages):
        return client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "system", "content": SYSTEM}, *since_user_inline(messages)])


    def reply_rest(messages):
        return client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "system", "content": SYSTEM}, *from_start(messages)])
"""


def test_a_start_a_helper_searches_in_the_running_token_counts_is_a_window(tmp_path):
    # cut where the request sends it after the static system prompt: a warning at the slice
    assert _found(tmp_path, SEARCHED) == [("PRM105", "warning", 24)]


def test_the_searched_start_cuts_the_conversation_each_caller_hands_in(tmp_path):
    # (`messages` takes one list per caller: each is cut there)
    assert _found(tmp_path, CALLERS) == [("PRM105", "warning", 24)]


def test_an_index_stepped_down_until_the_budget_is_passed_is_a_window(tmp_path):
    assert _found(tmp_path, STEPPED) == [("PRM105", "warning", 18)]


def test_a_walk_that_returns_the_slice_once_it_fits_is_a_window(tmp_path):
    assert _found(tmp_path, WALKED) == [("PRM105", "warning", 15)]


def test_a_start_found_by_a_role_or_a_walk_over_every_item_is_no_window(tmp_path):
    assert _found(tmp_path, CLEAN) == []


def test_a_walk_that_keeps_the_items_after_the_index_once_it_fits_is_a_window(tmp_path):
    # `messages[:1] + messages[i + 1:]` once the running total is under the budget: the start is a
    # constant step from the walked index; the request sends the cut list: a warning
    assert _found(tmp_path, WALKED_PAST) == [("PRM105", "warning", 19)]


def test_the_items_after_an_index_found_by_a_role_are_no_window(tmp_path):
    assert _found(tmp_path, CLEAN_PAST) == []
