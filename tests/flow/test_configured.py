"""Values chosen by configuration (flow/configured.py): a field with the default None that no method
writes, a parameter of `__init__` with a default, are the same on every request (stable); a field a
method sets, a field of an object handed in as a parameter, a required field, a parameter of a
method that serves a request, and a name that says what it is (`user_id`) keep what they were."""
from __future__ import annotations

from analysis_support import probe

from promptlint.model import Kind, Volatility

FIELDS = """
    import json
    from typing import List, Optional
    from pydantic import BaseModel, Field


    class Reply(BaseModel):
        text: Optional[str] = None


    class Note:
        def __init__(self, body=None):
            self.body = body


    class Bot(BaseModel):
        description: Optional[str] = None
        task: str = Field(default=None)
        topic: str = Field(...)
        session_id: Optional[str] = None
        answer: Optional[str] = None
        fields: Optional[List[str]] = None

        def run(self, message: str, reply: Reply, note: Note):
            self.answer = message
            probe((self.description or "You are a helpful assistant.") + " Answer briefly.")
            probe(f"Task: {self.task}. Answer briefly.")
            probe(f"Topic: {self.topic}. Answer briefly.")
            probe(f"Session {self.session_id}. Answer briefly.")
            probe(f"Said {self.answer}. Answer briefly.")
            probe(f"Reply {reply.text}. Answer briefly.")
            probe(f"Note {note.body}. Answer briefly.")
            probe(f"Fields {json.dumps(self.fields)}. Answer briefly.")
"""


def first(tmp_path, index):
    return next(s for s in probe(tmp_path, FIELDS, index=index).segs if not s.is_static)


def test_a_field_with_a_none_default_no_method_sets_is_configuration(tmp_path):
    s = first(tmp_path, 1)
    assert (s.kind, s.volatility) == (Kind.UNKNOWN, Volatility.STABLE), s
    assert "(configuration)" in s.evidence
    # `self.description or "You are ..."`: the configuration unread, or its default: the default's text
    assert [s.text for s in probe(tmp_path, FIELDS, index=0).segs] == ["You are a helpful assistant.", " Answer briefly."]


def test_a_required_field_a_named_field_and_a_field_a_method_sets_keep_their_reading(tmp_path):
    assert first(tmp_path, 2).volatility is Volatility.UNKNOWN  # Field(...): each caller gives it
    assert first(tmp_path, 3).kind is Kind.UNIQUE_ID  # the name is the evidence
    assert first(tmp_path, 4).volatility is not Volatility.STABLE  # set from the message in run()


def test_a_field_of_an_object_handed_in_is_not_configuration(tmp_path):
    assert first(tmp_path, 5).volatility is Volatility.UNKNOWN
    assert first(tmp_path, 6).volatility is Volatility.UNKNOWN


def test_a_configured_list_serialises_the_same_every_request(tmp_path):
    s = first(tmp_path, 7)
    assert s.kind is Kind.SERIALIZED and s.ordered


WRITTEN = """
    from typing import Optional


    class Bot:
        description: Optional[str] = None

        def prompt(self):
            probe(f"{self.description} Answer briefly.")


    def handle(bot: Bot, text: str):
        bot.description = text
"""


def test_a_field_written_elsewhere_in_its_module_is_not_configuration(tmp_path):
    s = next(s for s in probe(tmp_path, WRITTEN).segs if not s.is_static)
    assert s.volatility is Volatility.UNKNOWN


INIT = """
    from typing import Optional


    class Bot:
        def __init__(self, llm, system_prompt: Optional[str] = None, persona=None, session_id=None):
            self.llm = llm
            self.system_prompt = system_prompt or "You are a helpful assistant."
            self.persona = persona
            self.session_id = session_id

        def ask(self, question, tone=None):
            probe(f"{self.system_prompt} {self.persona} Answer briefly.")
            probe(f"{self.llm} Answer briefly.")
            probe(f"{self.session_id} Answer briefly.")
            probe(f"{tone} Answer briefly.")
"""


def test_an_init_parameter_with_a_default_is_configuration(tmp_path):
    segs = probe(tmp_path, INIT, index=0).segs
    got = [s for s in segs if not s.is_static]
    assert [(s.expr, s.kind, s.volatility) for s in got] == [("persona", Kind.UNKNOWN, Volatility.STABLE)]
    # `system_prompt or "You are ..."` with `system_prompt=None` unread: the default's text
    assert segs[0].is_static and segs[0].text == "You are a helpful assistant."


def test_an_id_and_a_method_parameter_stay_as_they_were(tmp_path):
    # (`self.llm`, a required parameter of a class whose methods take input: tests/flow/test_built_with.py)
    for index, kind in ((2, Kind.UNIQUE_ID), (3, Kind.UNKNOWN)):
        s = next(s for s in probe(tmp_path, INIT, index=index).segs if not s.is_static)
        assert s.kind is kind and s.volatility is not Volatility.STABLE, (index, s)


CAST = """
    from typing import Optional, cast


    class Model:
        system_prompt: Optional[str] = None

        def system(self):
            return self.system_prompt


    class Bot:
        model: Optional[Model] = None

        def ensure(self):
            if self.model is None:
                self.model = Model()
            self.model = cast(Model, self.model)

        def prompt(self):
            probe(f"{self.model.system()} Answer briefly.")
"""


def test_cast_of_an_attribute_to_itself_sets_nothing_new(tmp_path):
    s = next(s for s in probe(tmp_path, CAST).segs if not s.is_static)
    assert (s.kind, s.volatility) == (Kind.UNKNOWN, Volatility.STABLE), s


BUILT = """
    class Prompt:
        def __init__(self, context=None, style=None):
            self.context = context
            self.style = style

        def text(self):
            probe(f"{self.style} {self.context} Answer from the context.")


    def handle(question, store):
        return Prompt(context=store.search(question)).text()
"""


def test_an_init_parameter_the_constructor_calls_pass_is_what_they_pass(tmp_path):
    got = [s for s in probe(tmp_path, BUILT).segs if not s.is_static]
    assert got[0].volatility is Volatility.STABLE  # `style`: no call passes it
    assert got[1].volatility is not Volatility.STABLE  # `context`: retrieved with the question
