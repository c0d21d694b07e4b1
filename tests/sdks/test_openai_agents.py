"""promptlint/python/sdks/openai_agents.py: the OpenAI Agents SDK's `Agent(instructions=...,
tools=[...], model=...)` drawn as the request the SDK sends (tools, instructions, the run's
input); an `Agent` of the project's own `agents` package is none."""
from __future__ import annotations

from analysis_support import layouts, parts, pos, sent, write

from promptlint import api

AGENT = """
    from agents import Agent, Runner

    GUIDE = "Answer questions about the product catalogue. " * 200


    async def answer(question, user):
        agent = Agent(name="Support", instructions=f"The user is {user.name}. " + GUIDE, model="gpt-4o",
                      tools=list({lookup, order_status}))
        return await Runner.run(agent, question)
"""


def test_agent_is_drawn_as_tools_instructions_and_input(tmp_path):
    (layout,) = sent(layouts(tmp_path, AGENT))
    assert (layout.provider, layout.model, layout.api) == ("openai", "gpt-4o", "agents.Agent")
    assert [p.role for p in layout.parts] == ["tools", "system", "user"]
    assert parts(layout)[1][1][:2] == [("text", "The user is "), ("unknown", "unknown", "user.name")]
    assert parts(layout)[2] == ("user", [("user-input", "per-request", "the input the agent is run with")])
    assert layout.newest_user == 2
    assert layout.site.start == pos(AGENT, "Agent(name=")


def test_agent_tools_from_a_set_and_a_value_before_the_instructions_are_found(tmp_path):
    write(tmp_path, {"app.py": AGENT})
    found = api.check([tmp_path / "app.py"], api.Settings(), jobs=1).diagnostics
    assert [(d.code, d.severity.value, d.span.start.row) for d in found] == [("PRM101", "info", 7),
                                                                          ("PRM203", "warning", 8)]


def test_instructions_after_static_text_and_a_project_agents_package_are_no_finding(tmp_path):
    write(tmp_path, {"agents/__init__.py": "class Agent:\n    pass\n", "app.py": """
        from agents import Agent

        def build(user):
            return Agent(instructions="Be brief. " * 300 + f"The user is {user.name}.")
    """, "other.py": """
        from agents import Agent as OpenAIAgent

        GUIDE = "Answer questions about the product catalogue. " * 200

        async def answer(question, user):
            return OpenAIAgent(name="Support", instructions=GUIDE + f"The user is {user.name}.")
    """})
    assert sent(layouts(tmp_path, (tmp_path / "app.py").read_text())) == []  # the project's own class
    found = api.check([tmp_path], api.Settings(), jobs=1).diagnostics
    assert found == []


def test_a_conversation_given_as_the_runs_input_follows_the_instructions(tmp_path):
    found = sent(layouts(tmp_path, """
        from agents import Agent, Runner

        GUIDE = "Answer questions about the product catalogue. " * 200


        async def answer(history, question, notes):
            agent = Agent(name="Support", instructions=GUIDE + f"Notes: {notes}")
            return await Runner.run(agent, history + [{"role": "user", "content": question}])


        async def answer_once(question, notes):
            agent = Agent(name="Support", instructions=GUIDE + f"Notes: {notes}")
            return await Runner.run(agent, question)
    """))
    handed, once = found
    assert [p.role for p in handed.parts] == ["system", "history", "user"]
    assert parts(handed)[1] == ("history", [("history", "unknown", 'history + [{"role": "user", "content": question}]')])
    assert [p.role for p in once.parts] == ["system", "user"]


def test_handoffs_are_tools_of_unknown_size_before_the_instructions(tmp_path):
    (layout,) = sent(layouts(tmp_path, """
        from agents import Agent

        def triage(billing, support):
            return Agent(name="Triage", instructions="Route the request.", handoffs=[billing, support])
    """))
    assert [p.role for p in layout.parts] == ["tools", "system", "user"]
    assert parts(layout)[0][1][0][0] == "unknown"  # what the handoff tools hold is not read
