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
        (33, "PRM104", "info",  # a real choice of texts, named by what the code writes there
             "Conditional content `intro` (one variant reads `Explain every step in detail.`)"),
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
    """The loop that grows the list hands it to a method that sends it: the bytes stay the same. The
    turns a method replays from its parameter are serialised again on every request, but nothing
    shows them read back from a store (the same dicts give the same bytes): info."""
    assert findings("retried_once.py", "PRM201") == [
        (27, "PRM201", "info", "Serialised data `json.dumps(t[\"answer\"])` without sorted keys"),
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


def test_a_template_filled_by_a_loop_over_names_not_given_in_the_code_keeps_its_placeholders_apart():
    """One dict per caller of the wrapper, and the placeholders a template holds (`re.findall`): each
    placeholder becomes the value the loop fills it with (before: written text, all static); a bare
    name replaced (no fixed ends) is left as written, and a placeholder at the end costs nothing."""
    tail = ("at token {} of the request, in the newest user message: the {} static tokens after it in the same "
            "message are processed uncached on every request")
    report = api.check([FIXTURES / "replaced_by_names.py"], api.Settings(), jobs=1)
    assert sorted((d.span.start.row, d.code, d.severity.value, d.message.split("; placed before")[0])
                  for d in report.diagnostics) == [
        (24, "PRM101", "warning", "Per-request content `name` (the parameter `name`) " + tail.format(0, "3,002")),
        (27, "PRM101", "warning", "Per-request content `params[variable]` (the parameter `params`) "
                                  + tail.format(5, "3,005")),
    ]
    sends = {p.site.start.row: p for p in report.prompts if p.source == "python-call"}
    shown = [s.text[-12:] if s.is_static else f"{{{s.expr}}}" for s in sends[44].parts[0].segments]
    assert shown == ["r you give. ", " user asks: ", "{params[variable]}"]  # (CLOSING: at the end)
    assert [s.is_static for s in sends[52].parts[0].segments] == [True, True]  # (`plain`: left as written)
    assert "".join(s.text for s in sends[60].parts[0].segments).startswith("<rules>")  # (`stripped`: as written)


def test_the_conversation_history_before_the_static_instructions_is_reported_at_the_history():
    tail = ("comes first, before the system prompt (3,001 static tokens): each turn adds to the history, so the "
            "static text after it sits at another place in the next request and is processed uncached on every turn")
    report = api.check([FIXTURES / "history_first.py"], api.Settings(), jobs=1)
    found = sorted((d.span.start.row, d.code, d.severity.value, d.message) for d in report.diagnostics)
    assert found == [
        (12, "PRM101", "warning", f"The conversation history `history` {tail}; put the static instructions first and "
                                  "the history after them"),
        (26, "PRM101", "info", f"The conversation history {tail} (the steps within one turn, which add after them, "
                               "still share them); put the static instructions first and the history after them"),
        (33, "PRM101", "warning", f"The conversation history {tail}; put the static instructions first and the "
                                  "history after them"),
        (45, "PRM101", "info", "The conversation history comes first, before the system prompt (`self.main_instruction`, "
                               "not read here: its size is not known): each turn adds to the history, so the static text "
                               "after it sits at another place in the next request and is processed uncached on every "
                               "turn; put the static instructions first and the history after them"),
    ]
    assert [r.message for d in report.diagnostics for r in d.related] == ["static text placed after the history"] * 4


def test_a_system_message_ensured_at_the_front_of_a_kept_conversation_is_read_and_prm302_reports_it():
    report = api.check([FIXTURES / "system_ensured.py"], api.Settings(), jobs=1)
    # (the system message put first only for experts, line 25, gives the kept conversation two
    # prefixes: PRM104 at info, python/front_inserts.py)
    assert [(d.span.start.row, d.code, d.severity.value) for d in report.diagnostics] == [
        (18, "PRM302", "info"), (25, "PRM104", "info"), (27, "PRM302", "info")]
    assert report.diagnostics[0].message.startswith(
        "Request re-sends the system prompt and the conversation history on every turn with no cache breakpoint")
    roles = {p.site.start.row: [part.role for part in p.parts] for p in report.prompts if p.source == "python-call"}
    assert roles[18][:2] == ["system", "history"]  # the insertion under `messages[0]["role"] != "system"`: made
    # under a test of something else: a real choice, not read as made, but the system message heads the
    # list wherever it is written (python/list_heads.py), so it is drawn as the system part, present or
    # absent; the history after it is re-sent with no breakpoint either way (PRM302 at 27)
    assert roles[27][:2] == ["system", "history"]


def test_ensures_system_first_reads_only_a_test_of_the_first_role():
    import ast

    from promptlint.python.flow.roles import ensures_system_first
    body = '\n    m.insert(0, {"role": "system", "content": S})'
    for test, expected in [('not m or m[0]["role"] != "system"', True), ('m[0].get("role") != "system"', True),
                           ('m[0].role != "system"', True), ('not m', False), ('m[1]["role"] != "system"', False),
                           ('not m or m[0]["role"] != "user"', False), ('expert', False)]:
        stmt = ast.parse(f"if {test}:{body}").body[0]
        assert ensures_system_first(stmt) is expected, test


def test_a_value_a_helper_renders_is_produced_where_the_helper_is_called():
    report = api.check([FIXTURES / "rendered_by_helper.py"], api.Settings(), jobs=1)
    related = sorted((d.span.start.row, r.span.start.row, r.span.start.column, r.message)
                     for d in report.diagnostics for r in d.related)
    assert related == [(17, 16, 20, "value produced here"),   # `fill(prompt, ...)`, not the render inside `fill`
                       (24, 23, 20, "value produced here")]   # rendered in the function itself: there
