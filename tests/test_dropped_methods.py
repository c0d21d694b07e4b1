"""PRM204 facts: a class whose wrap-up method hands the request builder the conversation it is
given with `tools=None`, while another method hands the same builder the same conversation with
the tools (python/dropped_methods.py); a no-tools method only callers choose, and a summary sent
as a new message list, keep the conversation's tools (fixtures/dropped_methods/)."""
from __future__ import annotations

from pathlib import Path

from promptlint.api import check
from promptlint.config import Settings
from promptlint.python.dropped_methods import find_dropped_in_methods
from promptlint.python.module import load

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "dropped_methods"


def _facts(path: Path):
    module = load(path, path.read_text())
    return [(d.node.lineno, d.request.lineno, d.earlier.lineno, d.function, d.other, d.param)
            for d in find_dropped_in_methods(module)]


def test_the_wrapup_method_without_tools_is_info_where_the_tools_are_left_out():
    # (main: nothing; only two requests of one function were compared)
    assert _facts(FIXTURES / "dropped" / "runner.py") == [
        (22, 22, 18, "_request_no_tools", "_request_model", "messages")]
    result = check([FIXTURES / "dropped"], Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row, d.span.start.column) for d in result.diagnostics
            if d.code == "PRM204"] == [("PRM204", "info", 22, 61)]


def test_a_no_tools_option_of_the_callers_and_a_new_summary_list_are_no_finding():
    assert _facts(FIXTURES / "kept" / "client.py") == []
    result = check([FIXTURES / "kept"], Settings(), jobs=1)
    assert [d.code for d in result.diagnostics if d.code == "PRM204"] == []
