"""A field a subclass's method reads holds what the constructor calls of the subclass pass, never
those of the base that declares the field (`Agent(description=...)` builds no `DuckAgent`):
flow/objects.py `_instance_class`, flow/callers.field_arguments. An `__init__` the subclass
inherits takes the subclass's calls; one of its own hands the base's parameters its own arguments."""
from __future__ import annotations

from analysis_support import probe

from promptlint.model import Kind, Volatility


def _first(found):
    """(kind, volatility) of the first dynamic segment."""
    s = next(s for s in found.segs if not s.is_static)
    return s.kind, s.volatility


SUBCLASS = """
    from pydantic import BaseModel


    class Persona(BaseModel):
        description: str | None = None


    class Tutor(Persona):
        def system(self):
            probe(f"{self.description} Answer from the documents you are given.")


    def grader(question):
        return Persona(description=f"Grade the answer to {question}")
"""


def test_a_subclass_s_method_reads_what_the_subclass_is_built_with_not_the_base(tmp_path):
    assert _first(probe(tmp_path, SUBCLASS)) == (Kind.UNKNOWN, Volatility.STABLE)
    built = SUBCLASS + """
    def tutor(question):
        return Tutor(description=f"Tutor the student on {question}")
"""
    assert _first(probe(tmp_path / "built", built)) == (Kind.USER_INPUT, Volatility.PER_REQUEST)


PLAIN = """
    class Persona:
        def __init__(self, description=None):
            self.description = description


    class Tutor(Persona):
        def system(self):
            probe(f"{self.description} Answer from the documents you are given.")


    def grader(question):
        return Persona(description=question)
"""


def test_an_inherited_init_reads_the_calls_of_the_instance_s_own_class(tmp_path):
    assert _first(probe(tmp_path, PLAIN)) == (Kind.UNKNOWN, Volatility.STABLE)
    built = PLAIN + """
    def tutor(question):
        return Tutor(description=question)
"""
    assert _first(probe(tmp_path / "built", built)) == (Kind.USER_INPUT, Volatility.PER_REQUEST)
    # a subclass with an `__init__` of its own hands the base's parameter arguments of its own
    own = built.replace("    class Tutor(Persona):\n", "    class Tutor(Persona):\n"
                        "        def __init__(self, level=1):\n"
                        "            super().__init__(\"You are a tutor.\")\n\n")
    assert _first(probe(tmp_path / "own", own))[1] is not Volatility.PER_REQUEST


PRIVATE = """
    import random
    from typing import Optional
    from pathlib import Path

    from jinja2 import Template
    from pydantic import BaseModel, PrivateAttr


    class Task(BaseModel):
        _template_name: str = PrivateAttr(default="generic")
        _template: Optional[Template] = PrivateAttr(...)

        def load(self):
            path = Path(__file__).parent / "templates" / f"{self._template_name}.j2"
            self._template = Template(open(path).read())


    class Retrieval(Task):
        _template_name: str = PrivateAttr(default="retrieval")

        def format_input(self, input):
            probe(self._template.render(task=input["task"]))
"""


def test_pydantic_private_attributes_hold_their_declared_default(tmp_path):
    """`PrivateAttr(default=...)` is the field's default as `Field(default=...)` is; a bare
    `PrivateAttr(...)` declares a placeholder a method fills (here `load`), not a value."""
    files = {"templates/retrieval.j2": "Retrieve for {{ task }} and answer in JSON.\n",
             "templates/generic.j2": "Generic.\n"}
    p = probe(tmp_path, PRIVATE, files)
    assert p.described == [("text", "Retrieve for "), ("unknown", "unknown", "task"), ("text", " and answer in JSON.")]
