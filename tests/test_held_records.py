"""A field of a record the instance holds (`self._state.goal`) that the instance's own methods set
is not what the record's class gives it (its default, its `reset`): unknown, named as set by those
methods (flow/objects.attr_of, class_facts.held_writes). The fixture is fixtures/held_records/ledger.py."""
from __future__ import annotations

import ast
from pathlib import Path

from promptlint import api
from promptlint.python.flow.class_facts import held_writes
from promptlint.python.sites import find_layouts

from analysis_support import evaluator, segs

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "held_records" / "ledger.py"


def test_a_field_the_holder_sets_is_unknown_and_one_it_never_sets_keeps_its_text():
    ev = evaluator(FIXTURE.parent)
    check, plan = [lt for lt in find_layouts(ev.project.load(FIXTURE), ev) if lt.source == "python-call"]
    system = segs(plan.parts[0].segments)
    assert system[:4] == [("text", "We are working on this goal:\n"), ("unknown", "unknown", "self._state.goal"),
                          ("text", "\n\nYou are "), ("text", "a careful project coordinator")]
    assert plan.parts[0].segments[1].evidence == "set by the methods of `Coordinator`"


def test_the_rule_reports_it_at_info_in_the_system_prompt_only():
    report = api.check([FIXTURE], api.Settings(), jobs=1)
    # (in `check` the ledger is the newest user message, after the history: nothing to report)
    assert [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics] == [("PRM101", "info", 14)]


def test_held_writes_are_a_fact_of_the_holders_class():
    tree = ast.parse(FIXTURE.read_text(encoding="utf-8"))
    state, coordinator = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    assert held_writes(coordinator) == {("_state", "goal")}
    assert held_writes(state) == frozenset()  # `self.goal = ""` is its own field, not a held record's
