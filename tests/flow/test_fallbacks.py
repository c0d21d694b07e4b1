"""A value or its default (values.Alt.fallback: `if x is None: x = D`, `x or D`, `x if x is not None
else D`) is one value per deployment or caller, not a choice of fixed texts; a variant holding
content that can change is that content; a list that a nested function appends to is not empty."""
from __future__ import annotations

from analysis_support import probe

from promptlint.model import Kind, Volatility

FALLBACKS = """
    import json

    SETTINGS = json.load(open("settings.json"))


    def f(flag, language=None, tone=None, style=None):
        if language is None:
            language = SETTINGS.get("language", "English")
        probe("In " + language + ".")
        lang = SETTINGS.get("lang")
        if not lang:
            lang = "English"
        probe("In " + lang + ".")
        probe("Tone " + (tone if tone is not None else SETTINGS["tone"]) + ".")
        probe("Style " + ("plain" if style is None else style) + ".")
        probe("Mode " + ("formal" if flag else "casual") + ".")
        word = SETTINGS.get("word") or "hello"
        probe("Say " + word + ".")
"""


def middle(p):
    return p.described[1]


def test_a_parameter_or_its_default_is_the_parameter_not_a_variant(tmp_path):
    assert middle(probe(tmp_path, FALLBACKS, index=0))[:2] == ("unknown", "unknown")
    assert middle(probe(tmp_path, FALLBACKS, index=2))[:2] == ("unknown", "unknown")
    assert middle(probe(tmp_path, FALLBACKS, index=3))[:2] == ("unknown", "unknown")


def test_a_setting_or_its_default_is_one_stable_value(tmp_path):
    seg = probe(tmp_path, FALLBACKS, index=1).segs[1]
    assert seg.kind is Kind.UNKNOWN and seg.volatility is Volatility.STABLE
    assert "default" in seg.evidence
    seg = probe(tmp_path, FALLBACKS, index=5).segs[1]
    assert seg.kind is Kind.UNKNOWN and seg.volatility is Volatility.STABLE


def test_a_choice_between_fixed_texts_stays_conditional(tmp_path):
    assert middle(probe(tmp_path, FALLBACKS, index=4))[:2] == ("conditional", "unknown")


CLOSURE = """
    def render(records, sep):
        lines = ["Rows:"]

        def emit(t):
            if not t:
                return
            lines.append(t)

        for r in records:
            emit(r.cell)
        if sep:
            lines.append("----")
        probe("\\n".join(lines))


    def kept(records):
        lines = []
        probe("\\n".join(lines))

        def emit(t):
            other.append(t)
"""


def test_a_list_a_nested_function_appends_to_holds_unknown_items(tmp_path):
    segs = probe(tmp_path, CLOSURE).segs
    assert segs and not all(s.is_static for s in segs)
    assert any(s.volatility is Volatility.UNKNOWN and "emit" in s.evidence for s in segs)


def test_a_list_no_nested_function_appends_to_stays_as_built(tmp_path):
    assert all(s.is_static and s.text == "" for s in probe(tmp_path, CLOSURE, index=1).segs)


def test_a_variant_with_data_of_the_request_is_that_data(tmp_path):
    src = """
        def f(question, use_search):
            context = ("Results: " + search(question)) if use_search else ""
            probe(context + " Rules.")
    """
    segs = probe(tmp_path, src).segs
    assert not any(s.kind is Kind.CONDITIONAL for s in segs)


def test_static_tokens_counted_across_other_values_are_said_to_be_in_pieces(tmp_path):
    from analysis_support import write

    from promptlint import api
    rules = "Decide whether the lines form a title block. Answer with JSON only. " * 80
    src = f"""
from openai import OpenAI

client = OpenAI()
NOTE = "A dashed line separates tables. " * 40
RULES = "{rules}"


def judge(question, framed):
    note = NOTE if framed else ""
    return client.chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": note + "Look.\\n" + ("Strict." if framed else "Loose.") + RULES}},
        {{"role": "user", "content": question}}])
"""
    write(tmp_path, {"app.py": src})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    got = [d.message for d in report.diagnostics if d.code == "PRM104"]
    assert len(got) == 1 and "after it (in pieces, between 1 other value)" in got[0]


