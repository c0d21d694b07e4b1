"""A conversation walked newest first through a method of its class (`for h, a in
chat.iter_pairs():`, the method asking for its messages `newest_first=True`, walking them
`reversed` or saying so in its docstring), kept until a budget or a count is reached: a window of
its newest turns (PRM105, python/flow/newest_iters.py). Clean: the same walk that keeps every turn
(no stop), and `reversed()` of such a method (oldest first: what it keeps stays the same)."""
from __future__ import annotations

from analysis_support import write

from promptlint import api

HISTORY = """
    class ChatHistory:
        def __init__(self):
            self._msgs = []

        def get_messages(self, newest_first: bool = False):
            return self._msgs[::-1] if newest_first else list(self._msgs)

        def iter_pairs(self):
            it = iter(self.get_messages(newest_first=True))
            for answer, question in zip(it, it):
                yield question, answer

        def recent(self):
            \"\"\"The turns, newest first.\"\"\"
            yield from self._msgs
"""

APP = """
    from history import ChatHistory


    class Rag:
        max_pairs = 5
        max_tokens = 2000

        def window(self, chat_history: ChatHistory):
            kept, used = [], 0
            for question, answer in chat_history.iter_pairs():
                cost = len(question.content) + len(answer.content)
                if used + cost > self.max_tokens or len(kept) >= self.max_pairs * 2:
                    break
                kept.append(question)
                kept.append(answer)
                used += cost
            return kept[::-1]

        def last(self, chat_history: ChatHistory):
            kept = []
            for turn in chat_history.recent():
                if len(kept) >= self.max_pairs:
                    break
                kept.append(turn)
            kept.reverse()
            return kept

        def everything(self, chat_history: ChatHistory):
            kept = []
            for question, answer in chat_history.iter_pairs():
                kept.append(question)
                kept.append(answer)
            return kept[::-1]

        def oldest(self, chat_history: ChatHistory):
            kept, used = [], 0
            for question, answer in reversed(list(chat_history.iter_pairs())):
                if used > self.max_tokens:
                    break
                kept.append(question)
                kept.append(answer)
                used += len(question.content)
            return kept
"""


def test_a_walk_newest_first_through_a_method_that_stops_at_a_budget_is_a_window(tmp_path):
    write(tmp_path, {"history.py": HISTORY, "app.py": APP})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    found = [(d.code, d.severity.value, d.span.filename.rsplit("/", 1)[-1], d.span.start.row)
             for d in report.diagnostics]
    # reported where each walk starts (no request linked: info); not the walk that keeps every
    # turn (`everything`), nor the one reversed to oldest first (`oldest`)
    assert found == [("PRM105", "info", "app.py", 10), ("PRM105", "info", "app.py", 21)]


NOTE = """
    from openai import OpenAI

    client = OpenAI()
    SYSTEM = "You summarise conversations for the team, keeping decisions and open questions. " * 10


    def count(m):
        return len(m["content"]) // 4


    def window(head, body, budget):
        kept, used = [], 0
        for msg in reversed(body):
            if used + count(msg) > budget:
                break
            kept.append(msg)
            used += count(msg)
        dropped = len(body) - len(kept)
        kept.reverse()
        if dropped:
            kept.insert(0, {"role": "system", "content": f"[{dropped} older messages omitted to fit the window]"})
        return head + kept


    def reply(history, question):
        messages = window([{"role": "system", "content": SYSTEM}], history, 4000)
        return client.chat.completions.create(model="gpt-4o", messages=[*messages, {"role": "user", "content": question}])
"""


def test_a_note_derived_from_a_cut_put_at_the_head_of_the_kept_list_costs_no_history(tmp_path):
    # the count of dropped messages changes only when the window moves: no warning that it costs
    # the history after it; the window itself is reported where the walk starts
    write(tmp_path, {"app.py": NOTE})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    found = [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics]
    # (the note is drawn as a second system message before the kept history since s33-tpl's list heads:
    # PRM107 at info, as PRM101 was; the loss is the window's, reported at warning)
    assert found == [("PRM105", "warning", 13), ("PRM107", "info", 21)]
