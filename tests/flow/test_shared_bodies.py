"""What the evaluator shares to spare work, and that sharing changes no value: a function's body
read once for every frame of it (each frame with its own values: scopes.ensure, Evaluator.force),
nested alternatives flattened once per Alt met (containers._flat), and the calls of one function
found in another module without indexing it whole (callers.calls_named)."""
from __future__ import annotations

import ast

from analysis_support import code, evaluator, layouts, probe, write

from promptlint.python.flow.callers import _caller_frame, call_index, calls_named, word_places
from promptlint.python.flow.variants import list_variants
from promptlint.python.flow.values import Alt, Seq, Text
from promptlint.python.module import load
from promptlint.model import Segment

TWICE = code("""
    def label(name):
        shown = name + "!"
        return shown


    def f():
        probe(label("Ada") + " and " + label("Bob"))
""")


def test_two_calls_of_one_function_keep_their_own_values(tmp_path):
    p = probe(tmp_path, TWICE)
    assert p.text == "Ada! and Bob!"  # `shown` is one binding of the body, one value per call
    bodies = [key for key in p.ev._bodies if key[0] != id(p.module.tree)]
    label = p.module.functions["label"]
    assert (id(label), id(None)) in p.ev._bodies  # read once for both frames
    assert len([k for k in bodies if k[0] == id(label)]) == 1


LOOPED = code("""
    def render(items, sep):
        out = ""
        for item in items:
            out += item + sep
        return out


    def f():
        probe(render(["a", "b"], ";") + render(["c"], ","))
""")


def test_a_loop_body_shared_by_two_frames_reads_each_frames_arguments(tmp_path):
    p = probe(tmp_path, LOOPED)
    assert "," in p.text and ";" in p.text
    assert p.text.index(";") < p.text.index(",")


def test_an_alt_met_twice_is_flattened_once_with_the_same_options():
    a, b, c = (Seq([Text([Segment(text=t)])]) for t in "abc")
    shared = Alt([a, b])
    value = Alt([shared, Alt([shared, c]), shared])
    assert list_variants(value) == [a, b, c]
    assert list_variants(Alt([shared, Text([Segment(text="x")])])) is None  # a variant that is no list


CALLERS = code("""
    import helpers


    @helpers.send(1)
    def first():
        return helpers.send(2)


    class Agent:
        def run(self):
            self.send(3)
            send(4)
            return [helpers.send(x) for x in
                    range(5)]


    def other():
        return helpers.receive(6)


    send(7)
""")


def test_the_calls_of_one_name_are_those_of_the_whole_index(tmp_path):
    path = tmp_path / "mod.py"
    path.write_text(CALLERS)
    indexed = load(path, CALLERS)
    index = call_index(indexed)
    for name, keys in [(n, ("", ".")) for n in ("send", "receive", "range", "missing")] + [("send", ("self.",))]:
        found = calls_named(load(path, CALLERS), name, keys)  # a module not indexed: the rows of the word only
        expected = [entry for key in keys for entry in index.get(key + name, [])]
        assert [(c.lineno, c.col_offset, getattr(f, "name", None), getattr(k, "name", None)) for c, f, k in found] == \
            [(c.lineno, c.col_offset, getattr(f, "name", None), getattr(k, "name", None)) for c, f, k in expected]
    sends = calls_named(load(path, CALLERS), "send")
    assert [c.args[0].value if isinstance(c.args[0], ast.Constant) else None for c, _, _ in sends] == [7, 4, None, 1, 2]  # (the order of call_index: a decorator's call too)


def test_word_places_are_the_whole_word_matches_of_the_pattern():
    import random
    import re
    text = "send(x); resend(y); send_all(z); _send(w); x.send(v); é_send; sendé; send\nsend"
    assert word_places(text, "send") == [m.start() for m in re.finditer(r"\bsend\b", text)] == [0, 45, 69, 74]
    rng = random.Random(7)
    for _ in range(2000):
        text = "".join(rng.choice("ab_ 1é²\n.(") for _ in range(24))
        word = rng.choice(["a", "ab", "b_", "é", "a1"])
        assert word_places(text, word) == [m.start() for m in re.finditer(rf"\b{re.escape(word)}\b", text)]


def test_a_function_without_yield_in_its_text_is_no_generator(tmp_path):
    from promptlint.python.flow.binding_syntax import is_generator
    path = tmp_path / "gen.py"
    source = ("def plain(xs):\n    return [x for x in xs]\n\n"
              "def outer():\n    def inner():\n        yield 1\n    return inner\n\n"
              "def gen(xs):\n    for x in xs:\n        yield x\n")
    path.write_text(source)
    module = load(path, source)
    funcs = {f.name: f for f in module.tree.body}
    assert [is_generator(funcs[n], module) for n in ("plain", "outer", "gen")] == [False, False, True]
    fresh = {f.name: f for f in load(path, source).tree.body}  # without the module: the body is walked
    assert [is_generator(fresh[n]) for n in ("plain", "outer", "gen")] == [False, False, True]


def test_a_class_member_is_found_among_the_statements_that_name_it():
    from promptlint.python.flow.class_facts import members_named as _members_named
    cls = ast.parse("class C:\n    a = 1\n    b = a = 2\n    x, y = 1, 2\n    a: int\n    def a(self): pass\n"
                    "    c: str = 'c'\n    self.d = 1\n    async def e(self): pass\n").body[0]
    assert [s.lineno for s in _members_named(cls, "a")] == [2, 3, 5, 6]
    assert [s.lineno for s in _members_named(cls, "c")] == [7]
    assert [s.lineno for s in _members_named(cls, "e")] == [9]
    assert list(_members_named(cls, "x")) == [] and list(_members_named(cls, "d")) == []


CALLED = code("""
    from openai import OpenAI

    client = OpenAI()


    def ask(system, question):
        return client.chat.completions.create(model="gpt-4o", messages=[
            {"role": "system", "content": system}, {"role": "user", "content": question}])


    class Bot:
        def answer(self, question):
            rules = "Be brief. " * 3
            return ask(rules, question)
""")


def test_a_function_read_by_the_site_finder_and_as_a_caller_is_one_frame(tmp_path):
    # `Bot.answer` is read at depth 1 with its parameters unbound both by the site finder (judged by
    # its own code) and as the caller of `ask` whose arguments are asked: one frame, one reading
    write(tmp_path, {"app.py": CALLED})
    ev = evaluator(tmp_path)
    module = ev.project.load(tmp_path / "app.py")
    cls = module.classes["Bot"]
    answer = cls.body[0]
    own = ev.unbound_frame(module, answer, cls, depth=1)
    assert _caller_frame(ev, module, answer, cls, 1, None) is own
    assert ev.unbound_frame(module, answer, cls, depth=0) is not own  # (depth 0: its callers are asked)
    assert _caller_frame(ev, module, answer, cls, 1, 1) is not own  # (a wrapper's caller: its callers too)
    ev.forget()
    assert ev.unbound_frame(module, answer, cls, depth=1) is not own  # one file's analysis only


def test_the_layout_is_the_same_whichever_reads_the_shared_frame_first(tmp_path):
    found = [lay for lay in layouts(tmp_path, CALLED) if lay.parts]
    texts = {"".join(s.text for p in lay.parts for s in p.segments if s.is_static) for lay in found}
    assert any("Be brief. Be brief. Be brief. " in t for t in texts)
