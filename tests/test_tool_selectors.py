"""PRM204: tools chosen for each request by a method that selects them from its argument
(python/tool_selectors.py). The fixtures are fixtures/tool_selectors/selected.py and clean.py."""
from __future__ import annotations

from pathlib import Path

from promptlint.python.module import load
from promptlint.python.tool_selectors import find_tool_selections

from analysis_support import fixture_findings

FOLDER = Path(__file__).resolve().parent.parent / "fixtures" / "tool_selectors"


def _selections(name: str):
    path = FOLDER / name
    module = load(path, path.read_text(encoding="utf-8"))
    return [(s.node.lineno, s.send.lineno, s.method, s.how, s.evidence, s.condition) for s in find_tool_selections(module)]


def test_a_filter_by_state_a_method_moves_and_a_retrieval_by_the_turns_input_are_selections():
    # the node filter reaches the request through the `tools` parameter of `_reply`
    assert _selections("selected.py") == [
        (25, 21, "_tools_for", "filter", "state", "self.node_id"),
        (40, 42, "get_tools", "retrieval", "name", "task.input")]


def test_a_filter_by_settings_a_list_built_once_a_constant_and_a_sort_are_no_selection():
    assert _selections("clean.py") == []


def test_the_rule_reports_each_selection_as_info_where_the_method_is_called(tmp_path):
    reported = fixture_findings(FOLDER, "selected.py", tmp_path)
    found = [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
             for d in reported if d.code == "PRM204"]
    assert found == [("PRM204", "info", 25, [21]), ("PRM204", "info", 40, [42])]
    message = next(d.message for d in reported if d.code == "PRM204")
    assert message.startswith("The tools of the request (line 21) are chosen here by `_tools_for`, which filters the "
                              "tool list by its argument, for each request: `self.node_id` reads state of the instance")
    assert not [d for d in fixture_findings(FOLDER, "clean.py", tmp_path) if d.code == "PRM204"]
