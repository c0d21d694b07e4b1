"""PRM105: a conversation copied message by message (`[dict(m) for m in messages if ...]`, `m.copy()`,
`{**m}`) holds the same messages, so a newest-first walk of the copies that stops at a budget is a
window; messages rebuilt with new content, and a walk with no bound, are not. Fixtures under
fixtures/copied_messages/."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from promptlint import api
from promptlint.python.flow.item_maps import copy_of

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "copied_messages"


def _report(name):
    report = api.check([FIXTURES / name], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row, d.span.start.column) for d in report.diagnostics]


def test_a_budget_walk_over_copied_messages_is_a_window():
    # (main: nothing; the copies were not read as the conversation)
    assert _report("budget_walk.py") == [("PRM105", "info", 13, 24)]


def test_rebuilt_messages_and_an_unbounded_walk_are_not_windows():
    assert _report("rebuilt.py") == []


@pytest.mark.parametrize("text, copy", [("m", True), ("dict(m)", True), ("m.copy()", True), ("copy.copy(m)", True),
                                        ("{**m}", True), ("dict(m, content=x)", False), ("m.copy(deep)", False),
                                        ("dict(n)", False), ("{**m, 'a': 1}", False), ("f(m)", False)])
def test_which_elements_are_copies_of_the_item(text, copy):
    assert copy_of(ast.parse(text, mode="eval").body, "m") is copy
