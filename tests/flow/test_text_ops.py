"""The evaluator on text operations: `+`, `%` (positional and by name), `str.format` (positional,
automatic, named; unbound fields), `join` (a known list, an unordered source, an unknown list),
`textwrap.dedent`, `strip`, and text that is one of several variants (Alt)."""
from __future__ import annotations

from analysis_support import end, pos, probe

from promptlint.model import Kind, Volatility

OPS = """
    import textwrap
    import uuid

    NAME = "Ada"
    TEMPLATE = "Hi {name}, today is {day}."


    def f(topic, items):
        probe("Topic: " + topic + "!")
        probe("%s has %d items" % (NAME, 3))
        probe("%(who)s asks about %(what)s" % {"who": NAME, "what": topic})
        probe("A {0} and {1} and {who}".format(NAME, topic, who=uuid.uuid4()))
        probe("{} then {}".format("one", NAME))
        probe(TEMPLATE.format(name=NAME))
        probe(", ".join(["a", NAME, topic]))
        probe(", ".join({"a", "b"}))
        probe("\\n".join(items))
        probe("  padded  ".strip() + "|")
        probe("{{literal}} {x}".format(x=1))
"""


def test_plus_keeps_each_operand_in_order(tmp_path):
    p = probe(tmp_path, OPS, index=0)
    assert p.described == [("text", "Topic: "), ("unknown", "unknown", "topic"), ("text", "!")]
    assert p.segs[1].span.start == pos(OPS, "topic + ")  # where it enters the text
    assert p.segs[1].origin.start == pos(OPS, "topic, items")  # the parameter


def test_percent_positional_and_by_name(tmp_path):
    assert probe(tmp_path, OPS, index=1).described == [("text", "Ada"), ("text", " has "), ("text", "3"),
                                                        ("text", " items")]
    p = probe(tmp_path, OPS, index=2)
    assert p.described == [("text", "Ada"), ("text", " asks about "), ("unknown", "unknown", "topic")]
    assert p.segs[1].span.start == pos(OPS, " asks about ")
    assert p.segs[0].span.start == pos(OPS, 'Ada"')  # the bound constant, where it is written


def test_format_positional_named_and_automatic(tmp_path):
    p = probe(tmp_path, OPS, index=3)
    assert p.described == [("text", "A "), ("text", "Ada"), ("text", " and "), ("unknown", "unknown", "topic"),
                           ("text", " and "), ("unique-id", "per-request", "uuid.uuid4()")]
    topic, uid = p.segs[3], p.segs[5]
    assert (topic.span.start, topic.span.end) == (pos(OPS, "{1}"), end(OPS, "{1}"))  # at the placeholder
    assert uid.span.start == pos(OPS, "{who}")
    assert uid.origin.start == pos(OPS, "uuid.uuid4()")  # the bound value
    assert probe(tmp_path, OPS, index=4).described == [("text", "one"), ("text", " then "), ("text", "Ada")]


def test_format_leaves_unbound_fields_unknown(tmp_path):
    src = OPS.replace("probe(TEMPLATE.format(name=NAME))", "probe(TEMPLATE.format(name=NAME, **extra))")
    p = probe(tmp_path, src.replace("def f(topic, items):", "def f(topic, items, extra):"), index=5)
    assert p.described == [("text", "Hi "), ("text", "Ada"), ("text", ", today is "),
                           ("unknown", "unknown", "{day}"), ("text", ".")]
    day = p.segs[3]
    assert day.evidence == "template variable `day`"
    assert day.span.start == pos(OPS, "{day}")  # in the template constant


def test_a_field_no_written_argument_names_is_left_as_written(tmp_path):
    # every argument written out by name: `str.format` would raise on `{day}`, so what fills the
    # text is a safe formatter (a template class) that leaves the field as written
    p = probe(tmp_path, OPS, index=5)
    assert "".join(s.text for s in p.segs) == "Hi Ada, today is {day}."
    assert all(s.is_static for s in p.segs)


