"""The evaluator on generator functions and record classes: a generator returns the list of what it
yields, in order (`yield x` appends, `yield from xs` extends; branches give variants, loops repeat),
as `list(gen())` holds it; a dataclass or NamedTuple of the tree takes its positional arguments by
its fields (`Message("system", text)` is a message with a role); a generator named for the prompt
it yields is a prompt candidate (docs/policies.md, Policy 9)."""
from __future__ import annotations

from analysis_support import evaluator, layouts, parts, probe, write

from promptlint import api
from promptlint.model import Kind, Volatility
from promptlint.python.flow.values import Alt, Obj, Seq, Spread, Text

GENERATORS = """
    def intro():
        yield "You are a coding assistant."


    def full(flag, extra):
        yield from intro()
        if flag:
            yield "Be terse."
        yield "Answer in English."
        for line in ["a", "b"]:
            yield line
        yield from extra


    def early(items):
        if not items:
            return
        yield "Items follow."


    def not_a_generator():
        def inner():
            yield "x"
        return "plain"


    def f(flag, extra, items):
        probe(list(full(flag, extra)))
        probe(list(early(items)))
        probe(not_a_generator())
"""


def _texts(seq):
    return [i.segs[0].text if isinstance(i, Text) else type(i).__name__ for i in seq.items]


def test_a_generator_returns_what_it_yields_in_order(tmp_path):
    value = probe(tmp_path, GENERATORS).value
    assert isinstance(value, Alt) and len(value.options) == 2  # with and without "Be terse."
    longer, shorter = sorted(value.options, key=lambda s: -len(s.items))
    assert _texts(longer)[:3] == ["You are a coding assistant.", "Be terse.", "Answer in English."]
    assert _texts(shorter)[:2] == ["You are a coding assistant.", "Answer in English."]
    assert longer.repeated and longer.head == 3  # the loop's items follow the three written before it
    assert isinstance(longer.items[-1], Spread) and longer.items[-1].expr == "extra"


def test_a_generator_that_returns_early_yields_what_its_end_holds(tmp_path):
    value = probe(tmp_path, GENERATORS, index=1).value
    assert isinstance(value, Seq) and _texts(value) == ["Items follow."]


def test_a_nested_generator_does_not_make_its_function_one(tmp_path):
    value = probe(tmp_path, GENERATORS, index=2).value
    assert isinstance(value, Text) and value.segs[0].text == "plain"


RECORDS = """
    from dataclasses import dataclass, field
    from typing import ClassVar, NamedTuple


    @dataclass(frozen=True)
    class Message:
        kind: ClassVar[str] = "message"
        role: str
        content: str
        files: list = field(default_factory=list)


    class Pair(NamedTuple):
        question: str
        answer: str


    class Plain:
        role: str


    def f(text):
        probe(Message("system", text))
        probe(Pair("q", "a"))
        probe(Plain("system"))
"""


def test_a_dataclass_takes_its_positional_arguments_by_its_fields(tmp_path):
    value = probe(tmp_path, RECORDS).value
    assert isinstance(value, Obj) and sorted(value.kwargs) == ["content", "role"]
    assert value.kwargs["role"].segs[0].text == "system"
    pair = probe(tmp_path, RECORDS, index=1).value
    assert [pair.kwargs[k].segs[0].text for k in ("question", "answer")] == ["q", "a"]
    assert probe(tmp_path, RECORDS, index=2).value.kwargs == {}  # not a record class: unknown order


def test_a_record_class_annotations_are_unparsed_once_however_often_it_is_built(tmp_path, monkeypatch):
    """The fields of a dataclass are read at each constructor call; each annotation (read for
    `ClassVar`) is unparsed once, kept on its node (`module.unparsed`)."""
    import ast
    unparsed: list[str] = []
    real = ast.unparse
    monkeypatch.setattr(ast, "unparse", lambda node: unparsed.append(real(node)) or unparsed[-1])
    ev = evaluator(tmp_path)
    for _ in range(3):
        value = probe(tmp_path, RECORDS, ev=ev).value
        assert sorted(value.kwargs) == ["content", "role"]  # `kind: ClassVar[str]` is no field
    assert sorted(unparsed) == ["ClassVar[str]", "list", "str", "str"]


PROMPT_GENERATOR = '''
    from dataclasses import dataclass
    from datetime import datetime

    RULES = "Answer in the user's language, cite the files you read, never invent paths. " * 100


    @dataclass
    class Message:
        role: str
        content: str


    def prompt_identity():
        yield Message("system", "You are a coding assistant.")


    def prompt_time():
        yield Message("system", f"Now: {datetime.now():%Y-%m-%d %H:%M}")


    def prompt_full():
        yield from prompt_identity()
        yield from prompt_time()
        yield Message("system", RULES)


    def stream_chunks(text):
        for word in text.split():
            yield {"role": "assistant", "content": word + " " + RULES}
'''


