"""A function that returns early when a parameter is left at its default None, read for a call
that leaves it so (flow/default_guards.py)."""
from __future__ import annotations

from analysis_support import probe

from promptlint.python.flow.values import Alt, Seq

STATE = """
    class State:
        def __init__(self):
            self._messages = []

        def get_messages(self, limit: int = None):
            \"\"\"The conversation, or its newest `limit` messages.\"\"\"
            if limit is None:
                return self._messages
            return self._messages[-limit:]

"""


def test_a_call_that_leaves_the_parameter_at_none_takes_the_early_return(tmp_path):
    found = probe(tmp_path, STATE + """
    def send(state: State):
        probe(state.get_messages())
    """)
    assert isinstance(found.value, Seq) and found.value.items == []  # `self._messages`, not a cut of it


def test_a_call_that_gives_the_parameter_reads_both_returns(tmp_path):
    found = probe(tmp_path, STATE + """
    def send(state: State, n: int):
        probe(state.get_messages(limit=n))
    """)
    assert isinstance(found.value, Alt) and len(found.value.options) == 2


def test_a_default_other_than_none_is_not_read_so(tmp_path):
    found = probe(tmp_path, STATE.replace("limit: int = None", "limit: int = 10") + """
    def send(state: State):
        probe(state.get_messages())
    """)
    assert isinstance(found.value, Alt) and len(found.value.options) == 2
