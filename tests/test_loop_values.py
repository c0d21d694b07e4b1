"""Values of each pass of a loop (python/loop_values.py): a request sent inside a `for` loop over
data gets another value of the loop on each pass, so a value bound from that loop (an element, a
field of it, the loop's counter) is per request there (PRM101 at the rule's own severity); text
built in a loop and sent once after it, and a loop over a list the instance holds (`self.agents`),
keep their unknown volatility. fixtures/loop_values."""
from __future__ import annotations

import ast
from pathlib import Path

from promptlint import api
from promptlint.model import Kind, Position, Segment, Span, Volatility
from promptlint.python.loop_values import EACH_PASS, instance_owned, per_pass

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "loop_values"


def _found(name: str) -> list[tuple[str, str, int, str]]:
    report = api.check([FIXTURES / name], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row, d.message) for d in report.diagnostics]


def test_a_row_of_a_loop_that_sends_a_request_per_pass_is_per_request():
    found = _found("per_row.py")
    assert [(code, severity, row) for code, severity, row, _ in found] == [
        ("PRM101", "warning", 15), ("PRM101", "warning", 27), ("PRM101", "warning", 38)]
    row, counter, called = (message for *_, message in found)
    assert "passed once per element of `rows` (line 43)" in called and EACH_PASS in called
    assert "Per-request content `row['topic']`" in row
    assert EACH_PASS in row
    assert "Per-request content `number`" in counter and EACH_PASS in counter


def test_text_built_in_a_loop_and_a_loop_over_the_instances_list_keep_their_reading():
    found = _found("built_in_loop.py")
    assert [(code, severity, row) for code, severity, row, _ in found] == [
        ("PRM101", "info", 17), ("PRM101", "info", 31), ("PRM101", "info", 53)]
    # (`describe`, called once per tool, sends nothing: no finding; `converse` sends several requests
    # with each persona, in a `while` loop inside the `for`: the persona is not new per request)
    assert all("Content of unknown volatility" in message and EACH_PASS not in message for *_, message in found)


def _span(row: int, end_row: int) -> Span:
    return Span("app.py", Position(row, 1), Position(end_row, 1))


def test_per_pass_states_per_request_only_inside_the_loop():
    loop = _span(10, 20)
    value0 = Segment(span=_span(12, 12), kind=Kind.UNKNOWN, volatility=Volatility.UNKNOWN, expr="row", each=loop)
    assert per_pass([value0], _span(14, 16), [loop, _span(13, 18)]) == [value0]  # (a `while` between them)
    value = Segment(span=_span(12, 12), kind=Kind.UNKNOWN, volatility=Volatility.UNKNOWN, expr="row", each=loop)
    static = Segment(text="Rules")
    inside, kept = per_pass([value, static], _span(14, 16))
    assert inside.volatility is Volatility.PER_REQUEST and kept is static
    assert per_pass([value], _span(22, 23)) == [value]  # sent after the loop
    known = Segment(span=_span(12, 12), kind=Kind.USER_INPUT, volatility=Volatility.PER_REQUEST, expr="q", each=loop)
    assert per_pass([known], _span(14, 16)) == [known]  # (already per request: unchanged)


def test_instance_owned_loops():
    def loop(code: str):
        return ast.parse(code).body[0]
    assert instance_owned(loop("for a in self.agents: pass"))
    assert instance_owned(loop("for i, a in enumerate(self.cfg.steps): pass"))
    assert not instance_owned(loop("for row in rows: pass"))
    assert not instance_owned(loop("for row in self: pass"))
    assert not instance_owned(loop("for row in load(self.path): pass"))


def test_mark_notes_the_loop_on_the_values_it_binds_only():
    from promptlint.python.flow.values import Text
    from promptlint.python.loop_values import mark
    loop = ast.parse("for row in rows: pass").body[0]
    value = Text([Segment(text="Topic: "), Segment(span=_span(2, 2), kind=Kind.UNKNOWN, volatility=Volatility.UNKNOWN,
                                                   expr="row", evidence="the parameter `rows`")])
    static, row = mark(value, loop, _span(1, 3), ", passed once per element").segs
    assert static == value.segs[0]
    assert row.each == _span(1, 3) and row.evidence == "the parameter `rows`, passed once per element"
    owned = ast.parse("for row in self.rows: pass").body[0]
    assert mark(value, owned, _span(1, 3)) is value


