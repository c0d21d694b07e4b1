"""Findings a new user's trial judged noise, by kind (fixtures/noise_kinds/): each kind has a case
that must stay silent (or say what is known) and one that is still reported as before."""
from __future__ import annotations

from pathlib import Path

from promptlint.api import check
from promptlint.config import Settings

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "noise_kinds"


def _row(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def _report(folder: str):
    return check([FIXTURES / folder], Settings(), jobs=1)


def _found(folder: str):
    return [(d.code, d.severity.value, Path(d.span.filename).name, d.span.start.row)
            for d in _report(folder).diagnostics]


def test_placeholders_named_for_the_agents_setup_are_no_finding():
    """`{agent_name}`, `{dialect}`, `{top_k}` of a template filled where the analysis does not see
    are what the agent or chain is set up with (Policy 7: a name clears a value of unknown source);
    `{task}` of the other template is still content of unknown volatility."""
    app = FIXTURES / "setup_names" / "prompts.py"
    assert _found("setup_names") == [("PRM101", "info", "prompts.py", _row(app, "Task: {task}"))]


def test_a_configured_field_its_method_only_puts_in_another_form_stays_configuration():
    """`self.scenario, fields = parse_scenario(self.scenario)` rewrites the configured field from
    itself alone: still configuration, no finding; a field a method sets from its caller's argument
    (`self.scenario = scenario`) is still reported."""
    app = FIXTURES / "normalised_field" / "topic_grader.py"
    assert _found("normalised_field") == [("PRM101", "info", "topic_grader.py", _row(app, 'system = f"{self.scenario}'))]


def test_a_list_of_records_is_no_conversation_whatever_its_name():
    """`turns = [(lang, secs, to) for e in events]` sliced to its newest: records, not messages;
    `turns` of `{"role": ..., "content": ...}` messages cut the same way is still a window."""
    app = FIXTURES / "record_lists" / "detector.py"
    assert _found("record_lists") == [("PRM105", "warning", "detector.py", _row(app, "window = turns[-limit:]"))]


def test_a_run_of_messages_removed_by_what_they_are_is_no_window():
    """`while i < len(msgs) and msgs[i]["role"] == "tool": msgs.pop(i)` removes the tool results
    after a dropped reply, chosen by their role; `while len(msgs) > keep: msgs.pop(1)` still cuts."""
    app = FIXTURES / "popped_runs" / "history.py"
    assert _found("popped_runs") == [("PRM105", "info", "history.py", _row(app, "msgs.pop(1)"))]


def test_messages_popped_back_to_an_earlier_length_are_no_window():
    """`n = len(messages)`, a note appended and sent, then `while len(messages) > n:
    messages.pop()`: the function takes off what it added; a pop until a bound fits still cuts."""
    app = FIXTURES / "restored_retries" / "connection.py"
    assert _found("restored_retries") == [("PRM105", "warning", "connection.py", _row(app, "messages.pop(0)"))]


def test_a_time_in_text_built_around_it_is_one_finding():
    """The preamble built with the time, then placed whole in the system preamble: one root cause,
    reported once, in the larger prompt (main reported it in both)."""
    app = FIXTURES / "nested_clock" / "prompt.py"
    assert _found("nested_clock") == [("PRM102", "info", "prompt.py", _row(app, "{preamble}\"\"\""))]


def test_a_time_read_when_the_instance_is_set_up_is_per_conversation():
    """`__init__` calls `_read_env`, which reads the clock: once per instance, so the message says
    each new conversation, not every request."""
    found = [d for d in _report("setup_clock").diagnostics if d.code == "PRM102"]
    assert len(found) == 1
    assert "processed uncached in every new conversation" in found[0].message
    assert "on every request" not in found[0].message


def test_a_time_in_text_a_method_keeps_on_its_instance_says_when_it_changes():
    """`load_prompt` builds the system prompt with the time and keeps it in `self.prompts`: the
    message says it changes each time that method builds it, not on every request."""
    found = [d for d in _report("kept_prompt").diagnostics if d.code == "PRM102"]
    assert len(found) == 1
    assert "each time `load_prompt` builds it again (it keeps the text in `self.prompts`" in found[0].message
    assert "on every request" not in found[0].message
