"""Per-call counters before the conversation history (PRM107): a count of the history written
before the history itself (`Step {{ step_history|length + 1 }}` then `{% for s in step_history %}`)
changes whenever the history grows, so the history after it is never cached: an info, since only
its name says the counted value is a history that grows (Policy 7). A placeholder named like the
number of the current step or turn (`{{ turn_number }}`) before a placeholder named like the
history: info, the names are the evidence. Jinja templates written as
Python prompt constants (rendered by a framework's template wrapper elsewhere) are read as Jinja
(docs/policies.md, Policies 2, 7, 9)."""
from __future__ import annotations

from pathlib import Path

from analysis_support import write

from promptlint import api
from promptlint.python.inline_jinja import jinja_written
from promptlint.templates.jinja import template_segments
from promptlint.turn_names import conversation_named, counted_name, counter_named, placeholder_name


def _found(root, files: dict[str, str], code: str | None = "PRM107"):
    write(root, files)
    report = api.check([root], api.Settings(), jobs=1)
    return sorted((d.span.filename.rsplit("/", 1)[-1], d.span.start.row, d.code, d.severity.value)
                  for d in report.diagnostics if code is None or d.code == code)


def _messages(root, files, code: str = "PRM107"):
    write(root, files)
    return [d.message for d in api.check([root], api.Settings(), jobs=1).diagnostics if d.code == code]


# ---------------------------------------------------------------------------- names
def test_counter_names():
    for name in ("step", "turn", "turn_number", "current_iteration", "round_idx", "steps_count", "retry_count",
                 "currentStep"):
        assert counter_named(name), name
    for name in ("steps", "max_steps", "num_turns", "total_rounds", "step_size", "turn_prompt", "step_history",
                 "history", "turns", ""):
        assert not counter_named(name), name


def test_counted_names_and_a_count_is_not_the_history():
    assert counted_name("step_history|length + 1") == "step_history"
    assert counted_name("{{ messages | count }}") == "messages"
    assert counted_name("{len(history)}") == "history"
    assert counted_name("{{- agent.chat_history|length }}") == "chat_history"
    assert counted_name("for turn in history") == counted_name("history") == counted_name("step") == ""
    assert placeholder_name("step_history|length + 1") == "step_history"  # the name it reads ...
    assert conversation_named("step_history")  # ... is the history's, but the count is not the history


def test_jinja_written_python_text():
    assert jinja_written("Step {{ n }} of the task, then {% for s in steps %}{{ s }}{% endfor %}")
    assert jinja_written("Hello {{name}}, welcome back.")
    assert not jinja_written('Reply as JSON {{"answer": "{answer}"}} for {question}')  # str.format, escaped braces
    assert not jinja_written('Reply as JSON: {{"answer": "..."}}')  # literal braces of a format text
    assert not jinja_written("{{ name }} and {other}")  # a format field outside the tags
    assert not jinja_written("plain text")


def test_numeric_addition_in_a_jinja_expression_writes_one_number():
    segs = template_segments(Path("t.j2"), "t.j2", "Step {{ steps|length + 1 }} / {{ 'a' + name }}.").segments
    assert [s.text for s in segs if s.kind is None] == ["Step ", " / ", "a", "."]
    assert [s.expr for s in segs if s.kind is not None] == ["steps|length + 1", "'a' + name"]


# ---------------------------------------------------------------------------- template files
AGENT = """
You are the planning agent of the Harbourside library. Use one tool per step and finish with an
answer the librarian can read aloud.
Task: {{ task }}
Current step: {{ step_history|length + 1 }} of {{ max_steps }}
{% if step_history %}
Your previous steps:
{% for step in step_history %}
{{ loop.index }}. {{ step.thought }} -> {{ step.observation }}
{% endfor %}
{% endif %}
"""