def test_unbound_fields_are_template_variables_when_kept(tmp_path):
    p = probe(tmp_path, """
        TEMPLATE = "Answer about {subject} as of {today}."
        probe(TEMPLATE)
    """)
    filled = p.ev.format_text(p.value, [], {}, p.frame, None, keep_unbound=True)
    described = [("text", s.text) if s.is_static else (s.kind.value, s.volatility.value, s.expr) for s in filled.segs]
    # a field's name is a hint of what it holds (Policy 7): `today` is a date
    assert described == [("text", "Answer about "), ("template-variable", "unknown", "{subject}"),
                         ("text", " as of "), ("timestamp", "per-request", "{today}"), ("text", ".")]
    assert filled.segs[3].name_only


def test_json_written_in_a_template_is_text_not_a_field(tmp_path):
    """`{ "bbox": [x1, y1] }` in a template filled another way (`.replace("{{page}}", ...)`): no
    keyword can name such a field, so it is the text as written; `{today}` is still a field."""
    p = probe(tmp_path, """
        TEMPLATE = 'Blocks look like { "bbox": [x1, y1], "id": "/page/0" } as of {today}.'
        probe(TEMPLATE)
    """)
    filled = p.ev.format_text(p.value, [], {}, p.frame, None, keep_unbound=True)
    described = [("text", s.text) if s.is_static else (s.kind.value, s.expr) for s in filled.segs]
    assert described == [("text", 'Blocks look like { "bbox": [x1, y1], "id": "/page/0" } as of '),
                         ("timestamp", "{today}"), ("text", ".")]


def test_join_of_a_known_list_an_unordered_source_and_an_unknown_list(tmp_path):
    assert probe(tmp_path, OPS, index=6).described == [("text", "a"), ("text", ", "), ("text", "Ada"),
                                                        ("text", ", "), ("unknown", "unknown", "topic")]
    unordered = probe(tmp_path, OPS, index=7)
    seg, = unordered.segs
    assert (seg.kind, seg.volatility) == (Kind.UNORDERED_ITERATION, Volatility.PER_PROCESS)
    assert seg.span.start == pos(OPS, '{"a", "b"}')
    unknown = probe(tmp_path, OPS, index=8)
    seg, = unknown.segs
    assert (seg.kind, seg.volatility, seg.evidence) == (Kind.UNKNOWN, Volatility.UNKNOWN, "the parameter `items`")


def test_strip_trims_the_static_ends(tmp_path):
    p = probe(tmp_path, OPS, index=9)
    assert p.described == [("text", "padded"), ("text", "|")]
    assert p.segs[0].span.start == pos(OPS, "padded")


def test_doubled_braces_are_literal_braces(tmp_path):
    p = probe(tmp_path, OPS, index=10)
    assert "".join(s.text for s in p.segs) == "{literal} 1"
    assert all(s.is_static for s in p.segs)


def test_dedent_of_static_text_and_of_text_with_fields(tmp_path):
    src = '''
        import textwrap
        from datetime import datetime


        def f():
            probe(textwrap.dedent("""
                Line one
                  Line two
            """))
            probe(textwrap.dedent(f"""
                Now {datetime.now()}
            """))
    '''
    static = probe(tmp_path, src, index=0)
    assert static.described == [("text", "\nLine one\n  Line two\n")]
    assert static.segs[0].span.start == end(src, 'textwrap.dedent("""')
    # with a field the common indentation is not known (the value may hold line breaks): kept as written
    dynamic = probe(tmp_path, src, index=1)
    assert [s.kind for s in dynamic.segs] == [None, Kind.TIMESTAMP, None]
    assert dynamic.segs[0].text.endswith("Now ")


BRANCHES = """
    def f(flag, name):
        if flag:
            intro = "Formal intro."
        else:
            intro = "Casual intro."
        probe(intro)
        text = "Start."
        if flag:
            text += " Extra."
        probe(text)
        probe("Hello " + (name if flag else "guest") + ", welcome.")
"""


def test_variants_keep_their_shared_text_and_differ_in_one_conditional_segment(tmp_path):
    p = probe(tmp_path, BRANCHES, index=0)
    # (the shared text starts at a word: " intro.", not "al intro.")
    assert p.described == [("conditional", "unknown", "Formal"), ("text", " intro.")]
    assert p.segs[1].span.start == pos(BRANCHES, " intro.")
    added = probe(tmp_path, BRANCHES, index=1)
    assert added.described == [("text", "Start."), ("conditional", "unknown", "Extra.")]
    assert added.segs[1].span.start == pos(BRANCHES, ' Extra."')
    assert added.segs[1].evidence == "present or absent by a condition"


