"""CrewAI: `Agent(role=..., goal=..., backstory=...)`, drawn as the system prompt CrewAI builds
from them for every task the agent runs, then the task, the newest user message.

Facts, from CrewAI's documentation ("Customize Agent Prompts", docs/how-to/customize-prompts.mdx of
the crewAI repository; https://docs.crewai.com/guides/advanced/customizing-prompts): the system prompt opens with the role-playing slice `"You are {role}.
{backstory}\\nYour personal goal is: {goal}"`, followed by the tool or no-tool instructions and
the format instructions (CrewAI's own text, not drawn: of unknown size); the task's description
goes into the user prompt. What comes after the goal is not drawn, so a value in the goal is
judged on nothing after it."""
from __future__ import annotations

from ...model import Part, Segment
from .base import Sdk, Shape, agent_request, agent_value, framework_call

_ROOTS = ("crewai",)


def agent(b, call) -> None:
    kw = call.kwargs
    if not framework_call(b, call, _ROOTS) or not all(k in kw for k in ("role", "goal", "backstory")):
        return
    frame = call.frame
    segs: list[Segment] = [Segment(text="You are ")]
    for text, key in ((". ", "role"), ("\nYour personal goal is: ", "backstory"), ("", "goal")):
        segs += b.ev.text_of(agent_value(b, kw[key], frame), frame)
        if text:
            segs.append(Segment(text=text))
    agent_request(b, call, "crewai.Agent", None, None, [], [Part("system", segs, span=b.m.span(call.node))],
                  "the task the agent runs")


SDK = Sdk(
    name="crewai",
    imports=_ROOTS,
    hints=("backstory",),
    shapes=(Shape("crewai.Agent", ("Agent",), lambda c: c.qual in ("crewai.Agent", "crewai.agent.Agent"), agent),),
)
