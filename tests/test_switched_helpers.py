"""PRM204: a helper whose request's tools are chosen by a parameter, called twice over one
conversation with different values of it (python/switched_helpers.py). The fixtures are under
fixtures/switched_helpers/."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.module import load
from promptlint.python.switched_helpers import find_switched_helpers

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "switched_helpers"


def _facts(name: str):
    path = FIXTURES / name
    module = load(path, path.read_text(encoding="utf-8"))
    return [(s.node.lineno, s.send.lineno, s.helper, s.param, s.first.lineno, s.first_value, s.second.lineno,
             s.second_value, s.caller) for s in find_switched_helpers(module)]


def test_a_follow_up_sent_through_the_helper_without_its_tools_is_a_fact():
    assert _facts("follow_up.py") == [(9, 10, "_respond", "use_tools", 15, "True", 20, "False", "rag")]


def test_the_switch_is_a_warning_where_the_tools_are_chosen_with_both_calls_related():
    report = api.check([FIXTURES / "follow_up.py"], api.Settings(), jobs=1)
    found = [(d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
             for d in report.diagnostics if d.code == "PRM204"]
    assert found == [("warning", 9, [15, 20])]
    message = next(d.message for d in report.diagnostics if d.code == "PRM204")
    assert message.startswith("The tools of `_respond`'s request (line 10) are chosen here by `use_tools`, and `rag` "
                              "sends one conversation through it with `use_tools=True` (line 15), then with "
                              "`use_tools=False` (line 20)")


def test_other_branches_other_conversations_and_the_same_value_are_no_fact():
    assert _facts("kept_tools.py") == []
    report = api.check([FIXTURES / "kept_tools.py"], api.Settings(), jobs=1)
    assert [d for d in report.diagnostics if d.code == "PRM204"] == []


def test_a_request_with_tools_sent_only_when_a_parameter_is_given_and_a_loop_item_given_is_a_fact():
    # `if selected_tool is not None:` sends one forced function, the `else` the same call without it;
    # `_run` passes the items of a list first, then the default None, over one history
    assert _facts("first_tools.py") == [(11, 9, "_step", "selected_tool", 21, "an item of `self._first_tools`",
                                         23, "None", "_run")]
    report = api.check([FIXTURES / "first_tools.py"], api.Settings(), jobs=1)
    found = [(d.severity.value, d.span.start.row) for d in report.diagnostics if d.code == "PRM204"]
    assert found == [("warning", 11)]
    message = next(d.message for d in report.diagnostics if d.code == "PRM204")
    assert "with `selected_tool` set to an item of `self._first_tools` (line 21), then with `selected_tool=None`" \
        in message


def test_the_same_tools_in_both_branches_or_a_parameter_passed_on_are_no_fact():
    assert _facts("first_tools_kept.py") == []
