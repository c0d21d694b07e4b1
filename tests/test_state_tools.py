"""PRM204: a request's tools made of an entry of the conversation's state that the code writes
together with the conversation after a model's request (python/state_tools.py). The fixtures are
under fixtures/state_tools/."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.module import load
from promptlint.python.state_tools import find_state_tools

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "state_tools"


def _facts(name: str):
    path = FIXTURES / name
    module = load(path, path.read_text(encoding="utf-8"))
    return [(s.node.lineno, s.read.lineno, s.key, s.conversation, s.writer.lineno, s.writer_function, s.function)
            for s in find_state_tools(module)]


def test_tools_bound_from_a_state_entry_a_tool_node_writes_with_the_messages_are_a_fact():
    assert _facts("retrieved_tools.py") == [
        (14, 13, "selected_tool_ids", "messages", 23, "select_tools", "call_model"),
        (30, 30, "active_tools", "messages", 35, "on_tool", "step")]


def test_the_grown_tool_lists_are_warnings_at_the_tools_with_the_read_and_the_write_related():
    report = api.check([FIXTURES / "retrieved_tools.py"], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
            for d in report.diagnostics] == [("PRM204", "warning", 14, [13, 23]), ("PRM204", "warning", 30, [30, 35])]
    assert report.diagnostics[0].message.startswith(
        "The tools of this request are made of `selected_tool_ids` of the conversation's state (line 13), "
        "which `select_tools` writes after a model's request together with the conversation `messages` (line 23)")


def test_tools_written_once_at_the_start_or_not_with_the_conversation_are_no_finding():
    assert _facts("fixed_tools.py") == []
    report = api.check([FIXTURES / "fixed_tools.py"], api.Settings(), jobs=1)
    # (the two nodes that send the state's conversation with other tools are node_tools' fact, info)
    assert [(d.severity.value, d.span.start.row, d.message.startswith("`call_named` sends the conversation"))
            for d in report.diagnostics if d.code == "PRM204"] == [("info", 20, True)]
