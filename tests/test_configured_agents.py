"""Per-instance configuration is not per-request content (Policy 7): a required field of a
structured type (`plugins: List[Tool]`) of a class whose methods take the request's input
(`run(instruction)`), never written after the instance is built (python/flow/configured.py
`built_field`); fixtures/configured_agents."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "configured_agents"


def _findings(name: str):
    report = api.check([FIXTURES / name], api.Settings(), jobs=1)
    return report, [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics]


def test_tools_an_agent_is_built_with_are_configured_per_instance_not_per_request():
    report, found = _findings("tool_agent.py")
    assert found == []
    sent = [l for l in report.prompts if l.source == "python-call"]
    tools = [s for l in sent for p in l.parts for s in p.segments if not s.is_static and s.expr.startswith("plugin.")]
    assert tools and all(s.volatility.value == "stable" for s in tools)


def test_tools_written_on_the_request_path_stay_per_request():
    _, found = _findings("picking_agent.py")
    assert found == [("PRM101", "warning", 12)]


def test_a_required_text_field_or_a_class_that_serves_no_calls_is_not_built_configuration():
    import ast
    from promptlint.python.flow.configured import built_field
    cls = ast.parse("class A:\n    plugins: List[Tool]\n    name: str\n    tools: list = Field(default_factory=list)\n"
                    "    kind: ClassVar[Tool]\n").body[0]
    assert built_field(cls, "plugins") is cls.body[0]
    assert built_field(cls, "name") is None  # text: each caller words it
    assert built_field(cls, "tools") is None  # a default: `configured_field`'s none default or the default's value
    assert built_field(cls, "kind") is None
