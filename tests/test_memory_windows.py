"""PRM105 facts: a conversation kept on an instance that the method adding to it cuts (an older
item removed under a size test, also by a method of the class) or replaces on every call by a
new list (a summary of it)."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.memory_windows import memory_windows
from promptlint.python.module import load
from promptlint.python.prefilter import might_hold_prompt

from analysis_support import code, write


def _found(source: str):
    module = load(Path("app.py"), code(source))
    return [(at.lineno, held, method, how) for at, held, method, how in memory_windows(module)]


CUT = """
    class WindowMemory:
        def __init__(self, size, select=None):
            self._history = []
            self.size = size
            self.select = select or (lambda items: items[0])

        def add(self, message):
            if len(self._history) >= self.size:
                self._history.remove(self.select(self._history))
            self._history.append(message)


    class BudgetMemory:
        def __init__(self, budget):
            self.messages = []
            self.budget = budget

        def used(self):
            return sum(len(m.text) for m in self.messages)

        def forget(self, message):
            i = self.messages.index(message)
            del self.messages[i]

        def add(self, message):
            while self.messages and self.used() > self.budget:
                self.forget(self.messages[0])
            self.messages.insert(len(self.messages), message)


    class DigestMemory:
        def __init__(self, llm):
            self.conversation = []
            self.llm = llm

        def add(self, message):
            everything = [*self.conversation, message]
            digest = self.llm.summarize(everything)
            self.conversation = [{"role": "system", "content": digest}]
"""


def test_an_add_method_that_removes_an_older_message_or_replaces_the_list_is_a_window():
    assert _found(CUT) == [
        (9, "self._history", "add", "slides"),
        (27, "self.messages", "add", "slides"),
        (39, "self.conversation", "add", "rewrites"),
    ]


CLEAN = """
    class Chat:
        def __init__(self, limit):
            self.messages = []
            self.events = []
            self.limit = limit

        def add(self, message):
            if len(self.messages) > self.limit:
                self.messages.pop()                       # the newest one replaced, the prefix kept
            self.messages.append(message)
            if len(self.events) > 100:
                self.events.pop(0)                        # not the conversation
            self.events.append(message)

        def reset(self, system):
            self.messages = [system]                      # a new conversation: the old one is not read

        def compact(self, summary):
            if len(self.messages) > 50:
                self.messages = [summary]                 # cut in steps, at a limit
            self.messages.append(summary)

        def undo(self):
            self.messages.pop(0)                          # not where messages are added
"""


def test_a_newest_item_dropped_another_list_a_reset_or_a_cut_in_steps_is_not_a_window():
    assert _found(CLEAN) == []


def test_the_prefilter_lets_a_memory_class_that_cuts_its_messages_be_analysed():
    assert might_hold_prompt(code(CUT))
    assert not might_hold_prompt("class Q:\n    def add(self, x):\n        self.items.pop(0)\n")


def test_the_rule_reports_the_cut_at_info(tmp_path):
    write(tmp_path, {"app.py": CUT})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics] == [
        ("PRM105", "info", 9), ("PRM105", "info", 27), ("PRM105", "info", 39)]


UNDONE = """
    class Session:
        def __init__(self):
            self.turns = []

        async def send(self, content):
            turn = object()
            self.turns.append(turn)
            try:
                await self._send(content)
            except BaseException:
                if turn in self.turns:
                    self.turns.remove(turn)               # the item just added, taken back: no size test
                raise
"""


def test_an_item_taken_back_under_a_test_of_no_size_is_not_a_window():
    assert _found(UNDONE) == []


FIFO = """
    import queue
    from collections import deque


    class Memory:
        def __init__(self, threshold):
            self.history_queue = queue.Queue()
            self.turns = deque()
            self.threshold = threshold

        def save(self, query, response):
            self.history_queue.put((query, response))
            while self.history_queue.qsize() > self.threshold:
                oldest = self.history_queue.get()
                self.archive(oldest)

        def add_turn(self, turn):
            self.turns.append(turn)
            if len(self.turns) > self.threshold:
                self.turns.popleft()

        def archive(self, item):
            pass
