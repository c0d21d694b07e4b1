"""A request whose messages arrive as a field of an object handed in as a parameter (`def
_generate(self, prompt: Prompt)` sends `prompt.messages`, built by `Prompt(messages=...)` in another
module): the field holds what the constructor calls of the class in its package tree pass
(flow/callers.py `field_arguments`): a record's field with a default (pydantic model, dataclass),
or a plain class's `__init__` parameter it stores, passed by keyword or by position. Too many
calls, or a call that passes `**kwargs`, leave it as before."""
from __future__ import annotations

from analysis_support import one_call, parts, probe

from promptlint.model import Kind, Volatility
from promptlint.python.flow.values import Alt

SYSTEM = "You are a careful assistant. " * 20

RECORD = """
    from uuid import uuid4
    from pydantic import BaseModel, Field


    class Prompt(BaseModel):
        id: str = Field(default_factory=lambda: str(uuid4()))
        tools: list[dict] | None = None
        messages: list[dict] = Field(default_factory=list)
"""

PLAIN = """
    class Prompt:
        def __init__(self, messages, tools=None):
            self.messages = messages
            self.tools = tools
"""

NODES = f"""
    from datetime import datetime
    from .core import Prompt

    SYSTEM = "{SYSTEM}"


    class Node:
        def make_prompt(self, history):
            messages = [{{"role": "system", "content": f"{{SYSTEM}} Now: {{datetime.now()}}"}}, *history]
            return Prompt(messages=messages)
"""

SEND = """
    import anthropic
    from app.core import Prompt


    class Claude:
        def generate(self, prompt: Prompt):
            return anthropic.Anthropic().messages.create(
                model="claude-sonnet-4-5", max_tokens=100,
                system=prompt.messages[0]["content"], messages=prompt.messages[1:])
"""


def _tree(core: str, nodes: str = NODES, **more) -> dict:
    return {"app/__init__.py": "", "app/core.py": core, "app/nodes.py": nodes, **more}


def test_a_field_with_a_default_holds_what_the_constructor_call_passes(tmp_path):
    layout = one_call(tmp_path, SEND, _tree(RECORD))
    system, history = parts(layout)
    assert system[0] == "system"
    assert "".join(d[1] for d in system[1][:-1]) == SYSTEM + " Now: "
    assert system[1][-1][:2] == ("timestamp", "per-request")
    # the messages after the system message: the conversation the builder puts after it
    assert history[0] == "history" and [d[0] for d in history[1]] == ["history"]


def test_a_plain_class_stores_what_its_constructor_calls_pass_by_position(tmp_path):
    nodes = NODES.replace("Prompt(messages=messages)", "Prompt(messages, tools=None)")
    layout = one_call(tmp_path, SEND, _tree(PLAIN, nodes))
    system = parts(layout)[0]
    assert "".join(d[1] for d in system[1][:-1]) == SYSTEM + " Now: "
    assert system[1][-1][:2] == ("timestamp", "per-request")


def test_before_the_field_was_its_class_default_and_the_init_parameter_unknown(tmp_path):
    # a call that spreads a mapping may pass the field: not known which, the class default stays
    nodes = NODES.replace("Prompt(messages=messages)", "Prompt(**self.saved)")
    layout = one_call(tmp_path, SEND, _tree(RECORD, nodes))
    assert not any(s.kind is Kind.TIMESTAMP for p in layout.parts for s in p.segments)
    nodes = NODES.replace("Prompt(messages=messages)", "Prompt(*self.saved)")
    layout = one_call(tmp_path, SEND, _tree(PLAIN, nodes))
    assert not any(s.kind is Kind.TIMESTAMP for p in layout.parts for s in p.segments)


def test_too_many_constructor_calls_leave_the_field_as_it_was(tmp_path):
    many = "\n".join(f"    def other{i}(self):\n        return Prompt(messages=[{{'role': 'user', 'content': 'x{i}'}}])"
                     for i in range(5))
    nodes = NODES + "\n" + many.replace("    def", "        def").replace("\n        return", "\n            return") + "\n"
    layout = one_call(tmp_path, SEND, _tree(RECORD, nodes))
    assert not any(s.kind is Kind.TIMESTAMP for p in layout.parts for s in p.segments)


def test_a_field_a_method_sets_again_is_not_read_from_the_constructor_calls(tmp_path):
    core = RECORD + """
        def reset(self):
            self.messages = []
    """
    layout = one_call(tmp_path, SEND, _tree(core))
    assert not any(s.kind is Kind.TIMESTAMP for p in layout.parts for s in p.segments)


def test_unknown_content_of_a_field_says_which_constructor_call_passed_it(tmp_path):
    nodes = """
        from .core import Prompt


        def make(spec):
            return Prompt(messages=[{"role": "user", "content": spec.render()}])
    """
    send = """
        from app.core import Prompt


        def text_of(prompt: Prompt):
            probe(prompt.messages[0]["content"])
    """
    found = probe(tmp_path, send, _tree(RECORD, nodes), name="app/send.py")
    (only,) = found.segs
    assert only.volatility is Volatility.UNKNOWN
    assert only.evidence.endswith("; passed as `Prompt.messages` at nodes.py:5")


def test_a_slice_after_the_leading_messages_written_in_the_code(tmp_path):
    source = """
        def send(history):
            probe([{"role": "system", "content": "rules"}, {"role": "user", "content": "hi"}, *history][1:])
    """
    value = probe(tmp_path, source).value
    assert len(value.items) == 2 and value.items[0].items["content"].segs[0].text == "hi"
    # a list that starts with the spread history is not cut here
    source = source.replace(', *history][1:]', '][1:]').replace('probe([', 'probe([*history, ')
    value = probe(tmp_path, source).value
    assert not (hasattr(value, "items") and len(value.items) == 2)


def test_an_unannotated_parameter_whose_caller_hands_on_a_typed_one(tmp_path):
    send = """
        import anthropic
        from app.core import Prompt


        class Claude:
            def generate(self, prompt: Prompt):
                return self._generate(prompt)

            def _generate(self, prompt):
                return anthropic.Anthropic().messages.create(
                    model="claude-sonnet-4-5", max_tokens=100,
                    system=prompt.messages[0]["content"], messages=prompt.messages[1:])
    """
    layout = one_call(tmp_path, send, _tree(RECORD))
    system = parts(layout)[0]
    assert system[1][-1][:2] == ("timestamp", "per-request")


def test_two_constructor_calls_are_one_value_each(tmp_path):
    nodes = NODES + """
        def summary_prompt(self, text):
            return Prompt(messages=[{"role": "system", "content": "Summarise."}, {"role": "user", "content": text}])
    """
    send = """
        from app.core import Prompt


        def first_text(prompt: Prompt):
            probe(prompt.messages[0]["content"])
    """
    found = probe(tmp_path, send, _tree(RECORD, nodes), name="app/send.py")
    assert isinstance(found.value, Alt) and len(found.value.options) == 2
    texts = sorted("".join(s.text for s in o.segs if s.is_static)[:10] for o in found.value.options)
    assert texts == ["Summarise.", SYSTEM[:10]]
