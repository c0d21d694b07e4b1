"""A list attribute assigned and grown only in the methods that set an object up (`__init__`):
built once per object, not a conversation that grows turn after turn, so what is made from it
is not "data fetched with" the conversation (flow/objects.py, class_facts.grown_at_setup). The
fixtures are under fixtures/setup_lists/."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.flow.class_facts import grown_at_setup
from promptlint.python.sites import find_layouts

from analysis_support import evaluator, parts

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "setup_lists"


def _sent(name):
    ev = evaluator(FIXTURES)
    return [lt for lt in find_layouts(ev.project.load(FIXTURES / name), ev) if lt.source == "python-call"]


def test_a_team_list_completed_in_init_is_no_per_request_content():
    report = api.check([FIXTURES / "team.py"], api.Settings(), jobs=1)
    # the team text is made of the constructor's arguments: unknown volatility (info), never a warning
    assert [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics] == [("PRM101", "info", 11)]
    assert "data fetched with" not in report.diagnostics[0].message


def test_a_list_completed_in_a_helper_only_init_calls_is_built_once_too():
    planner, helper, roster = _sent("team.py")
    teams = [[(d.kind.value, d.volatility.value) for d in p.segments if not d.is_static]
             for lt in (planner, helper) for p in lt.parts if p.role == "system"]
    assert teams == [[("unknown", "unknown")], [("unknown", "unknown")]]
    # a text added to with `+=` in `__init__` is that text, not a list and not the conversation
    assert parts(roster)[0][1][1:3] == [("text", "- "), ("unknown", "unknown", "name")]


def test_what_init_appends_is_read_as_an_item_of_the_list():
    session, notes, refreshed = _sent("tagged.py")
    # the run id appended in `__init__` is the object's (per conversation), not a history
    assert parts(session)[0][1][:3] == [("text", "Tags: "), ("unique-id", "per-conversation", '", ".join(self._tags)'),
                                        ("text", "\n\n")]
    # a list also grown in a turn's method stays the replayed log
    assert parts(notes)[0][1][1] == ("history", "unknown", '"\\n".join(self._notes)')
    # and so does one grown in a helper that a turn's method calls as well as `__init__`
    assert parts(refreshed)[0][1][1] == ("history", "unknown", '"\\n".join(self._notes)')


def test_growth_only_at_setup_is_a_fact_of_the_class():
    import ast
    tree = ast.parse((FIXTURES / "tagged.py").read_text(encoding="utf-8"))
    session, notes, refreshed = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    assert grown_at_setup(session, "_tags") is True
    assert grown_at_setup(notes, "_notes") is False
    assert grown_at_setup(refreshed, "_notes") is False  # `_refresh` is called by `ask` too
    assert grown_at_setup(session, "_header") is False  # assigned, never grown
