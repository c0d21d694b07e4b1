"""A placeholder named as the conversation (`{chat_history}`) of a template filled by `str.format`
is the history: a time before it is before the history (fixtures/history_placeholders; its
README says what each module shows)."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.model import Kind, Segment, Volatility
from promptlint.python.flow.turn_text import named_history

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "history_placeholders"


def _found(name):
    report = api.check([FIXTURES / name], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row, d.message) for d in report.diagnostics]


def test_a_time_before_a_history_placeholder_filled_with_a_memory_s_text_is_a_warning():
    found = _found("filled_memory.py")
    assert [f[:3] for f in found] == [("PRM102", "warning", 8)]
    assert "the 29 static tokens and the conversation history after it" in found[0][3]


def test_a_history_placeholder_filled_by_keyword_with_a_parameter_of_no_telling_name():
    found = _found("filled_keyword.py")
    assert [f[:3] for f in found] == [("PRM102", "warning", 8)]
    assert "the conversation history after it" in found[0][3]


def test_a_time_read_off_a_configured_agent_before_its_memory_is_a_warning():
    found = _found("configured_agent.py")
    assert [f[:3] for f in found] == [("PRM102", "warning", 4)]
    assert found[0][3].startswith("Timestamp `self.agent.current_time` (sub-day precision) at token 13 of this prompt")
    assert "the 29 static tokens and the conversation history after it" in found[0][3]


def test_other_histories_and_constant_fills_are_no_conversation():
    assert all("history" not in f[3] for f in _found("other_history.py"))
    assert [f[:3] for f in _found("other_history.py")] == []


def _value(volatility, evidence="`memory.to_string()` is not resolved"):
    return Segment(text="", kind=Kind.UNKNOWN, volatility=volatility, expr="memory.to_string()", evidence=evidence)


def test_named_history_takes_only_unknown_values_at_a_conversation_name():
    changing = [_value(Volatility.UNKNOWN)]
    assert [s.kind for s in named_history("chat_history", changing)] == [Kind.HISTORY]
    assert [s.kind for s in named_history("messages", changing)] == [Kind.HISTORY]
    assert named_history("order_history", changing) == changing  # not a name of the conversation
    assert named_history("history_length", changing) == changing
    stable = [_value(Volatility.STABLE, "computed from constants")]
    assert named_history("chat_history", stable) == stable  # fixed text
    configured = [_value(Volatility.STABLE, "`Plan.agent`: a field with a default, set when the instance is built "
                                            "(configuration)")]
    assert [s.kind for s in named_history("chat_history", configured)] == [Kind.HISTORY]
    timed = [Segment(text="", kind=Kind.TIMESTAMP, volatility=Volatility.PER_REQUEST, expr="now")]
    assert named_history("chat_history", timed) == timed  # a value of known kind keeps it
    assert named_history("chat_history", [Segment(text="none yet")])[0].is_static
