"""PRM105: a module that joins a list named for the conversation into text, filled by a walk by index
of any list with its newest item written apart from the older ones, is read even when it names no SDK
and no prompt (`history_renders.might_walk_apart`, the prefilter's test): the walk is a cut where it
tells the newest item apart. The fixtures are under fixtures/rendered_history/."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.history_renders import might_walk_apart
from promptlint.python.prefilter import might_hold_prompt

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "rendered_history"


def _report(name):
    report = api.check([FIXTURES / name], api.Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row, d.span.start.column)
            for d in report.diagnostics]


def test_steps_joined_as_the_history_with_the_newest_written_apart_are_a_cut_where_they_are_told_apart():
    assert _report("steps.py") == [("steps.py", "PRM105", "info", 13, 16)]


def test_steps_written_alike_whatever_their_place_are_no_cut():
    assert _report("steps_clean.py") == []


def test_the_text_test_needs_a_join_named_for_the_conversation_an_index_walk_and_a_bound_from_the_end():
    walk = "for i, s in enumerate(nodes):\n    if i < len(nodes) - 1:\n        pass\n"
    assert [might_walk_apart(walk + 'x = "\\n".join(formatted_history)\n'),
            might_walk_apart(walk + 'x = "\\n".join(lines)\n'),
            might_hold_prompt("# history\n" + walk + 'x = "\\n".join(formatted_history)\n')] == [True, False, True]