def test_a_value_of_each_pass_before_text_every_pass_sends_the_same_is_info():
    found = _found("invariant.py")
    # (the point before the summary, in a template, in a coroutine's prompt called per statement, in
    # a method called per answer, a claim before the document `__init__` keeps, a question before the
    # context of a method called per question whose send is not read; not the summary
    # before the point, a page fetched in the loop, notes grown in it)
    found = [f for f in found if f[0] == "PRM101"]
    assert [(code, severity, row) for code, severity, row, _ in found] == [
        ("PRM101", "info", 11), ("PRM101", "info", 69), ("PRM101", "info", 90), ("PRM101", "info", 107),
        ("PRM101", "info", 118)]
    point, statement, answer, claim, question = (message for *_, message in found)
    # (a question read by its parameter's name is still the element of each call)
    assert "Per-request content `question`" in question and "the same `context` after it" in question
    assert "the same `reference` after it" in answer and "the same `document` after it" in claim
    assert "one request is made per element of a loop (the loop or the function it calls per element: line 21)" in point and "the same `summary` after it" in point
    assert "its size is not known here" in point
    assert "the same `context` after it" in statement


def test_text_computed_before_the_loop_is_the_same_in_every_pass():
    report = api.check([FIXTURES / "invariant.py"], api.Settings(), jobs=1)
    by_row = {p.site.start.row: p for p in report.prompts if p.site is not None and p.source == "python-call"}
    first = {s.expr: s for part in by_row[22].parts for s in part.segments if not s.is_static}
    assert first["summary"].same is not None and first["summary"].same.start.row == 21
    assert first["summary"].volatility is Volatility.UNKNOWN  # (not per request for being in the user message)
    assert first["point"].volatility is Volatility.PER_REQUEST and first["point"].same is None
    fetched = [s for part in by_row[47].parts for s in part.segments if not s.is_static and s.each is None]
    assert fetched and all(s.same is None for s in fetched)  # computed in the loop
    grown = [s for part in by_row[59].parts for s in part.segments if not s.is_static and s.each is None]
    assert grown and all(s.same is None for s in grown)  # `notes += ...` in the loop


def test_loop_shared_needs_nothing_changing_between():
    from promptlint.estimates import Cut
    from promptlint.prefix import loop_shared
    from promptlint.model import Part
    from promptlint.prefix import Placed
    from promptlint.rates import Rate
    loop = _span(10, 20)
    point = Segment(span=_span(12, 12), kind=Kind.UNKNOWN, volatility=Volatility.PER_REQUEST, expr="kp", each=loop)
    summary = Segment(span=_span(12, 12), kind=Kind.UNKNOWN, volatility=Volatility.UNKNOWN, expr="s", same=loop)
    other = Segment(span=_span(12, 12), kind=Kind.UNKNOWN, volatility=Volatility.UNKNOWN, expr="o")
    part = Part(role="user", segments=[point, other, summary])
    placed = [Placed(0, i, part, s, 0, 10, False) for i, s in enumerate(part.segments)]
    assert loop_shared(placed[0], placed[2:], [Rate.UNKNOWN], Cut(1, 0)) is placed[2]
    assert loop_shared(placed[0], placed[1:], [Rate.UNKNOWN, Rate.UNKNOWN], Cut(1, 0)) is None  # `o` may change
    assert loop_shared(placed[0], placed[1:], [None, Rate.UNKNOWN], Cut(1, 0)) is placed[2]  # (a stable value)
    assert loop_shared(placed[0], placed[2:], [Rate.UNKNOWN], Cut(0, 2)) is None  # after the shareable prefix
    assert loop_shared(placed[1], placed[2:], [Rate.UNKNOWN], Cut(1, 0)) is None  # `o` is no value of the loop


def test_the_text_every_pass_shares_is_named_once_among_the_related_places():
    report = api.check([FIXTURES / "invariant.py"], api.Settings(), jobs=1)
    statement = next(d for d in report.diagnostics if d.code == "PRM101" and d.span.start.row == 69)
    assert [(r.span.start.row, r.message) for r in statement.related] == [
        (82, "value produced here"), (71, "the same in every pass of the loop: sent after the value")]