ENTRIES = """
    DEFAULT = "You are a careful planner. Use the tools listed."


    def custom_or_default(custom, key, default):
        return custom[key] if custom and key in custom else default


    def negated(custom, key, default):
        return default if key not in custom else custom[key]


    class Planner:
        def __init__(self, custom_prompts=None):
            self.custom_prompts = custom_prompts

        def system(self, other, key):
            probe(custom_or_default(self.custom_prompts, "PLAN", DEFAULT))
            probe(negated(self.custom_prompts, "PLAN", DEFAULT))
            probe(other[key] if key in self.custom_prompts else DEFAULT)
"""


def test_an_entry_of_a_configured_mapping_or_its_default_is_the_default_text(tmp_path):
    # `d.get(k, DEFAULT)` spelled out: a deployment that does not override the prompt sends the default
    for index in (0, 1):
        assert probe(tmp_path, ENTRIES, index=index).described == [("text", DEFAULT_TEXT)]


def test_an_entry_of_another_mapping_is_no_default(tmp_path):
    assert probe(tmp_path, ENTRIES, index=2).described != [("text", DEFAULT_TEXT)]


DEFAULT_TEXT = "You are a careful planner. Use the tools listed."


NONE_OR = """
    GREETING = "Say hello to the user politely."


    def f(prompt=None, text=""):
        prompt = None or GREETING
        probe(prompt)
        probe(text or GREETING)
        probe("" or GREETING)
        probe("Hi" or GREETING)
"""


def test_none_or_a_default_is_the_default(tmp_path):
    # `x or DEFAULT` where x is None or "" (a caller leaves the parameter out): the default's text,
    # not the text "None"
    for index in (0, 2):
        p = probe(tmp_path, NONE_OR, index=index)
        assert p.text == "Say hello to the user politely." and all(s.is_static for s in p.segs)


def test_a_text_or_a_default_is_the_text(tmp_path):
    p = probe(tmp_path, NONE_OR, index=3)
    assert p.text == "Hi" and all(s.is_static for s in p.segs)


def test_an_option_every_caller_of_a_wrapper_leaves_none_is_its_default(tmp_path):
    # `messages or [...]` of a wrapper whose callers (through another wrapper) never pass
    # `messages`: each passes None, so the request sends the list, with the callers' text in it
    from promptlint import api
    (tmp_path / "send.py").write_text(
        "from openai import OpenAI\n\nclient = OpenAI()\n\n\n"
        "def call(prompt, messages=None):\n"
        "    messages = messages or [{'role': 'user', 'content': prompt}]\n"
        "    return client.chat.completions.create(model='gpt-4.1', messages=messages)\n\n\n"
        "def ask(texts, messages=None):\n"
        "    return call(''.join(texts), messages=messages)\n")
    (tmp_path / "use.py").write_text(
        "from send import ask\n\n\n"
        "def one(doc):\n    return ask(['Summarize: ', doc])\n\n\n"
        "def two(doc):\n    return ask(['Translate: ', doc])\n")
    report = api.check([tmp_path], api.Settings(), jobs=1)
    (layout,) = report.prompts
    (part,) = layout.parts
    assert part.role == "user" and not part.is_history
    assert [s.expr for s in part.segments] == ["doc"]


def test_an_option_one_caller_passes_stays_a_choice():
    from promptlint.python.flow.operators import _falsy_constant
    from promptlint.python.flow.values import Alt, static
    assert _falsy_constant(Alt([static("None", None), static("", None)]))
    assert not _falsy_constant(Alt([static("None", None), static("x", None)]))
    assert not _falsy_constant(Alt([]))
