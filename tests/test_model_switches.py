"""PRM205 facts: a model chosen anew for each request from a list of models (at random, in turns
by a counter kept across calls, from a cycle), and the pre-filter that lets such files be analysed."""
from __future__ import annotations

from promptlint import api
from promptlint.python.model_switches import find_model_switches, is_model_pool
from promptlint.python.module import load
from promptlint.python.prefilter import might_hold_prompt

from analysis_support import code, write


def _switches(source: str):
    module = load(__import__("pathlib").Path("app.py"), code(source))
    return [(s.node.lineno, s.how, s.pool, s.function, s.request.lineno, s.conversation)
            for s in find_model_switches(module)]


RANDOM_PER_CALL = """
    import random

    class Ensemble:
        def __init__(self, llms):
            self.llms = llms

        def answer(self, chat_history):
            llm = random.choice(self.llms)
            reply = llm.invoke(chat_history)
            return reply
"""


def test_a_model_drawn_at_random_for_a_request_that_resends_the_conversation():
    assert _switches(RANDOM_PER_CALL) == [(8, "at random", "self.llms", "answer", 9, True)]


TURNS_THROUGH_A_SELECTOR = """
    class Base:
        def __init__(self, engines):
            self.engines = engines
            self.served = 0

        def next_engine(self):
            return self.engines[0]

        def forward(self, *args, **kwargs):
            engine = self.next_engine()
            self.served += 1
            return engine.run(*args, **kwargs)


    class RoundRobin(Base):
        def next_engine(self):
            slot = self.served % len(self.engines)
            return self.engines[slot]
"""


def test_a_model_taken_in_turns_by_a_selector_of_a_subclass_is_found_where_the_counter_is_read():
    # the selector of the base class takes the first one always: not a switch
    assert _switches(TURNS_THROUGH_A_SELECTOR) == [(17, "in turns", "self.engines", "next_engine", 12, False)]


def test_the_rule_reports_a_forwarded_request_as_info_and_a_resent_conversation_as_a_warning(tmp_path):
    write(tmp_path, {"a.py": RANDOM_PER_CALL, "b.py": TURNS_THROUGH_A_SELECTOR})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    found = sorted((d.span.filename.rsplit("/", 1)[-1], d.code, d.severity.value, d.span.start.row,
                    [r.span.start.row for r in d.related]) for d in report.diagnostics)
    assert found == [("a.py", "PRM205", "warning", 8, [9]), ("b.py", "PRM205", "info", 17, [12])]


CLEAN = """
    import itertools
    import random

    class Fixed:
        def __init__(self, models, examples, api_keys):
            self.model = random.choice(models)          # once per instance
            self.models = models
            self.examples = examples
            self.api_keys = api_keys
            self.calls = 0

        def reply(self, messages):
            self.calls += 1
            shot = random.choice(self.examples)          # not a list of models
            key = self.api_keys[self.calls % len(self.api_keys)]
            first = self.models[0]                      # always the same one
            return self.model.complete([shot, *messages], api_key=key), first

        def pick(self):
            return random.choice(self.models)           # chosen, never used for a request
"""


def test_a_model_chosen_once_a_fixed_index_or_a_pool_of_other_things_is_not_a_switch():
    assert _switches(CLEAN) == []


ROTATED_INDEX = """
    class Spread:
        def __init__(self, llms, keys):
            self.llms = llms
            self.keys = keys
            self.current = 0
            self.key_at = 0
            self.default = 0

        def _next_llm(self):
            self.current = (self.current + 1) % len(self.llms)
            return self.llms[self.current]

        def reply(self, messages):
            llm = self._next_llm()
            return llm.chat(messages)

        def keyed(self, messages):
            self.key_at = (self.key_at + 1) % len(self.keys)
            return self.llms[self.default].chat(messages, api_key=self.keys[self.key_at])
"""


def test_a_model_taken_by_an_index_a_method_advances_around_the_list_is_a_switch():
    # the index of the keys turns too, but it picks no model; `self.default` is never advanced
    assert _switches(ROTATED_INDEX) == [(11, "in turns", "self.llms", "_next_llm", 15, True)]


ROTATED_ONCE = """
    class Pinned:
        def __init__(self, llms, start):
            self.llms = llms
            self.current = (start + 1) % len(llms)
            self.current = (self.current + 1) % len(self.llms)   # once per instance

        def reply(self, messages):
            return self.llms[self.current].chat(messages)
"""


def test_an_index_advanced_only_when_the_instance_is_built_is_no_switch():
    assert _switches(ROTATED_ONCE) == []


def test_pool_names():
    names = {"models": True, "MODEL_NAMES": True, "model_ids": True, "llms": True, "engines": True,
             "modelPool": True, "model": False, "examples": False, "api_keys": False, "model_config": False}
    for name, expected in names.items():
        assert is_model_pool(__import__("ast").parse(name, mode="eval").body) is expected, name


def test_the_prefilter_lets_a_file_that_chooses_models_per_call_be_analysed():
    assert might_hold_prompt(code(RANDOM_PER_CALL))
    assert might_hold_prompt(code(TURNS_THROUGH_A_SELECTOR))
    assert not might_hold_prompt("import random\nx = random.choice(self.colors)\n")
