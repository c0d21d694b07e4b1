"""The evaluator on objects of the analysed tree: class attributes, `self.x` assigned in
`__init__` (fixed per instance) and in several methods (alternatives), properties, methods,
subclasses overriding class attributes, dataclass fields, lists grown on the instance across turns,
and prompt attributes of objects we cannot see, found by name."""
from __future__ import annotations

from analysis_support import pos, probe

from promptlint.model import Kind, Precision, Volatility
from promptlint.python.flow.values import Alt, Func, Obj

CLASSES = """
    import uuid
    from datetime import datetime


    class Base:
        PERSONA = "You are a helpful bot."

        def __init__(self, name):
            self.name = name
            self.session = str(uuid.uuid4())
            self.started = datetime.now()
            self.mode = "short"

        def set_long(self):
            self.mode = "long"

        @property
        def header(self):
            return f"{self.PERSONA} Mode: {self.mode}."

        def system(self):
            return self.header + " Session " + self.session


    class Child(Base):
        PERSONA = "You are a child bot."


    def f():
        b = Base("x")
        probe(b.PERSONA)
        probe(b.header)
        probe(b.system())
        c = Child("y")
        probe(c.PERSONA)
        probe(c.header)
        probe(b.started)
        probe(b.set_long)
        probe(Base.PERSONA)
"""


def test_class_attributes_and_subclasses(tmp_path):
    assert probe(tmp_path, CLASSES, index=0).described == [("text", "You are a helpful bot.")]
    child = probe(tmp_path, CLASSES, index=3)
    assert child.described == [("text", "You are a child bot.")]  # the subclass overrides it
    assert child.segs[0].span.start == pos(CLASSES, "You are a child bot.")
    assert probe(tmp_path, CLASSES, index=7).described == [("text", "You are a helpful bot.")]  # on the class


def test_a_base_class_is_read_once_however_often_its_members_are_looked_up(tmp_path):
    # `c.header` and `c.system()` each walk Child's bases: `Base` is read once in the file's analysis
    p = probe(tmp_path, CLASSES.replace("probe(c.header)", "probe(c.header + c.system() + c.header)"), index=4)
    assert "You are a child bot." in [s.text for s in p.segs]
    base = p.module.classes["Child"].bases[0]
    cached = p.ev._return_cache[("base class", id(base))]
    assert cached[0] is base and cached[1].node is p.module.classes["Base"]
    spent = 60_000 - p.ev.budget.left
    p.ev.reset_budget()
    assert p.ev._base_class(p.module, base) is cached[1] and p.ev.budget.left == 60_000  # (no unit spent again)
    assert spent > 0


def test_a_property_and_an_attribute_assigned_in_several_methods(tmp_path):
    p = probe(tmp_path, CLASSES, index=1)
    # `self.mode` is "short" (in __init__) or "long" (in set_long): one of two values
    assert p.described == [("text", "You are a helpful bot."), ("text", " Mode: "),
                           ("conditional", "unknown", "short"), ("text", ".")]
    mode = p.segs[2]
    assert mode.span.start == pos(CLASSES, "{self.mode}")
    assert mode.origin.start == pos(CLASSES, '"short"')
    # in a subclass the property reads the subclass's class attribute
    assert probe(tmp_path, CLASSES, index=4).segs[0].text == "You are a child bot."


def test_values_set_once_in_init_identify_the_instance(tmp_path):
    p = probe(tmp_path, CLASSES, index=2)
    uid = p.segs[-1]
    assert (uid.kind, uid.volatility) == (Kind.UNIQUE_ID, Volatility.PER_CONVERSATION)
    assert uid.evidence == "call to `uuid.uuid4()` (set once per instance)"
    assert uid.span.start == pos(CLASSES, "uuid.uuid4()")
    started = probe(tmp_path, CLASSES, index=5)
    seg, = started.segs
    assert (seg.kind, seg.volatility, seg.precision) == (Kind.TIMESTAMP, Volatility.PER_CONVERSATION, Precision.SUB_DAY)


