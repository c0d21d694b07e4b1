"""Infos that cannot be a cache loss are not reported (fixtures/info_precision): each kind has a
positive and a negative example, and the tests assert the findings' codes, rows and wording."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "info_precision"


def findings(name: str) -> list[tuple[int, int, str, str, str]]:
    """(row, column, code, severity, message up to " at token") of the findings in one fixture file."""
    report = api.check([FIXTURES / name], api.Settings(), jobs=1)
    return sorted((d.span.start.row, d.span.start.column, d.code, d.severity.value, d.message.split(" at token")[0])
                  for d in report.diagnostics)


def test_a_user_input_before_a_few_labels_only_is_at_the_end_where_it_belongs():
    # row 17: `User message: "{{ user_input }}"` then only 16 tokens of question and answer label:
    # not reported; row 26: the same value before the 109 tokens of the policy is
    assert findings("self_check.yml") == [(26, 22, "PRM101", "info", "Per-request content `user_input`")]


def test_a_template_filled_with_a_value_that_changes_first_is_judged_at_its_fill():
    # PLANNING_PROMPT starts with `{current_date}`, filled with the clock to the second (agent.py):
    # that is the cause (PRM102, row 3); alone, the template guessed the date from its name (a day)
    # and blamed `{working_directory}` (row 4) behind it, which the fill shows to be the same cause
    report = api.check([FIXTURES / "filled"], api.Settings(), jobs=1)
    got = sorted((Path(d.span.filename).name, d.span.start.row, d.code, d.severity.value) for d in report.diagnostics)
    assert got == [("prompts.py", 3, "PRM102", "info"), ("prompts.py", 41, "PRM101", "info")]
    # REVIEW_PROMPT's first placeholder is filled with a parameter of unknown volatility: the fill
    # knows no more than the template, which is judged at its own placeholder (row 41)
    review = next(d for d in report.diagnostics if d.code == "PRM101")
    assert review.message.startswith("Content of unknown volatility `notes` (the parameter `notes`) at token 4")


def test_a_fixed_request_of_a_few_words_is_a_probe_not_a_prompt_below_the_minimum():
    # row 10: `"hi"` with max_tokens=1 until the deployment answers: no finding; row 18: the same
    # probe with a cache key asks for caching that never starts (a warning); row 23: the
    # application's short prompt before the user's text stays below the minimum (info)
    assert findings("probe/ready.py") == [
        (18, 5, "PRM301", "warning", "Static prefix of 1 token is below 1,024 tokens, the smallest minimum of any "
                                     "openai model: nothing of this prompt is cached, whichever model it is"),
        (23, 13, "PRM301", "info", "Static prefix of 9 tokens is below the 1,024-token minimum of gpt-4.1: "
                                   "nothing of this prompt is cached")]
