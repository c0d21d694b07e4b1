"""promptlint/python/sdks/pydantic_ai.py: `Agent(model, system_prompt=..., instructions=...)` and
functions decorated `@agent.system_prompt` / `@agent.instructions`; an `Agent` of another library
and functions merely named so."""
from __future__ import annotations

from analysis_support import code, layouts, parts, pos, sent

from promptlint.model import Precision
from promptlint.python.prefilter import might_hold_prompt

AGENT = """
    from datetime import date

    from pydantic_ai import Agent, RunContext

    agent = Agent("openai:gpt-4o", system_prompt="You are a booking assistant.", instructions="Reply in English.")
    plain = Agent("anthropic:claude-3-5-haiku-latest")


    @agent.system_prompt
    def today() -> str:
        return f"Today is {date.today()}."


    @agent.instructions
    def user_name(ctx: RunContext[str]) -> str:
        return f"The user is {ctx.deps}."
"""


def test_agent_system_prompt_and_instructions(tmp_path):
    assert might_hold_prompt(code(AGENT))
    found = sent(layouts(tmp_path, AGENT))
    assert [lt.api for lt in found] == ["Agent", "agent.system_prompt", "agent.instructions"]  # `plain` has none
    layout = found[0]
    assert (layout.provider, layout.model) == ("openai", "gpt-4o")  # "provider:model"
    assert parts(layout) == [("system", [("text", "You are a booking assistant.")]),
                             ("system", [("text", "Reply in English.")])]
    assert layout.parts[1].segments[0].span.start == pos(AGENT, "Reply in English.")
    assert layout.site.start == pos(AGENT, 'Agent("openai')


def test_decorated_functions_return_system_text(tmp_path):
    _, today, user_name = sent(layouts(tmp_path, AGENT))
    assert (today.provider, today.model) == ("pydantic-ai", None)
    assert parts(today) == [("system", [("text", "Today is "), ("timestamp", "per-request", "date.today()"),
                                        ("text", ".")])]
    assert today.parts[0].segments[1].precision is Precision.DAY
    assert today.parts[0].segments[1].span.start == pos(AGENT, "{date.today()}")
    assert today.site.start == pos(AGENT, "def today")
    # the run context's dependencies: what they hold is not known
    assert parts(user_name) == [("system", [("text", "The user is "), ("unknown", "unknown", "ctx.deps"),
                                            ("text", ".")])]
    assert user_name.parts[0].segments[1].span.start == pos(AGENT, "{ctx.deps}")


def test_look_alikes_are_not_pydantic_ai_prompts(tmp_path):
    found = layouts(tmp_path, """
        from crewai import Agent


        class Bot:
            @property
            def system_prompt(self):
                return "Not an agent decorator."


        def system_prompt():
            return "A plain function."


        crew = Agent(role="writer", goal="write", system_prompt="You write.")
    """)
    assert sent(found) == []


def test_agent_tools_come_before_its_system_prompt_and_a_set_of_them_is_found(tmp_path):
    from analysis_support import write

    from promptlint import api
    source = """
        from pydantic_ai import Agent

        def build(tools):
            return Agent("openai:gpt-4o", tools=list(set(tools)), system_prompt="You book flights. " * 300)

        def build_sorted(tools):
            return Agent("openai:gpt-4o", tools=sorted(set(tools)), system_prompt="You book flights. " * 300)
    """
    unsorted, kept = sent(layouts(tmp_path, source))
    assert [p.role for p in unsorted.parts] == ["tools", "system"]
    assert parts(unsorted)[0][1][0][:2] == ("unordered-iteration", "per-process")
    write(tmp_path, {"app.py": source})
    found = api.check([tmp_path / "app.py"], api.Settings(), jobs=1).diagnostics
    assert [(d.code, d.severity.value, d.span.start.row) for d in found] == [("PRM203", "warning", 4)]
