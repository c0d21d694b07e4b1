"""promptlint/python/sdks/crewai.py: CrewAI's `Agent(role=..., goal=..., backstory=...)` drawn as
the system prompt CrewAI builds from them (its documented role-playing slice), then the task."""
from __future__ import annotations

from analysis_support import layouts, parts, sent, write

from promptlint import api

AGENT = """
    from crewai import Agent

    BACKSTORY = "You have reviewed contracts for twenty years. " * 200


    def reviewer(client_name, topic):
        return Agent(role=f"Contract reviewer for {client_name}", goal=f"Review the {topic} contract",
                     backstory=BACKSTORY)
"""


def test_agent_is_drawn_as_the_role_playing_slice(tmp_path):
    (layout,) = sent(layouts(tmp_path, AGENT))
    assert (layout.provider, layout.api) == (None, "crewai.Agent")
    system = parts(layout)[0]
    assert system[0] == "system"
    assert system[1][:4] == [("text", "You are "), ("text", "Contract reviewer for "),
                             ("unknown", "unknown", "client_name"), ("text", ". ")]
    assert system[1][-3:] == [("text", "Review the "), ("unknown", "unknown", "topic"), ("text", " contract")]
    assert parts(layout)[1] == ("user", [("user-input", "per-request", "the task the agent runs")])


def test_a_value_in_the_role_is_found_and_one_in_the_goal_is_not(tmp_path):
    write(tmp_path, {"app.py": AGENT})
    found = api.check([tmp_path / "app.py"], api.Settings(), jobs=1).diagnostics
    # the role's value has the backstory after it; the goal's has nothing drawn after it
    assert [(d.code, d.severity.value, d.span.start.row) for d in found] == [("PRM101", "info", 7)]


def test_an_agent_without_a_backstory_is_none(tmp_path):
    assert sent(layouts(tmp_path, """
        from crewai import Agent

        writer = Agent(role="writer", goal="write")
    """)) == []
