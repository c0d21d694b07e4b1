"""The evaluator on literals: implicit concatenations (one segment per token, at its characters),
escapes, raw and bytes literals, f-string fields and their spans, debug fields `{x=}`, conversions
and format specs, character columns on lines with non-ASCII text."""
from __future__ import annotations

from analysis_support import end, pos, probe

from promptlint.model import Kind, Position, Precision, Volatility
from promptlint.python.flow.values import Text

CONCAT = """
    probe("Hello, "
          'world\\t!'  # a comment between the tokens
          r"\\d+"
          "caf\\u00e9 \\N{BULLET} \\x41")
"""


def test_implicit_concatenation_is_one_segment_per_token_at_its_characters(tmp_path):
    p = probe(tmp_path, CONCAT)
    assert isinstance(p.value, Text)
    assert p.described == [("text", "Hello, "), ("text", "world\t!"), ("text", "\\d+"), ("text", "café • A")]
    hello, world, raw, escaped = p.segs
    assert (hello.span.start, hello.span.end) == (pos(CONCAT, "Hello"), end(CONCAT, "Hello, "))
    assert world.span.start == pos(CONCAT, "world")
    assert raw.span.start == pos(CONCAT, "\\d+") and raw.raw is None  # raw text is verbatim
    # escapes: the decoded text keeps the place of every character in the source
    assert escaped.raw is not None
    assert escaped.position_at(0) == pos(CONCAT, "caf")
    assert escaped.position_at(3) == pos(CONCAT, "\\u00e9")  # é
    assert escaped.position_at(5) == pos(CONCAT, "\\N{BULLET}")  # •
    assert escaped.position_at(7) == pos(CONCAT, "\\x41")  # A


def test_bytes_and_empty_literals(tmp_path):
    assert probe(tmp_path, 'probe(b"bytes " b"here")').described == [("text", "bytes "), ("text", "here")]
    empty = probe(tmp_path, 'probe("")')
    assert empty.described == [("text", "")]


FIELDS = """
    import uuid


    def f(topic):
        probe(f"About {topic}: id {uuid.uuid4()!s:>40} done")
"""


def test_fstring_fields_are_dynamic_segments_at_the_field(tmp_path):
    p = probe(tmp_path, FIELDS)
    assert p.described == [("text", "About "), ("unknown", "unknown", "topic"), ("text", ": id "),
                           ("unique-id", "per-request", "uuid.uuid4()"), ("text", " done")]
    about, topic, sep, uid, done = p.segs
    assert (topic.span.start, topic.span.end) == (pos(FIELDS, "{topic}"), end(FIELDS, "{topic}"))
    assert topic.origin.start == pos(FIELDS, "topic):")  # the parameter it comes from
    assert (uid.span.start, uid.span.end) == (pos(FIELDS, "{uuid"), end(FIELDS, "!s:>40}"))
    assert uid.origin.start == pos(FIELDS, "uuid.uuid4()")  # where the value is produced
    assert uid.anchor.place == "fstring-field" and uid.anchor.span == uid.span  # the fix moves the field
    assert done.span.start == pos(FIELDS, " done")


def test_format_spec_gives_the_precision_of_a_timestamp(tmp_path):
    src = """
        from datetime import datetime


        def f():
            probe(f"Now {datetime.now():%H:%M}, today {datetime.now():%d %B}, year {datetime.now():%Y}")
    """
    p = probe(tmp_path, src)
    stamps = [s for s in p.segs if s.kind is Kind.TIMESTAMP]
    assert [s.precision for s in stamps] == [Precision.SUB_DAY, Precision.DAY, Precision.YEAR]
    assert all(s.volatility is Volatility.PER_REQUEST for s in stamps)
    assert stamps[1].span.start == pos(src, "{datetime.now():%d %B}")


def test_debug_field_writes_the_expression_text_then_the_value(tmp_path):
    src = """
        def f(user_name, size):
            probe(f"{user_name=} and {size = !s}")
    """
    p = probe(tmp_path, src)
    assert p.described == [("text", "user_name="), ("unknown", "unknown", "user_name"), ("text", " and "),
                           ("text", "size = "), ("unknown", "unknown", "size")]
    assert p.segs[0].span.start == pos(src, "{user_name=}")


def test_debug_text_is_the_expression_as_written(tmp_path):
    src = """
        def f(a, b, d):
            probe(f"{a!=b=} {d[':']=} {a = :>3}")
    """
    texts = [s.text for s in probe(tmp_path, src).segs if s.is_static]
    assert texts == ["a!=b=", " ", "d[':']=", " ", "a = "]  # as Python writes them


def test_nested_fields_in_a_format_spec(tmp_path):
    src = """
        def f(label, width):
            probe(f"[{label:>{width}}]")
    """
    p = probe(tmp_path, src)
    assert p.described == [("text", "["), ("unknown", "unknown", "label"), ("text", "]")]
    assert p.segs[1].span.end == end(src, "{label:>{width}}")


def test_character_columns_after_non_ascii_text(tmp_path):
    src = """
        def f(name):
            probe("é—" + f"ü{name}")
    """
    p = probe(tmp_path, src)
    assert p.described == [("text", "é—"), ("text", "ü"), ("unknown", "unknown", "name")]
    assert p.segs[1].span.start == pos(src, "ü")  # columns count characters, not UTF-8 bytes
    assert p.segs[2].span.start == pos(src, "{name}")
    assert p.segs[2].span.start == Position(2, 21)  # 4 + len('probe("é—" + f"ü') + 1


def test_triple_quoted_text_spans_rows(tmp_path):
    src = '''
        PROMPT = """You are a bot.
        Be brief."""
        probe(PROMPT)
    '''
    p = probe(tmp_path, src)
    assert p.described == [("text", "You are a bot.\nBe brief.")]
    seg, = p.segs
    assert (seg.span.start, seg.span.end) == (pos(src, "You are"), pos(src, '"""', 1))
    assert seg.position_at(len("You are a bot.\n")) == pos(src, "Be brief.")


CAST = """
    import typing
    import uuid


    def f():
        probe(typing.cast(str, f"id {uuid.uuid4()} here"))
"""


def test_typing_cast_is_its_value(tmp_path):
    p = probe(tmp_path, CAST)
    assert isinstance(p.value, Text)
    assert [s.kind for s in p.segs] == [None, Kind.UNIQUE_ID, None]
