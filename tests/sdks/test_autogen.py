"""promptlint/python/sdks/autogen.py: AutoGen's `AssistantAgent(..., system_message=...)` drawn as
the request the agent sends (tools, system message, the task); an agent built at module level
holds a clock read at import; AutoGen's own modules and agents given no system message are none."""
from __future__ import annotations

from analysis_support import layouts, parts, sent, write

from promptlint import api

AGENT = """
    from datetime import datetime

    from autogen_agentchat.agents import AssistantAgent
    from autogen_ext.models.openai import OpenAIChatCompletionClient

    GUIDE = "You plan trips for the user. " * 300


    async def plan(task):
        agent = AssistantAgent("planner", model_client=OpenAIChatCompletionClient(model="gpt-4o"),
                               tools=[search, book], system_message=f"Now: {datetime.now()}. " + GUIDE)
        return await agent.run(task=task)
"""


def test_assistant_agent_is_drawn_with_its_client_model(tmp_path):
    (layout,) = sent(layouts(tmp_path, AGENT))
    assert (layout.provider, layout.model, layout.api) == ("openai", "gpt-4o", "autogen.AssistantAgent")
    assert [p.role for p in layout.parts] == ["tools", "system", "user"]
    assert parts(layout)[1][1][:2] == [("text", "Now: "), ("timestamp", "per-request", "datetime.now()")]


def test_a_clock_in_a_system_message_is_a_warning_per_request_and_info_at_import(tmp_path):
    write(tmp_path, {"app.py": AGENT, "module_level.py": AGENT.replace("    async def plan(task):\n        agent =",
                                                                      "    agent =").replace(
                                                                          "        return await agent.run(task=task)\n", "")})
    found = api.check([tmp_path], api.Settings(), jobs=1).diagnostics
    assert [(d.code, d.severity.value, d.span.filename.rsplit("/", 1)[-1]) for d in found] == [
        ("PRM102", "warning", "app.py"), ("PRM102", "info", "module_level.py")]


def test_autogen_own_modules_and_agents_without_system_message_are_none(tmp_path):
    write(tmp_path, {"autogen_agentchat/__init__.py": "", "autogen_agentchat/teams.py": """
        from .agents import AssistantAgent

        def make(client, name):
            return AssistantAgent(name, model_client=client, system_message=f"You are {name}. " + "Help. " * 300)
    """})
    assert sent(layouts(tmp_path, (tmp_path / "autogen_agentchat/teams.py").read_text(),
                        name="autogen_agentchat/teams.py")) == []
    assert sent(layouts(tmp_path, """
        from autogen_agentchat.agents import AssistantAgent

        agent = AssistantAgent("helper", model_client=client)
    """)) == []
