"""A section a helper returns only when it has items (`if not items: return ""`): the text of the
variant that has them is drawn around their value, as the section writes it; the empty variant is
the section absent, not a second text that hides it."""
from __future__ import annotations

from promptlint import api

from analysis_support import code, write

GUARDED = """
    from openai import OpenAI

    client = OpenAI()
    RULES = "Only agents assigned to a task may mark it complete. " * 40


    def tasks_section(tasks):
        if not tasks:
            return ""
        return "# Active tasks\\n" + "\\n".join(t for t in tasks) + RULES


    def answer(tasks, question):
        system = "You are the orchestrator.\\n" + tasks_section(list(tasks))
        return client.chat.completions.create(
            model="gpt-4.1",
            messages=[{"role": "system", "content": system}, {"role": "user", "content": question}])
"""


def _layout(tmp_path):
    write(tmp_path, {"app.py": code(GUARDED)})
    report = api.check([str(tmp_path)])
    (layout,) = [p for p in report.prompts if p.source == "python-call"]
    return layout


def test_the_section_keeps_its_static_text_around_its_value(tmp_path):
    layout = _layout(tmp_path)
    segments = [s for _, _, _, s in layout.segments()]
    texts = [s.text for s in segments if s.is_static]
    head = "".join(s.text for s in segments[:next(i for i, s in enumerate(segments) if not s.is_static)])
    assert head == "You are the orchestrator.\n# Active tasks\n"
    assert any(t.startswith("\nOnly agents assigned") or t.startswith("Only agents assigned") for t in texts)
    dynamic = [s for _, _, _, s in layout.segments() if not s.is_static]
    assert len(dynamic) == 2 and "join" in dynamic[0].expr  # the tasks, then the user's question
    # the rules (40 sentences) after the tasks are static text of the prompt, not lost in one value
    assert sum(len(t) for t in texts) > 40 * 50


SEVERAL = GUARDED.replace("+ RULES\n", '+ RULES + "## Subtasks\\n" + "\\n".join(t for t in tasks[0])\n')


def test_a_section_with_several_values_keeps_its_static_text_and_its_values(tmp_path):
    # (only its first value was drawn before: the rules and the subtasks' heading were lost)
    assert SEVERAL != GUARDED
    write(tmp_path, {"app.py": code(SEVERAL)})
    (layout,) = [p for p in api.check([str(tmp_path)]).prompts if p.source == "python-call"]
    segments = [s for _, _, _, s in layout.segments()]
    shape = [s.text[:16] if s.is_static else s.expr for s in segments]
    assert shape == ["You are the orch", "# Active tasks\n", '"\\n".join(t for t in tasks)', "Only agents assi",
                     "## Subtasks\n", '"\\n".join(t for t in tasks[0])', "question"]
