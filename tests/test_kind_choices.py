"""Text a function chooses by a parameter typed as a `Literal` of constants (a closed set of kinds
the caller picks, `mode: Literal["train", "test"]`) is one fixed variant per kind, not text present
or absent by a condition of the request (flow/configured.py: `kind_parameter`,
`configured_returns`; session 32 trial: a data-generation prompt opened by a goal sentence chosen by
its generation type was PRM104). The same choice by a parameter typed `str` stays a condition.
Fixtures: fixtures/kind_choices/{kinds,loose}/builders.py."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "kind_choices"


def findings(folder: str):
    found = api.check([FIXTURES / folder / "builders.py"], api.Settings(), jobs=1).diagnostics
    return [(d.code, d.span.start.row, d.span.start.column) for d in found]


def test_a_goal_chosen_by_a_literal_kind_is_no_conditional_prefix():
    # (main: PRM104 at 11:14, "Conditional content `training` at token 5 of this prompt")
    assert findings("kinds") == []


def test_a_goal_chosen_by_a_plain_text_parameter_stays_a_conditional_prefix():
    assert findings("loose") == [("PRM104", 8, 14)]