def test_a_method_is_a_function_bound_to_the_instance(tmp_path):
    p = probe(tmp_path, CLASSES, index=6)
    assert isinstance(p.value, Func)
    assert p.value.node.name == "set_long"
    assert isinstance(p.value.self_value, Obj) and p.value.self_value.qualname == "instance:Base"


def test_pydantic_field_default(tmp_path):
    src = """
        from pydantic import BaseModel, Field


        class Settings(BaseModel):
            tone: str = Field(default="friendly", description="how to answer")


        def f(settings: Settings):
            probe(settings.tone)
    """
    assert probe(tmp_path, src).described == [("text", "friendly")]  # the parameter's annotation


def test_a_field_whose_default_is_none_is_set_per_instance(tmp_path):
    src = """
        from typing import Optional
        from pydantic import BaseModel, Field


        class EnvState(BaseModel):
            url: Optional[str] = None
            title: str | None = Field(default=None)
            tone: str = "plain"


        class Agent:
            page = None

            def visit(self, page):
                self.page = page


        def f(state: EnvState, agent: Agent):
            probe(f"The current URL is {state.url}.")
            probe(state.title)
            probe(state.tone)
            probe(agent.page)
    """
    # None is a placeholder each instance fills in: the value is not known, never the text "None"
    url = probe(tmp_path, src, index=0).described
    assert url[0] == ("text", "The current URL is ") and url[1][:2] == ("unknown", "unknown")
    assert probe(tmp_path, src, index=1).described[0][:2] == ("unknown", "unknown")
    assert probe(tmp_path, src, index=2).described == [("text", "plain")]  # a real default stays
    page, = probe(tmp_path, src, index=3).segs  # the method's assignment, not the class's None
    assert not page.is_static and page.text != "None"


def test_dataclass_fields_default_and_default_factory(tmp_path):
    src = """
        import uuid
        from dataclasses import dataclass, field
        from datetime import datetime


        @dataclass
        class Conversation:
            cid: str = field(default_factory=lambda: str(uuid.uuid4()))
            opened: datetime = field(default_factory=datetime.now)
            tag: str = field(default="general")
            notes: list = field(default_factory=list)

            def header(self):
                probe(self.tag)
                probe(f"Conversation {self.cid}")
                probe(self.opened)
    """
    assert probe(tmp_path, src, index=0).described == [("text", "general")]
    cid = probe(tmp_path, src, index=1).segs[1]
    # made by the factory once for each new instance: it identifies the conversation
    assert (cid.kind, cid.volatility) == (Kind.UNIQUE_ID, Volatility.PER_CONVERSATION)
    assert cid.evidence == "call to `uuid.uuid4()` (default of each new instance)"
    assert cid.origin.start == pos(src, "uuid.uuid4()")
    opened, = probe(tmp_path, src, index=2).segs
    assert (opened.kind, opened.volatility, opened.precision) == (Kind.TIMESTAMP, Volatility.PER_CONVERSATION,
                                                                  Precision.SUB_DAY)
    assert opened.span.start == pos(src, "datetime.now)")


def test_attrs_fields_factories_and_positional_arguments(tmp_path):
    src = """
        import uuid
        from attrs import Factory, define, field


        @define
        class Loader:
            folder: str
            code: str = field(default=Factory(lambda: uuid.uuid4().hex), kw_only=True)
            name: str = field(default=Factory(lambda self: self.code, takes_self=True))
            env: dict = field(default=Factory(lambda self: Env(path=self.folder), takes_self=True), kw_only=True)
            tags: list = field(factory=list)


        class Env:
            def __init__(self, path):
                self.path = path


        def build():
            loader = Loader("prompts")
            probe(loader.folder)
            probe(f"Ruleset name: {loader.name}")
            probe(loader.env.path)
    """
    # a positional argument of an attrs class binds its first field (`code` is keyword-only)
    assert probe(tmp_path, src, index=0).described == [("text", "prompts")]
    # `name` defaults, through the instance, to a uuid its factory makes for each new instance
    name = probe(tmp_path, src, index=1).segs[1]
    assert (name.kind, name.volatility) == (Kind.UNIQUE_ID, Volatility.PER_CONVERSATION)
    assert name.evidence.endswith("(default of each new instance)")
    # an object the factory builds from the instance
    assert probe(tmp_path, src, index=2).described == [("text", "prompts")]


