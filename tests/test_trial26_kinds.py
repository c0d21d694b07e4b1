"""Findings a new user's trial judged false or mis-rated (fixtures/trial26/), by kind: each kind
has a case whose finding goes (or drops to info) and one that is still reported as before."""
from __future__ import annotations

from pathlib import Path

from promptlint.api import check
from promptlint.config import Settings

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "trial26"


def _row(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def _found(folder: str):
    result = check([FIXTURES / folder], Settings(), jobs=1)
    return [(d.code, d.severity.value, Path(d.span.filename).name, d.span.start.row) for d in result.diagnostics]


def test_a_field_beside_the_judged_conversation_in_the_newest_message_keeps_its_reading():
    """The newest user message holds the tested model's description and the conversation being
    judged: the conversation makes the message new; the description (an object's field) is of
    unknown volatility, info, not per-request content."""
    app = FIXTURES / "sample_judge" / "judge.py"
    assert _found("sample_judge") == [("PRM101", "info", "judge.py", _row(app, "{description}"))]


def test_the_only_value_of_the_newest_message_is_its_input():
    """One value before 1,643 static tokens of a one-shot user message: the request's input."""
    app = FIXTURES / "one_input" / "summarise.py"
    assert _found("one_input") == [("PRM101", "warning", "summarise.py", _row(app, "{document}"))]


def test_a_time_after_the_conversation_a_prompt_file_writes_costs_only_its_own_text():
    """A template that writes the conversation (`{{ current_conversation }}`) before a clock
    reading: no conversation follows it in the request, so the 41 static tokens after the time
    are all it costs, far below every minimum (info, not a warning); the documents named like
    retrieval before the conversation are PRM107's note."""
    tpl = FIXTURES / "transcript_prompt" / "answer_prompt.jinja2"
    assert _found("transcript_prompt") == [("PRM107", "info", tpl.name, _row(tpl, "for doc in docs")),
                                           ("PRM102", "info", tpl.name, _row(tpl, "if current_datetime"))]
    result = check([FIXTURES / "transcript_prompt"], Settings(), jobs=1)
    clock = next(d for d in result.diagnostics if d.code == "PRM102")
    assert "the 41 static tokens after it (in pieces, between 1 other value) are processed uncached on every " \
           "request that sends more than this prompt (static text before it, or more text after it: the " \
           "conversation is written in this prompt, before the value)" in clock.message


def test_a_time_before_the_conversation_a_prompt_file_writes_is_still_a_warning():
    tpl = FIXTURES / "clock_first" / "answer_prompt.jinja2"
    assert _found("clock_first") == [("PRM102", "warning", tpl.name, _row(tpl, "if current_datetime")),
                                     ("PRM107", "info", tpl.name, _row(tpl, "for doc in docs"))]


def test_a_conversation_named_as_the_one_going_on_is_the_conversation():
    from promptlint.turn_names import conversation_named
    assert [conversation_named(n) for n in ("current_conversation", "full_transcript", "sample_conversation",
                                            "conversation_id", "current_step")] == [True, True, False, False, False]


def test_a_template_filled_with_a_constant_of_another_module_is_judged_where_it_is_filled():
    """`_PLANNING.format(plan_tool_name=PLAN_TOOL_NAME, **hints)`, the name a constant imported
    from another module: the template alone is no prompt of its own (its `{plan_tool_name}` was
    an info 'of unknown volatility'); the filled prompt keeps its own finding, whose excerpt of the
    choice starts at a word (`skills`, not `kills` or `s`)."""
    app = FIXTURES / "filled_guide" / "guide" / "prompt_loader.py"
    assert _found("filled_guide") == [("PRM104", "info", "prompt_loader.py", _row(app, 'return f"{base}'))]
    result = check([FIXTURES / "filled_guide"], Settings(), jobs=1)
    assert "Conditional content `base` (one variant reads `skills`) at token 9" in result.diagnostics[0].message


def test_a_template_filled_with_a_parameter_is_still_judged_alone():
    app = FIXTURES / "unfilled_guide" / "guide" / "prompt_loader.py"
    assert _found("unfilled_guide") == [("PRM101", "info", "prompt_loader.py", _row(app, "{plan_tool_name}"))]


def test_the_differing_text_of_a_choice_starts_and_ends_at_a_word():
    from promptlint.model import Segment
    from promptlint.python.flow.segment_text import align
    head, middles, tail = align([[Segment(text="You build agents now.")], [Segment(text="You build an agent now.")]])
    assert ["".join(s.text for s in head), ["".join(s.text for s in m) for m in middles],
            "".join(s.text for s in tail)] == ["You build ", ["agents", "an agent"], " now."]


def test_a_variant_is_named_by_its_first_words_cut_at_a_word():
    from promptlint.python.flow.segment_text import excerpt
    assert excerpt("agents who helps users build, debug, and improve their assistants with care") == \
        "agents who helps users build, debug, and improve..."
    assert excerpt("agents who help") == "agents who help"
