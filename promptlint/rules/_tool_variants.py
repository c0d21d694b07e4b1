"""PRM204's messages for tool sets chosen per request: a chat template's tool section rendered
under a flag switched between the renders of one conversation (`template_tool_gates`), a request
that re-sends an agent's run without its tools (`agent_followups`), and a request's tools chosen,
filtered, reset or replaced by a condition that varies within a conversation (`tool_variants`,
`tool_resets`, `tool_fallbacks`). Each function gives (message, span, keywords of `Rule.diagnostic`)."""
from __future__ import annotations

from ..model import Related, Severity
from ._tools_followed import FRONT


def template_gate(module, gate):
    """(message, span, keywords) of one `template_tool_gates.TemplateToolGate`: info where the section is."""
    span = module.span_of(*gate.tag) if gate.tag is not None else module.span(gate.literal)
    on = ", ".join(str(c.lineno) for c in gate.on)
    off = ", ".join(str(c.lineno) for c in gate.off)
    message = (f"The chat template writes its tool definitions only under `{gate.flag}`, before the end of the "
               f"conversation it renders, and this function renders it with `{gate.flag}` on (line {on}) and "
               f"off (line {off}): the two prompts of one conversation differ from this section on, so an "
               "engine that reuses the previous prompt's prefix reads the conversation after it again at each "
               "switch (what the engine caches is not known here); render the tool block the same way for "
               "every request of a conversation, or put it after the conversation")
    related = [Related(module.span(c), f"rendered with `{gate.flag}` on here") for c in gate.on[:2]]
    related += [Related(module.span(c), f"rendered with `{gate.flag}` off here") for c in gate.off[:3]]
    return message, span, {"severity": Severity.INFO, "related": related}


def agent_followup(module, f):
    """(message, span, keywords) of one `agent_followups.AgentFollowup`: info at the request."""
    message = (f"This request re-sends the messages of the agent's run (line {f.run.lineno}) without the tools "
               f"the agent is built with (line {f.built.lineno}): the agent's requests carried {FRONT[4:]} so "
               "this one shares no prefix with the run's last request and reads the whole conversation "
               "uncached, once more per run that takes it (how often it runs and how long the conversation "
               "is are not known here); send the agent's tools with it (and `tool_choice=\"none\"`), or ask "
               "the agent itself for the final form")
    related = [Related(module.span(f.run), "the agent's run"), Related(module.span(f.built), "the agent built with tools here")]
    return message, module.span(f.send), {"severity": Severity.INFO, "related": related}


def tool_variant(module, v, span):
    """(message, span, keywords) of one `tool_variants.ToolVariant` found at `span`: a warning when proven."""
    sent = Related(module.span(v.send), "sent here")
    related = [sent]
    why = {"loop": f"`{v.condition}` changes from one pass of the loop to the next, and the loop sends the same "
                   "conversation",
           "awaited": f"`{v.condition}` reads a value awaited anew on every request",
           "name": f"`{v.condition}` reads the turn's own request (only its name says so)",
           "changed": f"`{v.condition}` reads an object that the loop sending the conversation changes in place"
                      + (f" (line {v.others[0].lineno})" if v.others else "") + ", so it may hold on a later "
                      "pass and not on an earlier one",
           "helper": f"`{v.condition}` changes from one pass of the loop to the next, and the loop hands the "
                     "tools to a helper on each pass (only the names say that the helper sends them with one "
                     "conversation)"}.get(v.evidence, "")
    if v.evidence == "changed" and v.others:
        related.append(Related(module.span(v.others[0]), "changed in place here"))
    if v.shape in ("branch", "filter", "mutation", "computed"):
        what = {"branch": "The tools of the request (line {l}) are chosen here by a condition",
                "filter": "The tools of the request (line {l}) are filtered here by a condition",
                "mutation": "Tools are removed from or added to the request's tools (line {l}) here by a condition",
                "computed": "The tools of the request (line {l}) are computed here from a value"}[v.shape]
        message = (what.format(l=v.send.lineno) + f" that varies between the requests of one "
                   f"conversation: {why}. When they differ, {FRONT} change, and the next request reads none "
                   "of the conversation from the cache; send the same tools on every request and choose "
                   "with `tool_choice` (or `allowed_tools`) which may be called")
    elif v.shape == "reset":
        how = ("" if v.proven else "; only the method's name says that it removes the tools")
        message = (f"`{v.condition}` removes the tools before the final request of `{v.function}` (line "
                   f"{v.send.lineno}), which re-sends the conversation its loop sent with tools: {FRONT} "
                   "differ from the earlier requests', so this request reads none of the conversation from "
                   f"the cache{how}; keep the tools and send `tool_choice=\"none\"`")
        related.append(Related(module.span(v.others[0]), "sent with tools here"))
    elif v.shape == "fallback":
        message = (f"`{v.condition}`, the tools of one turn, replaces the configured tools here when given: the "
                   f"requests of such a turn start with other tool definitions than the turns before, and "
                   f"{FRONT} differ, so those requests read none of the conversation from the cache; "
                   "only the name says that it is the turn's; add the turn's tools to the configured ones "
                   "in a stable order, or keep one tool list for the conversation")
        related = [Related(module.span(c), "a turn's tools passed here") for c in v.others]
    else:  # omitted
        message = (f"`{v.function}` sets up the tools here without `{v.condition}`, which another method "
                   f"passes (line {v.send.lineno}) before running the same turn: the requests after this call "
                   f"fall back to the configured tools, and {FRONT} differ from those the turn started with, "
                   "so they read none of the conversation from the cache; only the names say that both run "
                   "one conversation")
        related = [Related(module.span(v.send), "the turn's tools passed here"),
                   Related(module.span(v.others[0]), "the fallback")]
    severity = Severity.WARNING if v.proven else Severity.INFO
    return message, span, {"severity": severity, "related": related, "name_only": v.evidence in ("name", "method name")}