def test_a_list_grown_on_the_instance_is_the_conversation(tmp_path):
    src = """
        class Chat:
            def __init__(self):
                self.history = []

            def turn(self, msg):
                self.history.append({"role": "user", "content": msg})
                probe(self.history)
                probe(self.unknown_attr)
                probe(self.request_id)
    """
    p = probe(tmp_path, src, index=0)
    assert p.described == [("history", "unknown", "self.history")]
    assert p.segs[0].evidence == "`self.history` grows across turns"
    unknown = probe(tmp_path, src, index=1)
    assert unknown.described == [("unknown", "unknown", "self.unknown_attr")]
    named = probe(tmp_path, src, index=2)  # not assigned anywhere: its name is the only evidence
    assert named.described == [("unique-id", "per-request", "self.request_id")]
    assert named.segs[0].name_only


def test_a_list_of_records_of_a_class_without_a_role_is_not_the_conversation(tmp_path):
    src = """
        from dataclasses import dataclass
        from typing import List


        @dataclass
        class Event:
            type: str
            data: dict


        @dataclass
        class Message:
            role: str
            content: str


        class Bus:
            def __init__(self):
                self._event_history: List[Event] = []
                self.chat_history: List[Message] = []
                self.history: list[dict] = []

            def publish(self, event: Event, msg: Message):
                self._event_history.append(event)
                self.chat_history.append(msg)
                self.history.append({"role": "user", "content": msg.content})
                probe(self._event_history)
                probe(self.chat_history)
                probe(self.history)
    """
    # events: the items are records of a class of the tree with no role, whatever the name says
    assert all(s.kind is not Kind.HISTORY for s in probe(tmp_path, src, index=0).segs)
    for index, name in ((1, "self.chat_history"), (2, "self.history")):  # messages, or items not known
        assert probe(tmp_path, src, index=index).described == [("history", "unknown", name)]


def test_a_prompt_attribute_of_an_unknown_object_is_found_by_name(tmp_path):
    src = """
        def f(config):
            probe(config.system_prompt)
    """
    files = {"settings.py": """
        class Settings:
            system_prompt = "You are the configured assistant."
    """}
    p = probe(tmp_path, src, files)
    assert p.described == [("text", "You are the configured assistant.")]
    assert p.segs[0].span.filename.endswith("settings.py")


def test_attributes_assigned_in_many_places_stay_partly_unknown(tmp_path):
    src = """
        class Bot:
            def a(self): self.tone = "1"
            def b(self): self.tone = "2"
            def c(self): self.tone = "3"
            def d(self): self.tone = "4"
            def e(self): self.tone = "5"
            def g(self): self.tone = "6"
            def h(self): self.tone = "7"

            def run(self):
                probe(self.tone)
    """
    p = probe(tmp_path, src)
    assert isinstance(p.value, Alt)
    assert len(p.value.options) == 7  # six read (MAX_ASSIGNS), one for the rest
    last = p.value.options[-1].segs[0]
    assert last.evidence == "`self.tone` is assigned in many places"


def test_constructor_arguments_reach_init(tmp_path):
    src = """
        class Formatter:
            def __init__(self, prefix, suffix="."):
                self.prefix = prefix
                self.suffix = suffix

            def wrap(self, text):
                return self.prefix + text + self.suffix


        def f():
            probe(Formatter("> ").wrap("a") + Formatter(prefix="# ", suffix="!").wrap("b"))
    """
    p = probe(tmp_path, src)
    assert [s.text for s in p.segs] == ["> ", "a", ".", "# ", "b", "!"]
    assert p.segs[0].span.start == pos(src, '> "')  # the argument, where the caller wrote it