def test_a_generator_named_for_its_prompt_is_a_candidate(tmp_path):
    found = [lt for lt in layouts(tmp_path, PROMPT_GENERATOR) if lt.source == "python-constant"]
    # prompt_time and prompt_full, each at its first yield; never stream_chunks (not named for a prompt)
    assert [lt.site.start.row for lt in found] == [18, 22]
    described = parts(found[1])
    assert [role for role, _ in described] == ["system", "system", "system"]
    assert described[1][1][1] == ("timestamp", "per-request", "datetime.now()")


def test_a_timestamp_a_prompt_generator_yields_before_static_text_is_reported(tmp_path):
    write(tmp_path, {"app.py": PROMPT_GENERATOR})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    got = [(d.code, d.span.start.row, d.severity.value) for d in report.diagnostics]
    assert got == [("PRM102", 18, "warning")]  # ~1,600 static tokens of RULES after it


UNPACKED_RUN = """
    class Memory:
        def run(self, messages, store):
            for chunk in store.search(self.topic):
                yield [{"role": "assistant", "content": chunk}]


    def f(messages, cut, store):
        mem = Memory()
        *_, last = mem.run(messages=messages, store=store)
        probe(last[-1]["content"])
        *_, older = mem.run(messages[:cut], store)
        probe(older[-1]["content"])
        *_, other = mem.run([], store)
        probe(other[-1]["content"])


    async def g(messages, store):
        *_, last = await Memory().run(messages, store)
        probe(last[-1]["content"])
"""


def test_a_name_unpacked_from_a_looping_generator_given_the_conversation_is_fetched_with_it(tmp_path):
    # the last of what a generator of the tree yields in a loop is not an element we can read:
    # given the conversation, it is data fetched with the user's message, as an opaque call's result
    seg, = probe(tmp_path, UNPACKED_RUN, index=0).segs
    assert (seg.kind, seg.volatility) == (Kind.USER_INPUT, Volatility.PER_REQUEST)
    assert seg.evidence == "data fetched with `messages`"
    # given only the older part of the conversation it changes where that part is cut
    seg, = probe(tmp_path, UNPACKED_RUN, index=1).segs
    assert (seg.kind, seg.volatility, seg.older) == (Kind.UNKNOWN, Volatility.UNKNOWN, True)
    # given no message, it stays unknown
    seg, = probe(tmp_path, UNPACKED_RUN, index=2).segs
    assert (seg.kind, seg.volatility) == (Kind.UNKNOWN, Volatility.UNKNOWN)
    # awaited, the same
    seg, = probe(tmp_path, UNPACKED_RUN, index=3).segs
    assert (seg.kind, seg.volatility) == (Kind.USER_INPUT, Volatility.PER_REQUEST)


UNPACKED_KNOWN = """
    def with_system(messages):
        return [{"role": "system", "content": "You are a careful assistant."}] + messages


    def f(messages):
        first, *rest = with_system(messages)
        probe(first["content"])
"""


def test_a_name_unpacked_from_a_result_holding_known_text_is_not_fetched(tmp_path):
    # the result holds static text and the conversation: its items are not data fetched with it
    segs = probe(tmp_path, UNPACKED_KNOWN).segs
    assert not any(s.kind is Kind.USER_INPUT for s in segs)


BRANCHED = """
    def intro():
        yield "You are a coding assistant."


    def project(fmt, name):
        if fmt == "xml":
            yield f"<project>{name}</project>"
        else:
            yield f"## Project: {name}"


    def full(fmt, name, extra):
        yield from intro()
        yield from project(fmt, name)
        yield "Answer in English."
        yield from extra


    def f(fmt, name, extra):
        probe(list(full(fmt, name, extra)))
"""


def test_yield_from_a_generator_that_yields_in_branches_gives_one_list_per_branch(tmp_path):
    """`yield from project()` where project yields in an if / else: one list per branch, each
    with the branch's message in place (not one spread item that stands for any list, read as a
    conversation history); a list of unknown items (`extra`) stays one spread."""
    value = probe(tmp_path, BRANCHED).value
    assert isinstance(value, Alt) and len(value.options) == 2
    for option in value.options:
        assert isinstance(option, Seq) and len(option.items) == 4
        assert _texts(option)[0] == "You are a coding assistant." and _texts(option)[2] == "Answer in English."
        assert isinstance(option.items[-1], Spread) and option.items[-1].expr == "extra"
    assert sorted(o.items[1].segs[0].text for o in value.options) == ["## Project: ", "<project>"]
