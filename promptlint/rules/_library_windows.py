"""PRM105's judgement of the conversation windows of agent libraries a module configures
(`python/library_windows.py` states them; the library table says what each class does).

Reported where the window is configured (the class's call, or the method that makes an agent
with its default memory), once a conversation goes through it across calls:

- nothing when it keeps no window (a parameter turns the cut off, it cuts in steps, or it keeps
  nothing, `k=0`), when nothing sends a conversation through it, or when what takes it lives for
  one call only (a one-shot request);
- a warning when an agent, a chain or a read of the window sends the conversation through it, it
  outlives one call, and its limit is a known constant that ordinary conversations reach
  (`REACHED`: from a window that holds a cacheable amount up to one a few dozen turns fill);
- info when its limit is (a share of) the model's context window (no limit given: it cuts only
  near the context limit, but then on every turn, not in steps), when it has no limit and
  rewrites a summary that stands for the history after every exchange (`ConversationSummaryMemory`),
  when the limit is not a constant here, is so large that only long conversations reach it,
  or so small that the window holds little; when it is handed on where what takes it is not
  known (by position, under another name, returned by a getter); or when its cut may happen in
  steps (a margin that is not a constant).
"""
from __future__ import annotations

import ast

from ..model import Related, Severity

#: unit -> (the smallest, the largest) limit of a window that is a warning: below, the window holds
#: too little to matter (less than the smallest cacheable prefix, two turns); above, only long
#: conversations reach it.
REACHED = {"tokens": (1024, 8192), "messages": (5, 50), "turns": (3, 25)}

#: What each cut does to the request once the conversation is longer than the window.
_CUTS = {
    "oldest": ("every turn drops its oldest message, so the history sent after the system prompt starts at "
               "another message on every request and none of it is read from the cache"),
    "summary": ("every turn folds its oldest messages into a summary that is rewritten at the head of the history, "
                "so nothing after the system prompt is read from the cache"),
    "middle": ("every turn removes messages from its middle: only the first half of what it keeps stays the same, "
               "and everything after it is read uncached on every request"),
    "head-tail": ("the count of skipped messages after its first messages changes on every turn and the newest "
                  "messages after it slide: only those first messages are read from the cache"),
}
_UNITS = {"tokens": "tokens", "messages": "messages", "turns": "exchanges"}
#: What a use of the window says of it (`Configured.use_how`).
_HOW = {"handed": "it is handed to what sends the conversation", "read": "the window is applied to the conversation",
        "piped": "it is piped into what sends the conversation", "agent": "the agent sends its conversation through it",
        "slot": "the object it is set on sends its conversation through it", "weak": "it is handed on"}


def findings(rule, module):
    """PRM105 diagnostics of `module.facts["library_windows"]`."""
    for found in module.facts.get("library_windows", ()):
        window = found.window
        if found.off or window.cut == "steps" or found.steps == "given" \
                or found.use is None or not found.kept or found.limit is not None and found.limit <= 0:
            continue
        severity, why = _judge(found)
        limit = _limit(found)
        if found.made_by is not None:
            made = found.made_by
            what = f"{found.at.id}()" if isinstance(found.at, ast.Name) else made.name
            unset = f"`{made.memory_param}=`" + (f" and no `{made.context_param}=`" if made.context_param
                                                 and not found.context else "")
            head = (f"`{what}` makes a {made.project} `{made.name}` with no {unset}, so it keeps its conversation in a "
                    f"default `{window.name}`, which {window.does}, here {limit}")
        else:
            head = f"`{window.name}` ({window.project}) {window.does}" + ("" if window.every_turn else f", here {limit}")
        where = f"{found.kept}: {_HOW['slot']}" if found.use_how == "slot" else f"{_HOW[found.use_how]}, and {found.kept}"
        cut = "every turn it is rewritten, so nothing after the system prompt is read from the cache" \
            if window.every_turn else f"once the conversation is longer, {_CUTS[window.cut]}"
        message = (f"{head}: {cut} ({where}"
                   f"{'; ' + why if why else ''}); {_advice(found)}")
        related = []
        if found.limit_at is not None:
            related.append(Related(module.span(found.limit_at), "the window's limit set here"))
        if found.use is not found.at and found.made_by is None and found.use_how != "slot":
            related.append(Related(module.span(found.use), _HOW[found.use_how] + " here"))
        yield rule.diagnostic(message, module.span(found.at), severity=severity, related=related)


def _advice(found) -> str:
    """What to do instead, for the message."""
    if found.window.every_turn:
        return ("keep the conversation's messages and summarise only its oldest part once it passes a limit "
                "(in steps), so the history between two summaries is sent unchanged")
    if found.context:
        return ("compact the conversation in steps (summarise its oldest half) before it nears the context window")
    return ("raise the limit well above what a conversation reaches, or compact the conversation in steps "
            "(summarise its oldest half at a limit)")


def _limit(found) -> str:
    """The words for the window's limit in the message."""
    if found.window.every_turn:
        return "on every turn, whatever the conversation's length"
    if found.context:
        return "a share of the model's context window (no limit given)"
    if found.limit is None:
        return "a limit that is not a constant"
    return f"{found.limit:,} {_UNITS[found.unit]}" + ("" if found.limit_at is not None else " (the default)")


def _judge(found) -> tuple[Severity, str]:
    """The severity of a window sent across calls, and why it is info ("" for a warning)."""
    if found.window.every_turn:
        return Severity.INFO, ("what stands for the history is a summary, short next to the conversation: what is "
                               "read uncached on each turn is that summary and what follows it")
    if found.context:
        return Severity.INFO, ("it cuts only once a conversation nears the model's context window, and then on "
                               "every turn")
    if found.limit is None:
        return Severity.INFO, "how soon a conversation reaches the limit is not known"
    low, high = REACHED[found.unit]
    if found.limit < low:
        return Severity.INFO, "a window this small holds little: the cut costs little"
    if found.limit > high:
        return Severity.INFO, "only long conversations reach a window this large"
    if found.steps == "unknown":
        return Severity.INFO, f"`{found.window.step_param}` is not a constant: it may cut in steps"
    if found.use_how == "weak":
        return Severity.INFO, "what it is handed to is not known to send it as the conversation"
    return Severity.WARNING, ""
