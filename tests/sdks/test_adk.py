"""promptlint/python/sdks/adk.py: Google ADK's `LlmAgent` / `Agent` drawn as the request ADK sends
(system instruction: global_instruction, static_instruction, instruction, identity; tools; the
session's history; the newest message, with `instruction` before it when a static_instruction
is given), the placeholders ADK fills from the session, InstructionProviders, model objects;
agents of other libraries and look-alike classes. Findings on fixtures/adk, each file holding
positive and negative examples."""
from __future__ import annotations

from pathlib import Path

from analysis_support import code, layouts, parts, pos, sent

from promptlint import api
from promptlint.python.prefilter import might_hold_prompt
from promptlint.python.sdks.adk import filled, placeholder
from promptlint.model import Segment, Volatility

FIXTURES = Path(__file__).resolve().parent.parent.parent / "fixtures" / "adk"

NEWEST = ("user-input", "per-request", "the user's new message")
HISTORY = ("history", [("history", "unknown", "the session's events")])

AGENT = """
    from google.adk.agents import LlmAgent


    def search(q: str) -> str:
        return q


    def lookup(q: str) -> str:
        return q


    agent = LlmAgent(
        name="helper",
        model="gemini-2.5-flash",
        global_instruction="Be polite.",
        instruction="Help {user:name} with {topic?}; keep {not a key} and {app:tone}.",
        tools=[search, lookup],
    )
"""


def test_agent_layout_in_the_order_adk_sends_it(tmp_path):
    assert might_hold_prompt(code(AGENT))
    (layout,) = sent(layouts(tmp_path, AGENT))
    assert (layout.provider, layout.model, layout.api) == ("google", "gemini-2.5-flash", "adk.LlmAgent")
    got = parts(layout)
    assert got[0] == ("system", [("text", "Be polite.")])
    assert got[1] == ("system", [
        ("text", "Help "), ("template-variable", "per-conversation", "{user:name}"), ("text", " with "),
        ("template-variable", "per-conversation", "{topic?}"), ("text", "; keep {not a key} and "),
        ("template-variable", "unknown", "{app:tone}"), ("text", ".")])
    assert got[2] == ("system", [("text", 'You are an agent. Your internal name is "helper".')])
    assert [r for r, _ in got[3:]] == ["tools", "history", "user"]
    assert '"search"' in got[3][1][0][1] and got[3][1][0][1].index('"search"') < got[3][1][0][1].index('"lookup"')
    assert got[4] == HISTORY and got[5] == ("user", [NEWEST])
    assert layout.newest_user == 5
    assert layout.parts[1].segments[1].span.start == pos(AGENT, "{user:name}")


def test_static_instruction_first_and_instruction_just_before_the_newest_message(tmp_path):
    (layout,) = sent(layouts(tmp_path, """
        from google.adk import Agent
        from google.genai import types

        agent = Agent(name="a", description="Books rooms.", model="gemini-2.5-pro",
                      static_instruction=types.Content(parts=[types.Part(text="Rules.")]),
                      instruction="The user is {user:name}.", include_contents="default")
    """))
    assert parts(layout) == [
        ("system", [("text", "Rules.")]),
        ("system", [("text", 'You are an agent. Your internal name is "a". The description about you is "Books rooms.".')]),
        HISTORY,
        ("user", [("text", "The user is "), ("template-variable", "per-conversation", "{user:name}"), ("text", "."),
                  ("text", "\n"), NEWEST]),
    ]
    # without the session's contents there is no history
    (bare,) = sent(layouts(tmp_path, """
        from google.adk.agents import LlmAgent
        agent = LlmAgent(name="a", instruction="Rules.", include_contents="none")
    """))
    assert [p.role for p in bare.parts] == ["system", "system", "user"]
    assert (bare.provider, bare.model) == (None, None)  # inherited from the parent agent or ADK's default


def test_placeholders_adk_fills_and_braces_it_leaves():
    assert placeholder("topic")[0] is Volatility.PER_CONVERSATION
    assert placeholder("user:name")[0] is Volatility.PER_CONVERSATION
    assert placeholder("temp:step")[0] is Volatility.PER_REQUEST
    assert placeholder("app:tone")[0] is Volatility.UNKNOWN
    assert placeholder("artifact.report.pdf")[0] is Volatility.PER_CONVERSATION
    for text in ("not a key", '"answer": 1', "a.b", "other:key", "user:na me", ""):
        assert placeholder(text) is None, text
    got = filled([Segment(text="${x} \\{y} {{z}} {w}")])
    assert [(s.kind.value if s.kind else "text", s.expr or s.text) for s in got] == [
        ("text", "${x} \\{y} "), ("template-variable", "{{z}}"), ("text", " "), ("template-variable", "{w}")]


