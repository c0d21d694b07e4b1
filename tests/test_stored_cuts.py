"""PRM105: conversations cut or rewritten where they are kept, not where they are sent
(python/stored_cuts.py, python/flow/cut_margins.py, python/cut_defaults.py). The fixtures are
under fixtures/stored_cuts/."""
from __future__ import annotations

import ast
from pathlib import Path

from promptlint import api
from promptlint.python.flow.cut_margins import DEFAULT, SLIDES, STEPS, cadence
from promptlint.python.module import load
from promptlint.python.prefilter import might_hold_prompt
from promptlint.python.stored_cuts import stored_cuts

from analysis_support import code, write

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "stored_cuts"


def _report(*names):
    report = api.check([FIXTURES / n for n in names], api.Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row,
             [r.span.start.row for r in d.related]) for d in report.diagnostics]


def _cuts(source: str):
    module = load(Path("app.py"), code(source))
    cuts, steps = stored_cuts(module, None, [])
    return [(c.at.lineno, c.held, c.cadence, c.summary) for c in cuts], steps


def test_a_kept_dialog_cut_every_turn_and_sent_by_the_class_is_a_warning_with_the_request_related():
    assert _report("sent_window.py") == [("sent_window.py", "PRM105", "warning", 23, [16])]


def test_cuts_with_no_request_linked_are_info_whatever_their_shape():
    assert _report("agent_trimmer.py", "fit_render.py", "rolling_summary.py") == [
        ("agent_trimmer.py", "PRM105", "info", 15, []),       # popped in a loop until it fits a budget
        ("fit_render.py", "PRM105", "info", 17, []),          # a handed list rebound until the render fits
        ("rolling_summary.py", "PRM105", "info", 18, []),     # a summary at the head, slack 0 by default
    ]


def test_a_bounded_deque_is_reported_once_where_it_is_bounded():
    assert _report("deque_memory.py") == [("deque_memory.py", "PRM105", "info", 9, [])]


def test_cuts_in_steps_and_lists_that_are_no_conversation_are_not_reported():
    # (a call log named `history` that holds records, not messages, is one of them)
    assert _report("chunked.py", "not_conversation.py") == []


def test_the_prefilter_lets_files_that_cut_a_kept_conversation_be_analysed():
    for name in ("agent_trimmer.py", "fit_render.py", "rolling_summary.py", "sent_window.py", "chunked.py"):
        assert might_hold_prompt((FIXTURES / name).read_text()), name


REDUCER = """
    class Reducer:
        target: int = 8
        threshold: int = 0

        def reduce(self):
            msgs = self.messages
            if len(msgs) <= self.target + (self.threshold or 0):
                return None
            cut = find_cut(msgs, self.target, self.threshold)
            kept = msgs[cut:]
            if first not in kept:
                kept = [first, *kept]
            self.messages = kept

        def summarize(self):
            history = self.history
            if len(history) <= self.target + self.threshold:
                return
            note = self.llm.summarize(history[:-self.target])
            self.history = [note, *history[-self.target:]]

        def window(self, message):
            self.chat_log.append(message)
            del self.chat_log[0]
"""


def test_a_reducer_through_names_a_summary_and_an_unconditional_delete_by_the_adding_method():
    cuts, steps = _cuts(REDUCER)
    assert cuts == [(13, "self.messages", DEFAULT, False), (20, "self.history", DEFAULT, True),
                    (24, "self.chat_log", SLIDES, False)]
    assert steps == set()


STEPPED = """
    class Stepped:
        threshold: int = Field(default=4, ge=0)

        def reduce(self):
            msgs = self.messages
            if len(msgs) <= self.target + self.threshold:
                return None
            self.messages = msgs[len(msgs) - self.target:]

        def prune(self):
            self.messages = self.messages[-10:]     # a method that adds nothing: run when asked
"""


def test_a_margin_whose_default_is_not_zero_is_in_steps_and_a_prune_when_asked_is_not_reported():
    cuts, steps = _cuts(STEPPED)
    assert cuts == [] and 8 in steps


def _cadence(body: str, how: str, amount: str):
    func = ast.parse(code(body)).body[0]
    stmt = next(n for n in ast.walk(func) if isinstance(n, (ast.Assign, ast.Delete, ast.Expr)))
    return cadence(func, stmt, how, ast.parse(amount, mode="eval").body)[0]


def test_cadence_of_a_cut_from_its_test_and_what_it_keeps():
    assert _cadence("def f(xs):\n    if len(xs) > 20:\n        xs.x = xs.x[-20:]\n", "keep", "20") == SLIDES
    assert _cadence("def f(xs):\n    if len(xs) > 40:\n        xs.x = xs.x[-20:]\n", "keep", "20") == STEPS
    assert _cadence("def f(xs):\n    while len(xs) > n:\n        del xs.x[:5]\n", "drop", "5") == SLIDES
    assert _cadence("def f(xs):\n    if len(xs) > n:\n        del xs.x[:5]\n", "drop", "5") == STEPS
    assert _cadence("def f(xs):\n    if len(xs) > n:\n        xs.x.pop(0)\n", "drop", "1") == SLIDES
    assert _cadence("def f(xs):\n    if len(xs) > n:\n        xs.x = xs.x[-m:]\n", "keep", "m") is None


