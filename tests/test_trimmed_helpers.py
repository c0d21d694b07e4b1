"""A helper of the tree that returns the conversation it is handed joined to what we cannot read
(`opening + steps[-40:]`, the caller's opening messages): its result is that conversation, cut
where the helper cuts it (in one of its branches too), not "data fetched with" it
(flow/calls.after_call, layout.history_seg). The fixture is fixtures/trimmed_helpers/stepper.py."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.sites import find_layouts

from analysis_support import evaluator, parts

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "trimmed_helpers" / "stepper.py"


def test_a_window_cut_in_a_helper_that_joins_unknown_opening_messages_is_found_where_it_cuts():
    report = api.check([FIXTURE], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row, d.span.start.column) for d in report.diagnostics] == [
        ("PRM105", "warning", 19, 21)]


def test_the_helpers_result_is_the_conversation_not_data_fetched_with_it():
    ev = evaluator(FIXTURE.parent)
    windowed, full = [lt for lt in find_layouts(ev.project.load(FIXTURE), ev) if lt.source == "python-call"]
    assert [role for role, _ in parts(windowed)] == [role for role, _ in parts(full)] == ["system", "history"]
    (w_hist,), (f_hist,) = windowed.parts[1].segments, full.parts[1].segments
    assert (w_hist.window.start.row, w_hist.window.start.column) == (19, 21)
    assert f_hist.window is None  # every step is sent: nothing is cut
    assert "fetched" not in f_hist.evidence + w_hist.evidence
