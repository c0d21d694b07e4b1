"""A PRM101 finding at a value known to change per request names the values of unknown volatility
placed before it in the same prompt as related locations (rules/prm101: `_earlier`, Policy 8): its
message counts them ("2 values of unknown length come before it"); when one of them changes with
each request too, it breaks the prefix first, so they are shown where they enter the prompt. A
first value that is known to change has its own finding and nothing earlier to name, and a value
in the newest user message of a one-shot request is that request's own content (Policy 3), not
named. Fixtures: fixtures/earlier_values/audit_template.py (an LLM judge's prompt, deepteam's
shape), grounded.prompty (a grader whose data all sit in its user message)."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "earlier_values"


def _findings(name="audit_template.py"):
    report = api.check([FIXTURE / name], api.Settings(), jobs=1)
    return sorted(report.diagnostics, key=lambda d: d.span.start.row)


def test_values_of_unknown_volatility_before_the_finding_are_named_where_they_enter():
    audit = _findings()[0]
    assert (audit.code, audit.severity.value, audit.span.start.row) == ("PRM101", "info", 22)  # `{context_section}`
    assert "after 2 values of unknown length and " in audit.message
    earlier = [(r.span.start.row, r.span.start.column, r.message) for r in audit.related
               if r.message.startswith("an earlier value")]
    assert earlier == [
        (17, 1, "an earlier value, `input`, of unknown volatility: if it changes with each request too, "
                "it breaks the prefix first and must move as well"),
        (20, 1, "an earlier value, `entities`, of unknown volatility: if it changes with each request too, "
                "it breaks the prefix first and must move as well"),
    ]


def test_a_first_value_known_to_change_names_no_earlier_value():
    reason = _findings()[1]
    assert (reason.code, reason.span.start.row, reason.span.start.column) == ("PRM101", 40, 30)  # `{user_query}`
    assert not [r for r in reason.related if r.message.startswith("an earlier value")]
    assert any(r.message.startswith("a later value, `retrieval_context`") for r in reason.related)


def test_a_value_in_the_newest_user_message_is_not_named_as_an_earlier_value():
    [query] = _findings("grounded.prompty")
    assert (query.code, query.severity.value, query.span.start.row, query.span.start.column) == ("PRM101", "info", 55, 8)
    assert "after 1 value of unknown length and " in query.message  # `{{context}}`, row 54
    assert "in the newest user message" in query.message
    assert not [r for r in query.related if r.message.startswith("an earlier value")]
