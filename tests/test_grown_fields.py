"""A conversation declared as an empty list field of a class body (`messages: List[dict] = []`,
`Field(default_factory=list)`, `field(default_factory=list)`) and grown by the class's methods is a
list its methods grow, so its newest items sliced are a window (PRM105); a field no method grows,
or a list of notes, is not (fixtures/grown_fields, python/flow/grown_fields.py)."""
from __future__ import annotations

import ast
from pathlib import Path

from promptlint.python.flow.grown_fields import empty_list_field

from analysis_support import fixture_findings

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "grown_fields"


def _cuts(tmp_path, name):
    return [(d.code, d.severity.value, d.span.start.row, d.message.split(" is cut")[0])
            for d in fixture_findings(FIXTURE, name, tmp_path) if " is cut here" in d.message]


def test_an_empty_list_field_grown_by_the_methods_and_sliced_to_its_newest_is_a_window(tmp_path):
    assert _cuts(tmp_path, "fields.py") == [
        ("PRM105", "info", 18, "The conversation history `self.messages[-self.recent:]`"),
        ("PRM105", "info", 29, "The conversation history `self.messages[-self.recent:]`"),
        ("PRM105", "info", 41, "The conversation history `self.history[-self.recent:]`")]


def test_a_field_never_grown_or_a_list_of_notes_is_no_window(tmp_path):
    assert _cuts(tmp_path, "unfilled.py") == []


def test_empty_list_field_reads_the_forms_of_an_empty_default():
    cls = ast.parse("""
class C:
    a: list = []
    b = list()
    c: list = Field(default_factory=list)
    d: list = field(default_factory=lambda: [])
    e = attr.ib(factory=list)
    f = Factory(list)
    g: list = Field(default=[])
    h: list = [1]
    i: list = Field(default_factory=make)
    j: list = None
""").body[0]
    assert [n for n in "abcdefghij" if empty_list_field(cls, n)] == list("abcdefg")
    assert not empty_list_field(cls, "zz")
