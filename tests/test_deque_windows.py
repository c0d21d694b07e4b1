"""PRM105 facts: a conversation kept in a bounded deque (`deque(maxlen=N)`), the conversation by
its name or by a loop that writes each item as a user turn and an assistant turn."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.deque_windows import deque_windows
from promptlint.python.module import load

from analysis_support import code, write


def _found(source: str):
    module = load(Path("app.py"), code(source))
    return [(bound.lineno, held, why) for bound, held, why in deque_windows(module)]


KEPT = """
    from collections import deque
    import collections


    class Tutor:
        def __init__(self, turns_kept=6):
            self.turns_kept = turns_kept
            self.notes = {}
            self.history: collections.deque = collections.deque([], 8)

        def ask(self, question, learner):
            if learner not in self.notes:
                self.notes[learner] = deque(maxlen=self.turns_kept)
            lines = []
            for asked, said in self.notes[learner]:
                lines.append(f"Q: {asked}\\nA: {said}")
            past = "\\n".join(lines)
            reply = self.llm(f"{past}\\nquestion: {question}")
            self.notes[learner].append((question, reply))
            return reply
"""


def test_a_deque_named_as_the_conversation_or_written_as_turns_is_a_window():
    assert _found(KEPT) == [
        (9, "self.history", "`history`, named as the conversation"),
        (13, "self.notes[learner]", "each item of `notes` is written as a user turn and an assistant turn (line 15)"),
    ]


CLEAN = """
    from collections import deque


    class Limiter:
        def __init__(self):
            self.stamps = deque(maxlen=100)               # request times, never written into a prompt
            self.history = deque()                        # unbounded
            self.recent = deque(maxlen=None)

        def render(self):
            return "\\n".join(f"at {t}" for t in self.stamps)
"""


def test_an_unbounded_deque_or_one_of_other_things_is_not_a_window():
    assert _found(CLEAN) == []


def test_the_prefilter_lets_a_file_with_a_bounded_deque_of_turns_be_analysed():
    from promptlint.python.prefilter import might_hold_prompt
    assert might_hold_prompt(code(KEPT))
    assert not might_hold_prompt("from collections import deque\nq = deque(maxlen=5)\n")


def test_the_rule_reports_the_bound_at_info(tmp_path):
    write(tmp_path, {"app.py": KEPT})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics] == [
        ("PRM105", "info", 9), ("PRM105", "info", 13)]


RECORDS = """
    from collections import deque


    class LoopDetector:
        def __init__(self, window_size=10):
            self._history: deque[tuple[str, str]] = deque(maxlen=window_size)
            self.turns = deque(maxlen=window_size)
            self.history_times = deque(maxlen=50)

        def process(self, event, started):
            key = (event.name, event.arguments)
            self._history.append(key)
            self.turns.append((event.name, 1))
            self.history_times.append(0.5)
            tail = list(self._history)[-3:]
            return all(k == key for k in tail)
"""


def test_a_deque_named_history_whose_items_are_not_messages_is_no_window():
    # (tool name, arguments) keys, typed as tuples or appended as tuples, numbers: a record the code
    # compares, never sent; the name alone is no evidence
    assert _found(RECORDS) == []


KEPT_MESSAGES = """
    from collections import deque


    class Chat:
        def __init__(self):
            self.history = deque(maxlen=20)
            self.pairs: deque[tuple[str, str]] = deque(maxlen=5)

        def ask(self, question):
            self.history.append({"role": "user", "content": question})
            past = "\\n".join(f"User: {q}\\nAssistant: {a}" for q, a in self.pairs)
            reply = self.llm(list(self.history), past)
            self.history.append({"role": "assistant", "content": reply})
            self.pairs.append((question, reply))
            return reply
"""


def test_a_deque_of_messages_named_as_the_conversation_or_of_pairs_written_as_turns_is_still_a_window():
    assert _found(KEPT_MESSAGES) == [
        (6, "self.history", "`history`, named as the conversation"),
        (7, "self.pairs", "each item of `pairs` is written as a user turn and an assistant turn (line 11)"),
    ]