def test_a_variant_of_unknown_volatility_in_the_middle_of_text(tmp_path):
    p = probe(tmp_path, BRANCHES, index=2)
    # a variant holds a parameter: the text changes as the parameter does (not one of two fixed texts)
    assert p.described == [("text", "Hello "), ("unknown", "unknown", "name"), ("text", ", welcome.")]
    assert p.segs[1].span.start == pos(BRANCHES, "name if flag")  # the conditional expression


def test_variants_that_share_their_first_characters_keep_them_as_static_text(tmp_path):
    src = """
        def build(name):
            if name:
                return f"You are talking to {name}. Be kind."
            return "You are talking to a guest. Be kind."


        def f(user_name):
            probe(build(user_name))
    """
    p = probe(tmp_path, src)
    # the shared beginning is part of the cacheable prefix: only what differs is dynamic (the name
    # or a fixed word: of the name's volatility)
    assert p.described[0] == ("text", "You are talking to ")
    assert p.segs[0].span.start == pos(src, "You are talking to {name}")
    assert p.described[-1] == ("text", ". Be kind.")
    middle = p.segs[1:-1]
    assert len(middle) == 1 and middle[0].kind is Kind.UNKNOWN and middle[0].expr == "user_name"


def test_a_doubled_percent_is_one_percent_sign_at_its_place(tmp_path):
    src = """
        def f(rate):
            probe("Growth: %s%% this year" % rate)
    """
    p = probe(tmp_path, src)
    assert p.described == [("text", "Growth: "), ("unknown", "unknown", "rate"), ("text", "%"),
                           ("text", " this year")]
    percent = p.segs[2]
    assert (percent.span.start, percent.span.end) == (pos(src, "%%"), end(src, "%", 1))


DOLLAR = """
    import string
    from string import Template

    GREETING = Template("Hi $name, costs $$5. ${topic}s today: $missing.")


    def f(user, topic):
        probe(GREETING.substitute(name=user, topic=topic))
        probe(GREETING.safe_substitute({"name": "Ann"}, topic="cat"))
        probe(string.Template("Plain $who").substitute(who="me"))
"""


def test_string_template_substitute_fills_dollar_placeholders(tmp_path):
    got = probe(tmp_path, DOLLAR, index=0)
    assert got.described == [("text", "Hi "), ("unknown", "unknown", "user"), ("text", ", costs $"),
                             ("text", "5. "), ("unknown", "unknown", "topic"), ("text", "s today: "),
                             ("unknown", "unknown", "$missing"), ("text", ".")]
    name = got.segs[1]  # reported at the placeholder, produced by the parameter
    assert name.span.start == pos(DOLLAR, "$name") and name.origin.start == pos(DOLLAR, "user, topic")


def test_a_mapping_argument_and_keywords_both_bind(tmp_path):
    assert probe(tmp_path, DOLLAR, index=1).text == "Hi Ann, costs $5. cats today: ."
    assert probe(tmp_path, DOLLAR, index=2).text == "Plain me"


VARIANTS = """
    def f(contexts, extra, flag):
        joined = " | ".join(contexts)
        if flag:
            joined = f"Search results: {extra}"
        probe("Context: " + joined + " End.")
        note = "Be brief." if flag else ""
        probe("Rules. " + note + " End.")
"""


def test_content_that_changes_in_every_variant_is_not_merely_conditional(tmp_path):
    got = probe(tmp_path, VARIANTS, index=0).described
    assert got[0] == ("text", "Context: ") and got[-1] == ("text", " End.")
    assert [d[0] for d in got[1:-1]] == ["unknown"]  # dynamic whichever branch ran
    cond = probe(tmp_path, VARIANTS, index=1).described
    assert [d[0] for d in cond] == ["text", "conditional", "text"]  # static text present or absent


JOINED_DUMPS = """
    import json


    def f(tools):
        parts = []
        for tool in tools:
            parts.append(f"Tool: {json.dumps(tool)}")
        probe("\\n".join(parts))
"""


