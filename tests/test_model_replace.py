"""model.replace: `dataclasses.replace` with a fast path for Segment (the evaluator's copies)."""
from __future__ import annotations

import dataclasses

import pytest

from promptlint.model import Kind, Position, Segment, Span, Volatility, replace


def _segment() -> Segment:
    span = Span("a.py", Position(3, 5), Position(3, 12))
    return Segment(text="", span=span, kind=Kind.TIMESTAMP, volatility=Volatility.PER_REQUEST, expr="now()",
                   evidence="call to `datetime.now()`", inner=(Segment(text="x"),))


def test_segment_copy_equals_dataclasses_replace():
    seg = _segment()
    where = Span("a.py", Position(9, 1), Position(9, 4))
    fast = replace(seg, span=where, origin=seg.span, anchor=None)
    slow = dataclasses.replace(seg, span=where, origin=seg.span, anchor=None)
    assert fast == slow
    assert type(fast) is Segment and fast is not seg
    assert fast.span == where and fast.origin == seg.span and fast.expr == "now()"
    assert fast.inner is seg.inner  # the other fields are the same objects, as replace passes them
    assert seg.span == Span("a.py", Position(3, 5), Position(3, 12))  # the original is unchanged
    assert vars(fast).keys() == vars(slow).keys()


def test_segment_without_changes_is_a_copy():
    seg = _segment()
    copy = replace(seg)
    assert copy == seg and copy is not seg


def test_unknown_field_raises_as_dataclasses_replace_does():
    with pytest.raises(TypeError):
        replace(_segment(), colour="red")


def test_segment_holding_another_attribute_is_copied_by_its_fields_only():
    seg = _segment()
    seg.__dict__["_memo"] = 1  # not a field: dataclasses.replace leaves it out, and so does this
    copy = replace(seg, text="y")
    assert copy.text == "y" and "_memo" not in vars(copy)


def test_other_dataclasses_are_replaced_by_dataclasses_replace():
    span = Span("a.py", Position(1, 1), Position(1, 2))
    moved = replace(span, end=Position(2, 1))
    assert moved == Span("a.py", Position(1, 1), Position(2, 1))
    with pytest.raises(dataclasses.FrozenInstanceError):
        moved.end = Position(3, 1)  # (a frozen copy, as dataclasses.replace makes)
