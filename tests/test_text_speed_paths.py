"""Shortcuts of the evaluator's text reading that give the same answers with less work."""
from __future__ import annotations

from pathlib import Path

from promptlint.model import Kind, Position, Segment, Span, Volatility
from promptlint.python.flow import text
from promptlint.python.module import load


def _unknown(row: int) -> Segment:
    span = Span("a.py", Position(row, 1), Position(row, 5))
    return Segment(span=span, kind=Kind.UNKNOWN, volatility=Volatility.UNKNOWN, expr=f"v{row}")


class _Unread:
    """A variant whose segments must not be read (the kept values are complete before it)."""

    def __iter__(self):
        raise AssertionError("read past the kept values")


def test_other_values_keep_the_first_ones_and_read_no_further():
    src = _unknown(1)
    first = [_unknown(row) for row in range(2, 2 + text.MAX_INNER)]
    kept = text._other_values([[src, first[0]], first[1:], _Unread()], src)
    assert [s.expr for s in kept] == [f"v{row}" for row in range(2, 2 + text.MAX_INNER)]
    assert all(s.inner == () for s in kept)


def test_other_values_under_the_bound_read_every_variant():
    src = _unknown(1)
    kept = text._other_values([[src, _unknown(2)], [_unknown(2), _unknown(3)]], src)
    assert [s.expr for s in kept] == ["v2", "v3"]  # (equal segments once)


def test_columns_of_ascii_text_are_its_byte_columns_without_a_table():
    module = load(Path("m.py"), "x = 1\nname = f'{x}'\n")
    assert module.char_col(2, 10) == 10
    assert module.span(module.tree.body[1].value).start == Position(2, 8)
    assert not any(isinstance(k, tuple) and k[0] == "cols" for k in module._pieces)


def test_columns_of_other_text_count_characters():
    module = load(Path("m.py"), "x = 'é'\ny = 1\n")
    assert module.char_col(1, 7) == 6  # ("é" is two bytes)
    assert module.char_col(2, 4) == 4
