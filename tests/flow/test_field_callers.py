"""A field of a record class read by a method of an instance built elsewhere (`self.doc_schema`
in `set_system_message`) holds what the class's constructor calls pass for it
(flow/callers.py `field_arguments`), not only its class default."""
from __future__ import annotations

from analysis_support import probe

from promptlint.model import Kind
from promptlint.python.flow.values import Alt

CONFIG = """
    from pydantic import BaseModel


    class PlannerConfig(BaseModel):
        doc_schema: str = ""
        critic: str | None = None
        style: str = "brief"

        def schema(self):
            probe(self.doc_schema)
            probe(self.critic)
            probe(self.style)
"""


def test_a_field_takes_what_the_constructor_calls_in_the_tree_pass(tmp_path):
    files = {
        "app/__init__.py": "",
        "app/docs.py": """
            class DocAgent:
                def __init__(self, columns: list):
                    self.columns = columns

                def clean_schema(self) -> str:
                    return "Fields: " + ",".join(set(self.columns) - {"id"})
        """,
        "app/task.py": """
            from .docs import DocAgent
            from .config import PlannerConfig


            def make(agent: DocAgent):
                return PlannerConfig(doc_schema=agent.clean_schema(), style="long")
        """,
    }
    given = probe(tmp_path, CONFIG, files, name="app/config.py", index=0)
    assert [s.kind for s in given.segs if not s.is_static] == [Kind.UNORDERED_ITERATION]
    assert given.segs[0].text == "Fields: "
    # a field no call passes (None by default) stays as it was; one passed is the passed text
    assert probe(tmp_path, CONFIG, files, name="app/config.py", index=2).described == [("text", "long")]


def test_a_call_that_does_not_pass_the_field_gives_its_default(tmp_path):
    files = {
        "app/__init__.py": "",
        "app/task.py": """
            from .config import PlannerConfig


            def make(schema: str):
                first = PlannerConfig(style="long")
                return first, PlannerConfig()
        """,
    }
    value = probe(tmp_path, CONFIG, files, name="app/config.py", index=2).value
    assert isinstance(value, Alt)  # one instance or the other: "long" or the default "brief"
    assert sorted("".join(s.text for s in o.segs) for o in value.options) == ["brief", "long"]


def test_positional_or_spread_arguments_keep_the_class_default(tmp_path):
    files = {
        "app/__init__.py": "",
        "app/task.py": """
            from .config import PlannerConfig


            def make(options: dict):
                return PlannerConfig(**options)
        """,
    }
    assert probe(tmp_path, CONFIG, files, name="app/config.py", index=2).described == [("text", "brief")]