"""

FIFO_CLEAN = """
    import queue


    class Worker:
        def __init__(self, limit):
            self.task_queue = queue.Queue()             # jobs, not a conversation
            self.history_stack = queue.LifoQueue()      # newest taken first
            self.history_cache = {}                     # a dict's `get` is a lookup
            self.limit = limit

        def submit(self, task):
            self.task_queue.put(task)
            while self.task_queue.qsize() > self.limit:
                self.task_queue.get()

        def push(self, turn):
            self.history_stack.put(turn)
            while self.history_stack.qsize() > self.limit:
                self.history_stack.get()

        def remember(self, key, turn):
            self.history_cache.append(turn)
            if len(self.history_cache) > self.limit:
                self.history_cache.get(key)
"""


def test_a_fifo_queue_or_deque_taken_from_its_head_over_a_threshold_is_a_window():
    # `put` then `get()` while `qsize()` is over the threshold: the oldest turn drops on every save
    assert _found(FIFO) == [(14, "self.history_queue", "save", "slides"),
                            (20, "self.turns", "add_turn", "slides")]


def test_a_queue_of_no_conversation_a_lifo_queue_and_a_dict_lookup_are_not_windows():
    assert _found(FIFO_CLEAN) == []


def test_the_prefilter_lets_a_memory_class_that_takes_from_a_queue_be_analysed():
    assert might_hold_prompt(code(FIFO))


SENT = """
    from openai import OpenAI

    client = OpenAI()
    SYSTEM = "You answer questions about the user's project in detail. " * 40


    class Bot:
        def __init__(self):
            self.turns = []
            self.max_turns = 6

        def remember(self, role, text):
            self.turns.append({"role": role, "content": text})
            if len(self.turns) > self.max_turns:
                self.turns.pop(0)

        def ask(self, question):
            self.remember("user", question)
            reply = client.chat.completions.create(
                model="gpt-4o", messages=[{"role": "system", "content": SYSTEM}] + self.turns)
            self.remember("assistant", reply.choices[0].message.content)
            return reply
"""


def test_a_memory_window_a_request_of_the_module_sends_as_its_history_is_a_warning(tmp_path):
    write(tmp_path, {"app.py": SENT})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
            for d in report.diagnostics] == [("PRM105", "warning", 15, [19])]


FIFO_RECORDS = """
    from collections import deque


    class NoiseFloor:
        def __init__(self, window):
            self._history = deque()
            self._duration = 0.0
            self._window = window

        def update(self, level, duration):
            self._history.append((level, duration))
            self._duration += duration
            while self._duration > self._window and len(self._history) > 1:
                self._duration -= self._history.popleft()[1]


    class Seen:
        def __init__(self):
            self.seen_message_key_order = deque()

        def remember_message(self, credential_id, message_id):
            key = (credential_id, message_id)
            self.seen_message_key_order.append(key)
            while len(self.seen_message_key_order) > 100:
                self.seen_message_key_order.popleft()
"""


def test_a_deque_of_records_that_are_not_messages_taken_from_its_head_is_not_a_window():
    # a time window of levels, a set of seen ids kept in order: named `history` / `message`, not messages
    assert _found(FIFO_RECORDS) == []


FIFO_BY_METHOD = """
    from collections import deque


    class RateLimiter:
        def __init__(self, tpm_limit):
            self._token_usage_history = deque()
            self.tpm_limit = tpm_limit

        def _used_last_minute(self, now):
            while self._token_usage_history and self._token_usage_history[0][0] < now - 60:
                self._token_usage_history.popleft()
            return sum(tokens for _, tokens in self._token_usage_history)

        def send(self, now, tokens):
            if self._used_last_minute(now) > self.tpm_limit:
                self._used_last_minute(now)
            self._token_usage_history.append((now, tokens))
"""


def test_a_deque_of_records_taken_from_its_head_by_another_method_is_not_a_window():
    assert _found(FIFO_BY_METHOD) == []