ENHANCERS = """
    class Enhancer:
        async def enhance(self, system_prompt, user_message):
            return system_prompt


    class MemoryEnhancer(Enhancer):
        def __init__(self, store):
            self.store = store

        async def enhance(self, system_prompt, user_message):
            found = await self.store.search(query=user_message)
            return system_prompt + "\\n## Notes\\n" + "".join(f"- {n.text}\\n" for n in found)


    class Agent:
        def __init__(self, store, enhancer=None):
            if enhancer is None:
                enhancer = MemoryEnhancer(store)
            self.enhancer = enhancer

        async def reply(self, message):
            probe(await self.enhancer.enhance("You answer questions.", message))
"""


def test_a_method_of_an_attribute_set_to_one_of_several_objects_gives_what_each_gives(tmp_path):
    # `self.enhancer` is the caller's object (not read) or the default MemoryEnhancer: the call
    # gives the default's text (with the notes it fetched with the user's message) or an unknown
    p = probe(tmp_path, ENHANCERS)
    assert isinstance(p.value, Alt)
    read = [o for o in p.value.options if "## Notes" in "".join(s.text for s in p.ev.text_of(o, p.frame))]
    assert len(read) == 1
    notes = [s for s in p.ev.text_of(read[0], p.frame) if not s.is_static]
    # `message` is not read, but it is passed as `user_message`: the name says it (Policy 7)
    assert [(s.kind, s.volatility) for s in notes] == [(Kind.USER_INPUT, Volatility.PER_REQUEST)]
    assert notes[0].evidence.startswith("data fetched with `user_message`")


def test_an_alternative_of_texts_keeps_its_string_methods(tmp_path):
    p = probe(tmp_path, """
        def f(flag):
            text = "You answer questions. " if flag else "You answer briefly. "
            probe(text.strip())
    """)
    assert p.text.startswith("You answer")


def test_a_record_built_with_its_fields_holds_what_its_constructor_was_given(tmp_path):
    src = """
        from dataclasses import dataclass


        @dataclass
        class ContextResult:
            context: str
            source: str = "kb"


        class Plain:
            def __init__(self, context):
                self.context = "fixed"


        async def build_context(query, store):
            if not query:
                return None
            hits = await store.search(query)
            return ContextResult(context=render(hits), source="web")


        async def answer(query, store):
            result = await build_context(query, store)
            probe(result.context)
            probe(result.source)
            probe(Plain(context=query).context)
    """
    # the field read of the record returned: what it was built with (found with the question)
    context, = probe(tmp_path, src, index=0).segs
    assert (context.kind, context.volatility) == (Kind.USER_INPUT, Volatility.PER_REQUEST)
    # the constructor's keyword, not the class default
    assert probe(tmp_path, src, index=1).described == [("text", "web")]
    # a class with its own __init__: the attribute is what __init__ assigns, not the keyword
    assert probe(tmp_path, src, index=2).described == [("text", "fixed")]


def test_a_record_field_its_methods_fill_is_not_what_the_constructor_was_given(tmp_path):
    src = """
        from pydantic import BaseModel


        class PlanResult(BaseModel):
            objective: str
            steps: list
            summary: str = ""

            def add_step(self, step):
                self.steps.append(step)

            def close(self, text):
                self.summary = text


        class Batch(BaseModel):
            items: list


        def run(objective, results):
            plan = PlanResult(objective=objective, steps=list(results), summary="none")
            probe(plan.steps)
            probe(plan.summary)
            probe(", ".join(Batch(items=[]).items))
    """
    # grown by a method: the list on the instance, not the constructor's value
    assert probe(tmp_path, src, index=0).described == [("history", "unknown", "self.steps")]
    # set again by a method: read as the class reads it, not the constructor's "none"
    assert probe(tmp_path, src, index=1).described != [("text", "none")]
    # an empty list a record is built with to be filled afterwards is not its content
    assert probe(tmp_path, src, index=2).described != []
