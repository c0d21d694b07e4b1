"""A pydantic-ai agent whose model settings turn on Anthropic caching sets breakpoints: PRM302
stays silent there and still warns for an agent without them (fixtures/agent_cache_settings)."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "agent_cache_settings"


def test_only_the_agent_without_cache_settings_is_reported():
    report = api.check([FIXTURES], api.Settings(), jobs=1)
    found = [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row) for d in report.diagnostics]
    assert found == [("rules.py", "PRM302", "warning", 1)]
    agents = {Path(l.site.filename).name + f":{l.site.start.row}": l for l in report.prompts if l.api == "Agent"}
    assert sorted(agents) == ["cached.py:6", "cached.py:8", "plain.py:5"]
    assert agents["plain.py:5"].auto_cache is None
    assert agents["cached.py:6"].auto_cache.start.row == 7
    assert agents["cached.py:8"].auto_cache.start.row == 9
