"""fixtures/agent_frameworks: requests that agent frameworks send (python/sdks/: langchain.py's
LangGraph agents, openai_agents.py, autogen.py, llama_index.py, crewai.py), judged as a direct
call with the same layout: each `# failing` line has its finding, no `# passing` line has one."""
from __future__ import annotations

from pathlib import Path

from analysis_support import fixture_findings

FIXTURES = Path(__file__).parent.parent / "fixtures" / "agent_frameworks"


def _found(name, tmp_path):
    return [(d.span.start.row, d.code, d.severity.value) for d in fixture_findings(FIXTURES, name, tmp_path)]


def _marked(name, word):
    return [i for i, line in enumerate((FIXTURES / name).read_text().splitlines(), 1) if f"# {word}" in line]


def test_langgraph_agent_run_by_a_factory(tmp_path):
    assert _found("langgraph_agent.py", tmp_path) == [(15, "PRM203", "warning"), (15, "PRM105", "warning")]
    assert _marked("langgraph_agent.py", "failing") == [15]


def test_framework_agents(tmp_path):
    found = _found("framework_agents.py", tmp_path)
    assert sorted(found) == [(17, "PRM101", "info"), (28, "PRM102", "warning"), (39, "PRM101", "info"),
                             (44, "PRM101", "info")]
    assert {row for row, _, _ in found} == set(_marked("framework_agents.py", "failing"))
    assert not {row for row, _, _ in found} & set(_marked("framework_agents.py", "passing"))
