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
