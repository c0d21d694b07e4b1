"""The rule of evidence for prompt text built in Python whose send was not found
(impact.sent_apart, impact.UNKNOWN_STATIC_AFTER): every prefix finding (PRM101-PRM104, PRM201,
PRM202) needs the history or a few hundred static tokens after its value; a whole request keeps
its own figures; a template or prompt file keeps the conversation that follows it (Policy 5)."""
from __future__ import annotations

from pathlib import Path

import pytest

from promptlint.api import check
from promptlint.config import Settings
from promptlint.impact import UNKNOWN_STATIC_AFTER, sent_apart, worth_caching
from promptlint.model import Kind, Precision, Severity, Volatility
from promptlint.rules.prm201_unsorted_json_dumps import UnsortedJsonDumpsRule
from promptlint.rules.prm202_unordered_iteration_in_prompt import UnorderedIterationInPromptRule
from test_impact import MID, SHORT, Part, history, layout, one, text, value

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "sent_apart"
KINDS = [value("question"), value("profile", Volatility.UNKNOWN, Kind.UNKNOWN),
         value("now()", kind=Kind.TIMESTAMP, precision=Precision.SUB_DAY), value("uuid4()", kind=Kind.UNIQUE_ID),
         value("persona", Volatility.PER_CONVERSATION, Kind.UNKNOWN)]


def test_the_floor_is_the_documented_constant():
    assert UNKNOWN_STATIC_AFTER == 256
    assert not worth_caching(True, 255, False) and worth_caching(True, 256, False)
    assert worth_caching(True, 0, True) and worth_caching(False, 0, False)


@pytest.mark.parametrize("seg", KINDS, ids=lambda s: s.expr)
def test_every_value_kind_needs_a_tail_worth_caching_when_built_apart(seg):
    short = layout([Part("prompt", [text("Task: "), seg, text(SHORT)])], source="python-constant")
    assert sent_apart(short) and one(short).severity is None
    mid = layout([Part("prompt", [text("Task: "), seg, text(MID)])], source="python-constant")
    assert one(mid).severity is Severity.INFO


@pytest.mark.parametrize("seg", KINDS, ids=lambda s: s.expr)
def test_the_history_after_it_is_enough(seg):
    chat = layout([Part("system", [text("Task: "), seg, text(SHORT)]), history()], source="python-constant")
    assert one(chat).severity is not None


def test_a_whole_request_a_system_prompt_and_a_template_keep_their_short_tails():
    system = layout([Part("system", [value("now()", kind=Kind.TIMESTAMP), text(SHORT)])],
                    source="python-constant")
    assert sent_apart(system) and one(system).severity is Severity.INFO
    whole = layout([Part("system", [value(), text(SHORT)]), history(), Part("user", [value(row=3)])],
                   newest_user=2)
    assert not sent_apart(whole) and one(whole).severity is Severity.WARNING
    template = layout([Part("system", [value("now()", kind=Kind.TIMESTAMP), text(SHORT)])], provider=None,
                      model=None, source="template")
    assert not sent_apart(template) and one(template).severity is Severity.WARNING


def test_unsorted_json_built_apart_needs_a_tail_worth_caching():
    rule = UnsortedJsonDumpsRule()
    dumped = value("json.dumps(schema)", Volatility.UNKNOWN, Kind.SERIALIZED)
    short = layout([Part("prompt", [text("Schema: "), dumped, text(SHORT)])], source="python-constant")
    assert list(rule.check_layout(short)) == []
    mid = layout([Part("prompt", [text("Schema: "), dumped, text(MID)])], source="python-constant")
    assert [d.severity for d in rule.check_layout(mid)] == [Severity.INFO]
    whole = layout([Part("system", [text("Schema: "), dumped, text(SHORT)]), Part("user", [value(row=3)])],
                   newest_user=1)
    assert [d.severity for d in rule.check_layout(whole)] == [Severity.INFO]


def test_an_order_built_apart_before_a_short_tail_is_info():
    # the items of a set are the same content in another order: their own text is at stake, not
    # only the tail, so a short tail keeps it as info; a tail worth caching makes it a warning
    rule = UnorderedIterationInPromptRule()
    order = value("set(tags)", Volatility.PER_PROCESS, Kind.UNORDERED_ITERATION)
    short = layout([Part("prompt", [text("Tags: "), order, text(SHORT)])], source="python-constant")
    assert [d.severity for d in rule.check_layout(short)] == [Severity.INFO]
    mid = layout([Part("prompt", [text("Tags: "), order, text(MID)])], source="python-constant")
    assert [d.severity for d in rule.check_layout(mid)] == [Severity.WARNING]


def test_fixtures(monkeypatch):
    monkeypatch.chdir(FIXTURES)
    found = [(d.code, d.severity.value, d.span.filename, d.span.start.row) for d in check(["."], Settings()).diagnostics]
    assert sorted(found) == [("PRM201", "info", "long_tail.py", 8), ("PRM201", "info", "whole_request.py", 11)]
