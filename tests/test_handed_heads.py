"""A system prompt set on another object, then the conversation handed to that object
(python/handed_heads.py): the package is fixtures/handed_heads (its README says what each
function shows)."""
from __future__ import annotations

import ast
from pathlib import Path

from promptlint import api
from promptlint.judged import prompts_analysed
from promptlint.python.handed_heads import might_set
from promptlint.python.prefilter import might_hold_prompt

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "handed_heads"


def _call(code: str) -> ast.Call:
    return ast.parse(code).body[0].value


def test_the_setter_then_the_conversation_puts_the_notes_before_the_history():
    report = api.check([FIXTURES], api.Settings(), jobs=1)
    found = [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row,
              d.prompt and d.prompt.rsplit("/", 1)[-1], [(Path(r.span.filename).name, r.span.start.row)
                                                         for r in d.related]) for d in report.diagnostics]
    assert found == [
        ("lead.py", "PRM302", "info", 17, "lead.py:17", []),
        # the notes fetched with the user's message, at the template's placeholder: the setter's
        # line is the prompt, the fetch and the hand-off of the conversation are related
        ("supervisor.py", "PRM101", "warning", 8, "supervisor.py:31",
         [("supervisor.py", 30), ("supervisor.py", 32)]),
    ]
    # `summarize` hands no conversation on, `late` hands it before the setter: no prompt there
    prompts = sorted(p.id.rsplit("/", 1)[-1] for p in prompts_analysed(report.prompts))
    assert prompts == ["lead.py:17", "supervisor.py:31"]


def test_a_setter_is_another_objects_named_for_the_system_prompt_and_given_built_text():
    assert might_set(_call('agent.set_system_prompt(T.replace("{M}", notes))'))
    assert might_set(_call('request.append_instructions([f"Artifacts: {names}"])'))
    assert might_set(_call('self.lead.update_system_message(T.format(m=notes))'))
    assert not might_set(_call('self.set_system_prompt(T.replace("{M}", notes))'))  # its own bookkeeping
    assert not might_set(_call('agent.set_system_prompt(prompt)'))  # judged where `prompt` is built
    assert not might_set(_call('agent.set_temperature(f"{t}")'))  # not the system prompt


def test_the_prefilter_keeps_a_file_that_appends_instructions_to_another_object():
    source = 'def f(request, messages, names):\n    request.append_instructions([f"You have {names}"])\n'
    assert might_hold_prompt(source)
