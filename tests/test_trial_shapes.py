"""Shapes a new user met on real packages (fixtures/trial_shapes): each file holds a positive and a
negative example, and the tests assert the findings' codes, rows and wording."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "trial_shapes"


def findings(name: str, *codes: str) -> list[tuple[int, str, str, str]]:
    """(row, code, severity, message up to " at token") of the findings in one fixture file."""
    report = api.check([FIXTURES / name], api.Settings(), jobs=1)
    return sorted((d.span.start.row, d.code, d.severity.value, d.message.split(" at token")[0])
                  for d in report.diagnostics if not codes or d.code in codes)


def test_a_value_reached_by_several_paths_is_one_value_not_a_conditional_section():
    assert findings("same_value_paths.py") == [
        (11, "PRM101", "info", "Content of unknown volatility `op` (the parameter `operators`)"),
        (33, "PRM104", "info", "Conditional content `Explain every step in detail.`"),  # a real choice of texts
    ]


def test_a_send_through_a_name_bound_to_an_imported_sdk_function_is_a_request():
    assert findings("aliased_import.py") == [
        (15, "PRM101", "info", "Content of unknown volatility `notes` (the parameter `notes`)"),
        (25, "PRM102", "warning", "Timestamp `datetime.now().isoformat()` (sub-day precision)"),
    ]
    report = api.check([FIXTURES / "aliased_import.py"], api.Settings(), jobs=1)
    assert all(" of the request, in the system prompt" in d.message for d in report.diagnostics)
    sends = sorted((layout.site.start.row, layout.provider) for layout in report.prompts if layout.source == "python-call")
    assert sends == [(20, "litellm"), (26, "litellm")]


def test_a_name_bound_to_a_local_function_of_an_sdk_methods_name_is_no_send():
    report = api.check([FIXTURES / "aliased_local.py"], api.Settings(), jobs=1)
    assert [layout for layout in report.prompts if layout.source == "python-call"] == []
    assert [(d.code, " of this prompt" in d.message) for d in report.diagnostics] == [("PRM102", True)]


def test_a_parsed_answer_appended_once_by_a_callers_retry_loop_is_sent_as_written():
    """The loop that grows the list hands it to a method that sends it: the bytes stay the same."""
    assert findings("retried_once.py", "PRM201") == [
        (27, "PRM201", "warning", "Serialised data `json.dumps(t[\"answer\"])` without sorted keys"),
    ]


def test_a_template_filled_key_by_key_in_a_wrapper_reaches_the_send():
    """`for key, value in values.items(): template = template.replace(f"{{{key}}}", str(value))`."""
    assert findings("replaced_in_wrapper.py") == [
        (30, "PRM101", "warning", "Per-request content `topic` (the parameter `topic`)"),
    ]
    report = api.check([FIXTURES / "replaced_in_wrapper.py"], api.Settings(), jobs=1)
    summary = next(p for p in report.prompts if p.source == "python-call" and p.site.start.row == 37)
    shown = [s.text[-22:] if s.is_static else f"{{{s.expr}}}" for s in summary.parts[0].segments]
    assert shown == ["very answer you give. ", "\nSummarise this text:\n", "{text}"]
