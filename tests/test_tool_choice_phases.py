"""PRM204 on a tool choice written into the options a tool loop sends (python/choice_writes.py) and
on a conversation sent with tools by one phase of a method and without them by the next
(python/phase_tools.py); PRM302 on a LiteLLM model routed to Anthropic by its `anthropic/` prefix
(request_facts, packages.CLAUDE_ROUTE). Fixtures: fixtures/choice_writes, fixtures/phase_tools,
fixtures/claude_prefix."""
from __future__ import annotations

from pathlib import Path

from promptlint.api import check
from promptlint.config import Settings
from promptlint.python.choice_writes import find_choice_writes
from promptlint.python.module import load
from promptlint.python.phase_tools import find_phase_tools

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _found(path: Path, code: str):
    result = check([path], Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.severity.value, d.span.start.row) for d in result.diagnostics
            if d.code == code]


def test_a_reset_in_the_loop_and_a_wrapup_choice_are_info_where_written():
    # (main: nothing)
    path = FIXTURES / "choice_writes" / "loop" / "runner.py"
    facts = [(w.node.lineno, w.value, w.function, w.request.lineno, w.later and w.later.lineno,
              w.via and w.via.lineno) for w in find_choice_writes(load(path, path.read_text()))]
    assert facts == [(9, "None", "run", 15, None, 19), (20, "'none'", "run", 15, 21, None)]
    assert _found(path.parent, "PRM204") == [("runner.py", "info", 9), ("runner.py", "info", 20)]


def test_a_choice_set_before_the_first_request_or_on_another_mapping_is_no_finding():
    path = FIXTURES / "choice_writes" / "kept" / "runner.py"
    assert find_choice_writes(load(path, path.read_text())) == []
    assert _found(path.parent, "PRM204") == []


def test_a_phase_without_tools_after_a_tool_phase_is_info_at_the_request_without_tools():
    # (main: nothing; `_inspect` and `_generate` call different senders)
    path = FIXTURES / "phase_tools" / "phases" / "agent.py"
    facts = [(f.node.lineno, f.function, f.conversation, f.first.lineno, f.later.lineno)
             for f in find_phase_tools(load(path, path.read_text()))]
    assert facts == [(18, "explore", "messages", 17, 18), (28, "run", "messages", 13, 14)]
    assert _found(path.parent, "PRM204") == [("agent.py", "info", 18), ("agent.py", "info", 28)]


def test_phases_that_keep_the_tools_or_exclude_each_other_are_no_finding():
    path = FIXTURES / "phase_tools" / "kept" / "agent.py"
    assert find_phase_tools(load(path, path.read_text())) == []
    assert _found(path.parent, "PRM204") == []


def test_a_model_routed_under_the_anthropic_prefix_may_be_claude():
    # (main: nothing; the package writes no Claude model name)
    assert _found(FIXTURES / "claude_prefix" / "routed", "PRM302") == [("client.py", "info", 14)]
    assert _found(FIXTURES / "claude_prefix" / "elsewhere", "PRM302") == [("client.py", "info", 12)]
    assert _found(FIXTURES / "claude_prefix" / "unrouted", "PRM302") == []
