"""PRM101's values in a short prompt built apart from its request, or in a template or prompt
file (impact.VALUE_STATIC_AFTER): one 128-token cache increment of static text after a value known
to change per request or per conversation, or a time or an id whose source proves it changes
(`uuid4()`, `random.choice`, `datetime.now()`), is worth a note (info, never a warning below
UNKNOWN_STATIC_AFTER); so is one increment in one run (no other value inside it) after a value of unknown volatility in
prompt text built in Python (a parameter, an attribute: when it changes, that increment is lost;
how often it does is not known, so never more than a note); a time or an id known only by its name, a date or a condition
keeps the floor of 256 tokens, and so does a value of unknown volatility in a template or prompt
file. fixtures/value_floor (see its README)."""
from __future__ import annotations

from pathlib import Path

import pytest

from promptlint.api import check
from promptlint.config import Settings
from promptlint.impact import UNKNOWN_STATIC_AFTER, VALUE_STATIC_AFTER
from promptlint.model import Kind, Precision, Severity, Volatility
from promptlint.tokens import count
from test_impact import SHORT, Part, layout, one, text, value

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "value_floor"
BAND = "\n".join(f"{i}. Answer questions about order {i} politely, cite the order number and never guess."
                 for i in range(1, 9))  # between the two floors


def test_the_band_lies_between_the_floors():
    assert VALUE_STATIC_AFTER == 128 and UNKNOWN_STATIC_AFTER == 256
    assert VALUE_STATIC_AFTER <= count(BAND) < UNKNOWN_STATIC_AFTER
    assert count(SHORT) < VALUE_STATIC_AFTER


@pytest.mark.parametrize("seg", [value("question"), value("profile", Volatility.UNKNOWN, Kind.UNKNOWN),
                                 value("persona", Volatility.PER_CONVERSATION, Kind.UNKNOWN)], ids=lambda s: s.expr)
@pytest.mark.parametrize("source", ["python-constant", "template"])
def test_a_value_before_one_increment_of_instructions_is_info(seg, source):
    band = layout([Part("prompt", [text("Task: "), seg, text(BAND)])], source=source)
    assert one(band).severity is (Severity.INFO if source == "python-constant"  # (unknown volatility too: a note)
                                  else None if seg.volatility is Volatility.UNKNOWN  # (a template: its own floor)
                                  else Severity.WARNING)  # (a template's per-request value: its own figures)
    short = layout([Part("prompt", [text("Task: "), seg, text(SHORT)])], source=source)
    assert one(short).severity is (None if source == "python-constant" or seg.volatility is Volatility.UNKNOWN
                                   else Severity.WARNING)


def test_a_value_of_unknown_volatility_needs_its_increment_in_one_run():
    # `f"{user_input}\n{half}{output}\n{half}"`: the rubric after the input is cut by the output,
    # which may change as well: no increment is lost to the input alone (a short one-shot grader)
    half = BAND[: len(BAND) // 2]
    cut = layout([Part("prompt", [value("user_input", Volatility.UNKNOWN, Kind.UNKNOWN), text(half),
                                  value("output", Volatility.UNKNOWN, Kind.UNKNOWN), text(BAND[len(half):])])],
                 source="python-constant")
    assert count(BAND) >= VALUE_STATIC_AFTER and one(cut).severity is None
    whole = layout([Part("prompt", [value("user_input", Volatility.UNKNOWN, Kind.UNKNOWN), text(BAND),
                                    value("output", Volatility.UNKNOWN, Kind.UNKNOWN)])], source="python-constant")
    assert one(whole).severity is Severity.INFO  # (a value at the very end cuts nothing)


def _named(seg):
    seg.name_only = True  # (only the name says it: `request_id`, `now`)
    return seg


@pytest.mark.parametrize("seg", [value("now()", kind=Kind.TIMESTAMP, precision=Precision.SUB_DAY),
                                 value("uuid4()", kind=Kind.UNIQUE_ID),
                                 value("random.choice(units)", kind=Kind.UNIQUE_ID)], ids=lambda s: s.expr)
def test_a_time_or_an_id_its_source_proves_per_request_has_the_lower_floor(seg):
    band = layout([Part("prompt", [text("Task: "), seg, text(BAND)])], source="python-constant")
    assert one(band).severity is Severity.INFO  # (never a warning below UNKNOWN_STATIC_AFTER)
    short = layout([Part("prompt", [text("Task: "), seg, text(SHORT)])], source="python-constant")
    assert one(short).severity is None


@pytest.mark.parametrize("seg", [_named(value("request_id", kind=Kind.UNIQUE_ID)),
                                 _named(value("now", kind=Kind.TIMESTAMP, precision=Precision.SUB_DAY)),
                                 value("today()", kind=Kind.TIMESTAMP, precision=Precision.DAY),
                                 value("if verbose", Volatility.UNKNOWN, Kind.CONDITIONAL),
                                 _named(value("session", Volatility.UNKNOWN, Kind.UNKNOWN))], ids=lambda s: s.expr)
def test_a_time_or_an_id_known_by_its_name_a_date_or_a_condition_keeps_the_higher_floor(seg):
    band = layout([Part("prompt", [text("Task: "), seg, text(BAND)])], source="python-constant")
    assert one(band).severity is None


def test_fixtures(monkeypatch):
    monkeypatch.chdir(FIXTURES)
    found = sorted((d.code, d.severity.value, d.span.filename, d.span.start.row)
                   for d in check(["."], Settings()).diagnostics)
    assert found == [("PRM101", "info", "grading.py", 22), ("PRM101", "info", "grading.py", 38),
                     ("PRM101", "info", "prompts/triage.txt", 1), ("PRM103", "info", "knobs.py", 10),
                     ("PRM103", "info", "knobs.py", 16)]
