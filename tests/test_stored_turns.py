"""A conversation an agent keeps as (request, answer) pairs and writes into its prompt as text:
the pairs written one labelled turn each are the history (`flow/turn_text.py`), the parameter
stored with the answer to it is the newest user message (`flow/stored_turns.py`), and an inline
template chosen as `from_string(custom if custom else DEFAULT)` is the default's text, placed
where the literal writes it (`linking.py`)."""
from __future__ import annotations

from promptlint import api

from analysis_support import pos, probe, write

AGENT = '''
    from collections import deque

    from jinja2.sandbox import SandboxedEnvironment


    class Agent:
        def __init__(self, process, template=None, memory=None):
            self.process = process
            self.memory = {}
            self.window = memory
            self.template = SandboxedEnvironment().from_string(
                template
                if template
                else """{{ text }}
    {% if memory %}
    Use the following conversation history to help answer the question above.

    {{ memory }}
    {% endif %}
    """
            )

        def __call__(self, text, session=None):
            if session not in self.memory:
                self.memory[session] = deque(maxlen=self.window)
            output = self.process.run(self.prompt(text, session))
            self.memory[session].append((text, output))
            return output

        def prompt(self, text, session):
            memory = []
            if self.memory.get(session):
                for request, output in self.memory[session]:
                    memory.append(f"User: {request}\\nAssistant: {output}")
                memory = "\\n\\n".join(memory)
            return self.template.render(text=text, memory=memory)
'''


def test_pairs_written_as_labelled_turns_and_joined_are_the_history(tmp_path):
    source = AGENT.replace("return self.template.render(text=text, memory=memory)", "return probe(memory)")
    found = probe(tmp_path, source)
    assert found.described == [("history", "unknown", '"\\n\\n".join(memory)')]


def test_the_parameter_kept_with_the_answer_is_the_newest_message(tmp_path):
    source = AGENT.replace("return self.template.render(text=text, memory=memory)", "return probe(text)")
    found = probe(tmp_path, source)
    assert found.described == [("user-input", "per-request", "text")]
    assert "kept with the answer to it as the newest turn" in found.segs[0].evidence


def test_the_default_inline_template_is_rendered_in_place(tmp_path):
    source = AGENT.replace("return self.template.render(text=text, memory=memory)",
                           "return probe(self.template.render(text=text, memory=memory))")
    found = probe(tmp_path, source)
    assert found.described == [("user-input", "per-request", "text"), ("text", "\n"),
                               ("conditional", "unknown", "if memory"), ("history", "unknown", "memory")]
    assert found.segs[0].span.start == pos(AGENT, "{{ text }}")


def test_the_new_request_before_the_history_is_a_warning(tmp_path):
    write(tmp_path, {"app.py": AGENT})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    found = [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics]
    assert ("PRM101", "warning", pos(AGENT, "{{ text }}").row) in found


FIXED = '''
    class Tutor:
        def __init__(self, llm, notes):
            self.llm = llm
            self.notes = notes
            self.log = []

        def ask(self, topic):
            examples = []
            for asked, said in [("2+2", "4"), ("3+3", "6")]:
                examples.append(f"User: {asked}\\nAssistant: {said}")
            shown = "\\n\\n".join(examples)
            self.log.append((topic, self.notes))
            return probe(shown + topic)
'''


def test_fixed_examples_and_a_value_stored_without_its_answer_are_not(tmp_path):
    found = probe(tmp_path, FIXED)
    assert not any(d[0] == "history" for d in found.described)
    assert found.described[-1] == ("unknown", "unknown", "topic")


def test_a_method_of_a_field_whose_default_is_none_is_not_a_constant(tmp_path):
    source = '''
        from dataclasses import dataclass
        from typing import Optional


        @dataclass
        class Agent:
            learning: Optional[object] = None


        def context(agent: Agent, message):
            if agent.learning is not None:
                return probe(agent.learning.build_context(message="x"))
    '''
    found = probe(tmp_path, source)
    assert found.described == [("unknown", "unknown", 'agent.learning.build_context(message="x")')]
    assert "stable" not in found.segs[0].evidence