def test_the_rule_reads_a_base_class_default_in_another_module(tmp_path):
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/base.py": """
            class BaseReducer:
                keep: int = 10
                slack: int = 0
        """,
        "pkg/trunc.py": """
            from pkg.base import BaseReducer


            class Truncating(BaseReducer):
                def reduce(self):
                    history = self.history
                    if len(history) <= self.keep + self.slack:
                        return
                    self.history = history[-self.keep:]

                def add(self, message):
                    self.history.append(message)
                    self.reduce()
        """,
    })
    report = api.check([tmp_path], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics] == [("PRM105", "info", 9)]
    assert "default `self.slack` (0)" in report.diagnostics[0].message


PERIODIC = '''
class Chat:
    def __init__(self):
        self.messages = []
        self.turn = 0

    def ask(self, text):
        self.turn += 1
        self.messages.append({"role": "user", "content": text})
        if self.turn % 20 == 0:
            self.messages = self.messages[-10:]
        if self.messages:
            self.messages = self.messages[-50:]
'''


def test_a_cut_under_a_condition_of_when_is_not_known_to_slide_and_a_presence_test_is_no_such_condition():
    """`if self.turn % 20 == 0:` cuts every twentieth turn (cached between cuts): not reported as
    sliding; `if self.messages:` holds on every turn once there is a conversation."""
    assert _cuts(PERIODIC)[0] == [(12, "self.messages", SLIDES, False)]


KEYED = """
    class ChatHistory:
        MAX_MESSAGES = 10

        def __init__(self):
            self.messages = {}

        def add_message(self, chat_id, message):
            self.messages.setdefault(chat_id, [])
            self.messages[chat_id].append(message)
            if len(self.messages[chat_id]) > ChatHistory.MAX_MESSAGES:
                self.messages[chat_id] = self.messages[chat_id][-ChatHistory.MAX_MESSAGES:]

        def add_turn(self, chat_id, message):
            self.messages[chat_id].append(message)
            if len(self.messages[chat_id]) > 2 * ChatHistory.MAX_MESSAGES:
                self.messages[chat_id] = self.messages[chat_id][-ChatHistory.MAX_MESSAGES:]

        def lookup(self, chat_id):
            self.messages[chat_id] = self.messages[chat_id]
            self.messages[0] = self.messages[0][-3:]
"""


def test_a_conversation_kept_per_key_and_cut_by_the_adding_method_is_a_window():
    # one list per chat under a key: cut to its newest MAX on every add once full (slides); the same
    # cut at twice the bound is in steps; a constant key is not one conversation per key
    cuts, steps = _cuts(KEYED)
    assert cuts == [(11, "self.messages[chat_id]", SLIDES, False)]


DISPLAY_LOG = '''
class Controller:
    def __init__(self):
        self.messages: list[dict[str, str]] = []
        self._next = 0

    def add_message(self, text: str, level: str = "info") -> None:
        self.messages.append({{"id": f"message-{{self._next}}", {key}: text, "level": level}})
        self._next += 1
        self.messages = self.messages[-200:]
'''


def test_a_list_named_messages_whose_items_are_no_messages_is_not_a_conversation(tmp_path):
    # a terminal UI's display log: every item added is a dict with no key a message has
    (tmp_path / "ui.py").write_text(DISPLAY_LOG.format(key='"text"'))
    assert api.check([tmp_path / "ui.py"], api.Settings(), jobs=1).diagnostics == []
    # the same list given messages with a role is the conversation, cut on every turn
    (tmp_path / "chat.py").write_text(DISPLAY_LOG.format(key='"role": "user", "content"'))
    report = api.check([tmp_path / "chat.py"], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics] == [("PRM105", "info", 10)]


def test_only_a_name_that_says_messages_is_contradicted_by_items_that_are_no_messages():
    from promptlint.python.flow.class_facts import holds_conversation
    template = "class A:\n    def add(self, x):\n        self.{name}.append({{{item}: x}})\n"
    def holds(name, item):
        cls = ast.parse(template.format(name=name, item=item)).body[0]
        return holds_conversation(cls, name)
    assert not holds("messages", '"id": 1, "text"')   # a display log named messages
    assert holds("messages", '"role": "user", "content"')
    assert holds("history", '"round": 1, "observation"')  # an agent's steps: the history it replays


def _checked(tmp_path, source: str):
    write(tmp_path, {"app.py": source})
    report = api.check([tmp_path / "app.py"], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related], d.message)
            for d in report.diagnostics]


DICT_KEPT = """
    import openai
    from openai import OpenAI

    client = OpenAI()


    class Chat:
        def __init__(self, system):
            self.info = {"messages": [{"role": "system", "content": system}]}
            self.cache = {"entries": []}
            self.max_ctx_size = 4096

        def ask(self, content):
            self.info["messages"].append({"role": "user", "content": content})
            while True:
                total = 0
                while True:
                    for msg in self.info["messages"]:
                        total += len(msg["content"])
                    if self.max_ctx_size < total and len(self.info["messages"]) > 1:
                        self.info["messages"] = self.info["messages"][1:]
                    else:
                        break
                try:
                    response = client.chat.completions.create(model="gpt-4o", messages=self.info["messages"])
                except openai.BadRequestError as e:
                    if e.code == "context_length_exceeded" and len(self.info["messages"]) > 1:
                        self.info["messages"] = self.info["messages"][1:]
                        continue
                    raise
                break
            self.info["messages"].append({"role": "assistant", "content": response.choices[0].message.content})
            self.cache["entries"].append(content)
            if len(self.cache["entries"]) > 5:
                self.cache["entries"] = self.cache["entries"][1:]