def test_a_count_of_the_history_before_the_history_is_an_info_at_the_count(tmp_path):
    assert _found(tmp_path, {"agent.j2": AGENT}) == [("agent.j2", 4, "PRM107", "info")]
    message = _messages(tmp_path, {})[0]
    assert "writes the length of `step_history`" in message
    assert "processed uncached on every request" in message


def test_the_count_after_the_history_or_of_another_list_is_no_finding(tmp_path):
    after = AGENT.replace("Current step: {{ step_history|length + 1 }} of {{ max_steps }}\n", "") \
        + "Current step: {{ step_history|length + 1 }} of {{ max_steps }}\n"
    examples = AGENT.replace("step_history|length", "examples|length")
    no_loop = AGENT.split("{% if step_history %}")[0]  # the count, and no history after it
    assert _found(tmp_path, {"after.j2": after, "examples.j2": examples, "no_loop.j2": no_loop}) == []


def test_a_counter_named_placeholder_before_the_history_is_info(tmp_path):
    files = {"coach.j2": """
        You are the running coach of the Millbrook harriers. Plan one session at a time and keep
        every session under ninety minutes.
        This is turn {{ turn_number }} of the conversation.
        Conversation so far:
        {{ chat_history }}
        Runner: {{ message }}
    """}
    assert _found(tmp_path, files) == [("coach.j2", 3, "PRM107", "info")]
    assert "named like the number of the current step or turn" in _messages(tmp_path, {})[0]


def test_settings_loop_items_and_counters_after_the_history_are_no_finding(tmp_path):
    files = {
        "limit.j2": """
            You are the running coach of the Millbrook harriers. Answer in {{ max_turns }} turns at most.
            Conversation so far:
            {{ chat_history }}
            Runner: {{ message }}
        """,
        "items.j2": """
            You are the running coach of the Millbrook harriers. A sample exchange:
            {% for turn in sample_dialog %}{{ turn }}
            {% endfor %}
            Conversation so far:
            {{ chat_history }}
        """,
        "late.j2": """
            You are the running coach of the Millbrook harriers.
            Conversation so far:
            {{ chat_history }}
            This is turn {{ turn_number }}. Runner: {{ message }}
        """,
    }
    assert _found(tmp_path, files) == []


# ---------------------------------------------------------------------------- Python prompt constants
CONSTANT = '''
AGENT_SYSTEM_PROMPT = r"""<SYSTEM>
You are the planning agent of the Harbourside library. Use one tool per step and finish with an
answer the librarian can read aloud. Never invent a shelf mark; say when a book is not held.
</SYSTEM>
Task: {{ task }}
Current step: {{ step_history|length + 1 }} of {{ max_steps }}
{% for step in step_history %}
{{ loop.index }}. {{ step.thought }} -> {{ step.observation }}
{% endfor %}
"""
'''


def test_a_jinja_prompt_constant_rendered_elsewhere_is_read_as_jinja(tmp_path):
    # no send site: a framework's template wrapper renders it; the constant is judged on its own text
    assert _found(tmp_path, {"prompts.py": CONSTANT}) == [("prompts.py", 6, "PRM107", "info")]


def test_a_jinja_constant_without_history_or_not_named_prompt_is_no_finding(tmp_path):
    files = {
        "plain.py": CONSTANT.replace("{% for step in step_history %}", "{% for step in tools %}"),
        "page.py": CONSTANT.replace("AGENT_SYSTEM_PROMPT", "PAGE_BODY"),  # the name does not say prompt
    }
    assert _found(tmp_path, files, code=None) == []


def test_a_format_template_constant_is_still_read_as_str_format(tmp_path):
    files = {"prompts.py": '''
ANSWER_PROMPT = """You help the staff of the Birchwood clinic with questions about opening hours and
visits, in two sentences, in plain words, never guessing a time that the handbook does not give.
Reply as JSON: {{"answer": "..."}}
From the handbook:
{relevant_chunks}
Chat so far:
{chat_history}
Staff member: {question}"""
'''}
    assert _found(tmp_path, files) == [("prompts.py", 5, "PRM107", "info")]