def test_instruction_providers_and_lambdas_are_read_unfilled(tmp_path):
    found = sent(layouts(tmp_path, """
        from google.adk.agents import LlmAgent

        def build(ctx) -> str:
            return "Hello {user:name}."

        a = LlmAgent(name="a", instruction=build)
        b = LlmAgent(name="b", instruction=lambda ctx: "Lambda {x}.")
        c = LlmAgent(name="c", instruction=ctx_builder)
    """))
    assert [parts(lt)[0] for lt in found] == [
        ("system", [("text", "Hello {user:name}.")]),  # a provider's text is used as it returns it
        ("system", [("text", "Lambda {x}.")]),
        ("system", [("unknown", "unknown", "ctx_builder")]),
    ]


def test_model_objects_name_the_provider(tmp_path):
    found = sent(layouts(tmp_path, """
        from google.adk.agents import LlmAgent
        from google.adk.models.anthropic_llm import Claude
        from google.adk.models.google_llm import Gemini
        from google.adk.models.lite_llm import LiteLlm

        a = LlmAgent(name="a", model=LiteLlm(model="openai/gpt-4.1"), instruction="x", tools=[f])
        b = LlmAgent(name="b", model=Claude(model="claude-sonnet-4-5"), instruction="x", tools=[f])
        c = LlmAgent(name="c", model=Gemini(model="gemini-2.5-flash"), instruction="x", tools=[f])
        d = LlmAgent(name="d", model=settings.model, instruction="x")
    """))
    assert [(lt.provider, lt.model) for lt in found] == [
        ("openai", "gpt-4.1"), ("anthropic", "claude-sonnet-4-5"), ("google", "gemini-2.5-flash"), (None, None)]
    # tools before the system prompt for OpenAI and Claude, beside it after for Gemini
    assert [[p.role for p in lt.parts][:3] for lt in found[:3]] == [
        ["tools", "system", "system"], ["tools", "system", "system"], ["system", "system", "tools"]]
    # Claude and LiteLLM breakpoints are ADK's, set when the App enables context caching
    assert [lt.auto_cache is not None for lt in found] == [True, True, False, False]


def test_look_alikes_are_not_adk_agents(tmp_path):
    assert [lt for lt in sent(layouts(tmp_path, """
        from crewai import Agent
        from myproject.agents import LlmAgent

        a = Agent(role="r", goal="g", backstory="b", instruction="x")
        b = LlmAgent(name="b", instruction="x", tools=list({1, 2}))
    """)) if lt.api != "crewai.Agent"] == []  # (CrewAI's agent is one of its own: sdks/crewai.py)
    assert sent(layouts(tmp_path, """
        from google.adk.agents import LlmAgent
        a = LlmAgent(name="a", model="gemini-2.5-flash", sub_agents=[])  # nothing sent of its own
    """)) == []


def findings(name: str) -> list[tuple[int, str, str, str]]:
    """(row, code, severity, message up to " at token") of the findings in one fixture file."""
    report = api.check([FIXTURES / name], api.Settings(), jobs=1)
    return sorted((d.span.start.row, d.code, d.severity.value, d.message.split(" at token")[0])
                  for d in report.diagnostics)


def test_instruction_findings():
    assert findings("instructions.py") == [
        (11, "PRM102", "warning", "Timestamp `datetime.now()` (sub-day precision)"),  # built per call
        (20, "PRM102", "info", "Timestamp `datetime.now()` (sub-day precision)"),  # at import: per process
        (25, "PRM101", "warning", "Per-conversation content `{user:name}` (the user's state `user:name` "
                                  "(a value per user), filled on every request)"),
        (39, "PRM101", "info", "Content of unknown volatility `{app:product?}` (the application's state "
                               "`app:product` (shared by every user; set at run time), filled on every request)"),
    ]  # static_agent (15), split_agent (29) and the braces of line 39 hold none


def test_instruction_provider_findings():
    assert findings("providers.py") == [
        (11, "PRM102", "warning", "Timestamp `datetime.now().isoformat()` (sub-day precision)"),
    ]  # `fixed` (14): its `{user:name}` is text, not filled


def test_tool_findings():
    assert findings("tools.py") == [
        (16, "PRM203", "warning", "Tool list ordered by `{lookup, google_search}` (a set display: iteration "
                                  "order depends on the hash seed): a different order invalidates the whole cached prefix"),
    ]  # `ordered` (17) and `claude` (19, no PRM302: ADK marks it when the App caches) hold none


def test_look_alike_findings():
    assert findings("lookalikes.py") == []


def test_a_claude_name_is_marked_by_adk_as_its_model_object_is(tmp_path):
    (layout,) = sent(layouts(tmp_path, """
        from google.adk.agents import LlmAgent
        a = LlmAgent(name="a", model="claude-sonnet-4-5", instruction="x")
    """))
    assert (layout.provider, layout.model, layout.auto_cache is not None) == ("anthropic", "claude-sonnet-4-5", True)