"""


def test_a_conversation_kept_under_a_dict_key_of_the_instance_is_cut_there_and_linked_to_its_request(tmp_path):
    """`self.info["messages"] = self.info["messages"][1:]` until the characters fit: the list the
    request sends, cut where it is kept (a warning, the request related, the retry after a
    context-length error as a second place); a list under a key not named for the conversation
    (`self.cache["entries"]`) is not one."""
    found = _checked(tmp_path, DICT_KEPT)
    assert [f[:4] for f in found] == [("PRM105", "warning", 21, [28, 25])]
    assert "kept in `self.info['messages']`" in found[0][4]
    assert "sent as the history of the request related here" in found[0][4]


PINNED = """
    from openai import OpenAI, RateLimitError

    client = OpenAI()


    def tidy(messages):
        return [m for m in messages if m.get("content")]


    class Chat:
        def __init__(self, system):
            self.messages = [{"role": "system", "content": system}]

        def ask(self, text):
            self.messages.append({"role": "user", "content": text})
            if len(self.messages) > 21:
                self.messages = self.messages[:1] + self.messages[-20:]
            r = client.chat.completions.create(model="gpt-4o", messages=self.messages)
            self.messages.append({"role": "assistant", "content": r.choices[0].message.content})
            return r


    def execute(command, state):
        state.messages.append({"role": "user", "content": command})
        try:
            r = client.chat.completions.create(model="gpt-4o", messages=state.messages)
        except RateLimitError:
            if len(state.messages) > 4:
                truncated = state.messages[0:1]
                truncated += state.messages[-3:]
                state.messages = tidy(truncated)
            return execute(command, state)
        state.messages.append({"role": "assistant", "content": r.choices[0].message.content})
        return state
"""


def test_a_pinned_first_message_before_the_newest_is_still_a_cut_and_one_in_an_except_handler_is_info(tmp_path):
    """`self.messages[:1] + self.messages[-20:]` keeps the system message and cuts what follows it
    on every turn (a warning where it is kept); `truncated = xs[0:1]; truncated += xs[-3:]`, tidied
    by a call, on a rate-limit error only: info, the message says when it runs."""
    found = _checked(tmp_path, PINNED)
    assert [f[:3] for f in found] == [("PRM105", "warning", 17), ("PRM105", "info", 31)]
    assert "kept in `self.messages`" in found[0][4] and "on every request once" in found[0][4]
    assert "kept in `state.messages`" in found[1][4] and "when a request fails (in an `except` handler)" in found[1][4]


NOT_PINNED = """
    class Chat:
        def __init__(self, system):
            self.messages = [{"role": "system", "content": system}]
            self.others = []

        def ask(self, text):
            self.messages.append({"role": "user", "content": text})
            if len(self.messages) > 21:
                self.messages = self.others[:1] + self.messages
            kept = self.others[0:1]
            kept += self.messages[-3:]
            self.messages = kept
"""


def test_a_head_of_another_list_put_before_a_kept_one_is_no_cut_of_it():
    assert _cuts(NOT_PINNED)[0] == []


LOGGED = """
    class Tool:
        def record(self, took):
            self.metadata.custom["execution_history"].append({"timestamp": now(), "took": took})
            if len(self.metadata.custom["execution_history"]) > 100:
                self.metadata.custom["execution_history"] = self.metadata.custom["execution_history"][-100:]
"""


def test_a_log_kept_under_a_key_named_history_that_holds_no_messages_is_no_conversation():
    """(the generic word `history` needs what is added to be messages, under a key as on an attribute)"""
    assert _cuts(LOGGED)[0] == []
