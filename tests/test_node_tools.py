"""PRM204: the nodes of one graph state that send its conversation with different tools
(python/node_tools.py). The fixture is fixtures/node_tools/graph_nodes.py."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.module import load
from promptlint.python.node_tools import find_node_tools

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "node_tools" / "graph_nodes.py"


def test_a_retry_node_of_a_derived_state_bound_to_other_tools_is_a_fact_and_same_tools_are_none():
    module = load(FIXTURE, FIXTURE.read_text(encoding="utf-8"))
    assert [(n.node.lineno, n.node_name, n.other.lineno, n.other_name, n.state) for n in find_node_tools(module)] == [
        (24, "Patch", 16, "Extract", "RetryState")]


def test_the_other_tools_of_a_node_are_info_with_the_first_nodes_tools_related():
    report = api.check([FIXTURE], api.Settings(), jobs=1)
    found = [(d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
             for d in report.diagnostics if d.code == "PRM204"]
    assert found == [("info", 24, [16])]
    assert next(d.message for d in report.diagnostics if d.code == "PRM204").startswith(
        "`Patch` sends the conversation of its state (`RetryState`) with the tools bound here, other than those "
        "`Extract` sends the same state's conversation with (line 16)")
