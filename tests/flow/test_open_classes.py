"""A field read in a class's own method holds what the constructor calls of the instance pass
(flow/callers.field_arguments) only when those calls are all there are: a class the package's
users build (exported by an `__init__.py` or `__all__`, or a base of another class) is configured
by them, and one caller of the tree is not its value (flow/open_classes.py)."""
from __future__ import annotations

from analysis_support import probe

from promptlint.model import Kind, Volatility

RECORD = """
    from pydantic import BaseModel


    class Persona(BaseModel):
        description: str | None = None

        def system(self):
            probe(f"{self.description} Answer from the documents you are given.")
"""

BUILDER = """
    from .persona import Persona


    def grader(question):
        return Persona(description=f"Grade the answer to {question}")
"""


def _first(found):
    """(kind, volatility) of the first dynamic segment."""
    s = next(s for s in found.segs if not s.is_static)
    return s.kind, s.volatility


def test_one_caller_of_a_package_private_class_is_its_field_s_value(tmp_path):
    files = {"app/__init__.py": "", "app/grading.py": BUILDER}
    assert _first(probe(tmp_path, RECORD, files, name="app/persona.py")) == (Kind.USER_INPUT, Volatility.PER_REQUEST)


def test_a_class_its_package_exports_is_configured_by_whoever_builds_it(tmp_path):
    files = {"app/__init__.py": "from app.persona import Persona\n", "app/grading.py": BUILDER}
    found = probe(tmp_path, RECORD, files, name="app/persona.py")
    assert _first(found) == (Kind.UNKNOWN, Volatility.STABLE)
    assert "(configuration)" in next(s for s in found.segs if not s.is_static).evidence


def test_an_export_through_a_parent_package_or_a_star_import_counts(tmp_path):
    files = {"app/__init__.py": "from .core import *\n", "app/core/__init__.py": "from .persona import Persona\n",
             "app/grading.py": BUILDER.replace(".persona", ".core.persona")}
    assert _first(probe(tmp_path, RECORD, files, name="app/core/persona.py"))[1] is Volatility.STABLE
    files = {"app/__init__.py": "from .persona import *\n", "app/grading.py": BUILDER}
    assert _first(probe(tmp_path / "star", RECORD, files, name="app/persona.py"))[1] is Volatility.STABLE
    # through a sibling module that imports it in turn (`from phi.agent.agent import AgentSession`)
    files = {"app/__init__.py": "from app.agent import Persona\n", "app/agent.py": "from app.persona import Persona\n",
             "app/grading.py": BUILDER}
    assert _first(probe(tmp_path / "chain", RECORD, files, name="app/persona.py"))[1] is Volatility.STABLE


def test_a_class_listed_in_its_module_s_all_is_exported(tmp_path):
    files = {"app/__init__.py": "", "app/grading.py": BUILDER}
    listed = RECORD.replace("    class Persona", '    __all__ = ["Persona"]\n\n\n    class Persona')
    assert _first(probe(tmp_path, listed, files, name="app/persona.py"))[1] is Volatility.STABLE


def test_a_private_name_keeps_its_callers_whoever_imports_it(tmp_path):
    private = RECORD.replace("Persona", "_Persona")
    files = {"app/__init__.py": "from app.persona import _Persona\n",
             "app/grading.py": BUILDER.replace("Persona", "_Persona")}
    assert _first(probe(tmp_path, private, files, name="app/persona.py"))[1] is Volatility.PER_REQUEST


def test_a_base_another_class_extends_is_configured_by_its_users(tmp_path):
    files = {"app/__init__.py": "", "app/grading.py": BUILDER,
             "app/tutor.py": "from .persona import Persona\n\n\nclass Tutor(Persona):\n    level: int = 1\n"}
    assert _first(probe(tmp_path, RECORD, files, name="app/persona.py")) == (Kind.UNKNOWN, Volatility.STABLE)
    # a namesake base of another module's own class is not this class
    files["app/tutor.py"] = "class Persona:\n    pass\n\n\nclass Tutor(Persona):\n    level: int = 1\n"
    assert _first(probe(tmp_path / "namesake", RECORD, files, name="app/persona.py"))[1] is Volatility.PER_REQUEST