def test_serialised_data_joined_from_a_loop_stays_at_its_dumps_call(tmp_path):
    seg, = probe(tmp_path, JOINED_DUMPS, index=0).segs
    assert seg.kind is Kind.SERIALIZED and seg.expr == "json.dumps(tool)"
    assert seg.span.start == pos(JOINED_DUMPS, "json.dumps(tool)")


KEYLESS = """
    import json
    import typing as t


    def f(strings: t.List[str], rows: list[dict], pairs: tuple[str, ...], name: str, data):
        probe(json.dumps(strings))
        probe(json.dumps(rows))
        probe(json.dumps(pairs))
        probe(json.dumps(name))
        probe(json.dumps(data))
        strings = load()
        probe(json.dumps(strings))
"""


def test_json_of_a_parameter_typed_as_text_or_numbers_has_no_keys_to_order(tmp_path):
    ordered = [probe(tmp_path, KEYLESS, index=i).segs[0].ordered for i in range(6)]
    assert ordered == [True, False, True, True, False, False]


SPREAD_FORMAT = """
    PROMPTS = {}
    PROMPTS["DELIMITER"] = "<|#|>"
    PROMPTS["system"] = "Fields are split by {delimiter}; answer in {language}."


    def f(json_mode, global_config, language):
        if json_mode:
            base = dict(delimiter=PROMPTS["DELIMITER"], language=language)
        else:
            base = dict(delimiter=PROMPTS["DELIMITER"], language="English")
        probe(PROMPTS["system"].format(**base))
        probe(global_config["max_records"])
"""


def test_format_takes_the_entries_of_a_spread_dict_one_of_several_too(tmp_path):
    segs = probe(tmp_path, SPREAD_FORMAT, index=0).segs
    assert "".join(s.text for s in segs if s.is_static).startswith("Fields are split by <|#|>; answer in ")
    assert not any(s.kind is Kind.TEMPLATE_VARIABLE for s in segs)  # every field bound


def test_a_value_of_a_configuration_named_so_is_stable(tmp_path):
    seg, = probe(tmp_path, SPREAD_FORMAT, index=1).segs
    assert seg.volatility is Volatility.STABLE and seg.name_only


KNOBS = """
    TEMPLATE = "Write at most {max_length} words, fields split by {tuple_delimiter}, {history_length} turns so far."


    def f():
        probe(TEMPLATE.format())
"""


def test_a_bound_or_a_separator_named_so_is_a_setting(tmp_path):
    fields = [s for s in probe(tmp_path, KNOBS).segs if not s.is_static]
    assert [(s.expr, s.volatility) for s in fields] == [
        ("{max_length}", Volatility.STABLE), ("{tuple_delimiter}", Volatility.STABLE),
        ("{history_length}", Volatility.UNKNOWN)]  # a count of turns may change every turn


def test_a_value_kept_for_the_choice_of_variants_is_kept_once_compared_by_span_and_expression_first(monkeypatch):
    """`text._held(seg, out)` is `seg in out`; whole segments are compared only when span and
    expression are equal (the values of the variants a choice stands for, `Segment.inner`)."""
    from promptlint.model import Position, Segment, Span
    from promptlint.python.flow import text

    def seg(row, expr, kind=Kind.UNKNOWN, evidence=""):
        return Segment(span=Span("a.py", Position(row, 1), Position(row, 9)), kind=kind, expr=expr,
                       volatility=Volatility.UNKNOWN, evidence=evidence)

    out = [seg(1, "name"), seg(2, "topic"), seg(3, "topic", evidence="the parameter `topic`")]
    compared: list = []
    real = Segment.__eq__
    monkeypatch.setattr(Segment, "__eq__", lambda a, b: compared.append(1) or real(a, b))
    assert text._held(seg(2, "topic"), out) and seg(2, "topic") in out
    assert not text._held(seg(2, "topic", Kind.USER_INPUT), out) and seg(2, "topic", Kind.USER_INPUT) not in out
    assert text._held(out[0], out)  # (the very segment: no comparison)
    compared.clear()
    assert not text._held(seg(4, "other"), out)
    assert not text._held(seg(1, "other"), out)
    assert compared == []  # another span or expression: no whole comparison
