"""The evaluator on template classes (issue 11): a class whose instances carry a template's file
name and values (`AgentTemplate(agent=self).render()`, pydantic) and render it through a base
class's method. What that takes, each shown on its own: an import inside a function, a class
called through its module (`templates.AgentTemplate(...)`), `dict(model)` of an instance, `a | b`
of two dicts, `super().method(...)`, an attribute whose annotation names a class of the tree, a
Jinja `PackageLoader`, and one template or another (an override we cannot read, else the file)."""
from __future__ import annotations

from analysis_support import probe, segs

from promptlint.model import Kind, Volatility
from promptlint.python.flow.values import Mapping, Obj

MODELS = """
    import random
    from typing import Optional

    from pydantic import BaseModel, Field

    NAMES = ["Ada", "Grace"]


    class Agent(BaseModel):
        name: str = Field(default_factory=lambda: random.choice(NAMES))
        role: str = "writer"
        notes: Optional[str] = None


    class Run(BaseModel):
        agent: Optional[Agent] = None
        other: "Agent" = Field(description="required: each run is given one")

        def pick(self, strategy):
            self.agent = strategy.next_agent()
"""


def test_an_import_inside_a_function_is_resolved(tmp_path):
    source = """
        def make():
            from uuid import uuid4
            import models
            return probe(f"{uuid4()} {models.NAMES[0]}")
    """
    p = probe(tmp_path, source, {"models.py": MODELS})
    assert [(d[0], d[1]) for d in p.described[:1]] == [("unique-id", "per-request")]
    assert p.text.endswith(" Ada")


def test_an_import_inside_a_function_is_not_seen_in_another(tmp_path):
    source = """
        def make():
            from uuid import uuid4
            return uuid4()


        def other():
            return probe(f"{uuid4()}")
    """
    assert [d[0] for d in probe(tmp_path, source).described] == ["unknown"]


def test_a_class_called_through_its_module_makes_an_instance(tmp_path):
    source = """
        def make():
            import models
            return probe(models.Agent(role="editor"))
    """
    value = probe(tmp_path, source, {"models.py": MODELS}).value
    assert isinstance(value, Obj) and value.qualname == "instance:Agent"


def test_dict_of_a_model_holds_its_fields_and_a_merge_keeps_both(tmp_path):
    source = """
        from models import Agent

        def make(extra):
            agent = Agent(role="editor")
            return probe(dict(agent) | {"extra": "x"})
    """
    p = probe(tmp_path, source, {"models.py": MODELS})
    # (`notes`, default None and never set again, is the configuration the instance was built with)
    assert isinstance(p.value, Mapping) and list(p.value.items) == ["name", "role", "notes", "extra"]
    (name,) = p.ev.text_of(p.value.items["name"], p.frame)
    assert (name.kind, name.volatility) == (Kind.UNIQUE_ID, Volatility.PER_CONVERSATION)
    assert p.ev.text_of(p.value.items["role"], p.frame)[0].text == "editor"


def test_an_attribute_annotated_with_a_class_of_the_tree(tmp_path):
    source = """
        from models import Run

        def make(run: Run):
            return probe(run.agent.name + " / " + run.other.name)
    """
    described = probe(tmp_path, source, {"models.py": MODELS}).described
    assert [d[:2] for d in described] == [("unique-id", "per-conversation"), ("text", " / "),
                                          ("unique-id", "per-conversation")]


def test_an_attribute_annotated_with_a_builtin_type_stays_unknown(tmp_path):
    source = """
        from models import Run

        def make(run: Run):
            return probe(run.agent.notes)
    """
    described = probe(tmp_path, source, {"models.py": MODELS}).described
    assert [d[:2] for d in described] != [("text", "None")] and all(d[0] != "unique-id" for d in described)


def test_super_calls_the_base_method_on_the_same_instance(tmp_path):
    source = """
        class Base:
            greeting = "Hello"

            def render(self, who):
                return f"{self.greeting}, {who}"


        class Child(Base):
            greeting = "Hi"

            def render(self, who):
                return super().render(who.upper())


        def make():
            return probe(Child().render("ada"))
    """
    assert probe(tmp_path, source).text == "Hi, ADA"


TEMPLATES = """
    from typing import Optional

    from jinja2 import Environment, PackageLoader
    from pydantic import BaseModel

    env = Environment(loader=PackageLoader("app", "prompt_templates"))


    class Template(BaseModel):
        template: Optional[str] = None
        template_path: Optional[str] = None

        def render(self, **kwargs) -> str:
            values = dict(self)
            del values["template"]
            if self.template is not None:
                template = env.from_string(self.template)
            else:
                template = env.get_template(self.template_path)
            return template.render(**values | kwargs)


    class GreetTemplate(Template):
        template_path: str = "greet.jinja"
        who: str
"""


def test_a_template_class_renders_its_packaged_file(tmp_path):
    source = """
        from uuid import uuid4

        from app.templates import GreetTemplate

        def make(custom):
            return probe(GreetTemplate(template=custom, who=str(uuid4())).render())
    """
    files = {"app/__init__.py": "", "app/templates.py": TEMPLATES,
             "app/prompt_templates/greet.jinja": "Hello {{ who }}, welcome to the support desk.\n"}
    p = probe(tmp_path, source, files, name="main.py")
    assert [d[:2] for d in p.described] == [("text", "Hello "), ("unique-id", "per-request"),
                                            ("text", ", welcome to the support desk.")]
    assert segs(p.segs)[1][2] == "who"
