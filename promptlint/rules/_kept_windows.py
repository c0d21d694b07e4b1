"""PRM105 diagnostics of a conversation an instance keeps and cuts as it grows: in a bounded deque
(`module.facts["deque_windows"]`), by the method that adds to it (`memory_windows`, raised to a
warning when a request of the module sends that list as its history and caches it:
`memory_windows_sent`), or with a running summary rewritten at its head (`summary_heads`)."""
from __future__ import annotations

from ..model import Related, Severity


def findings(rule, module):
    """PRM105 diagnostics of the three facts of the module docstring, in that order."""
    for bound, held, why in module.facts.get("deque_windows", ()):
        message = (f"The conversation is kept in a bounded deque `{held}` ({why}): once it is full, each new "
                   "turn pushes the oldest one out, so the history sent from it never matches the prefix "
                   "cached by the previous request (the request that sends it is not linked here: how much "
                   "it costs is not known); keep the whole conversation, or drop its oldest half at a limit")
        yield rule.diagnostic(message, module.span(bound), severity=Severity.INFO)
    dropped = {module.span(drop) for _excess, drop in module.facts.get("kind_windows", ())}
    for at, held, method, how in module.facts.get("memory_windows", ()):
        if module.span(at) in dropped:  # the same cut, reported where its excess is taken (one cause)
            continue
        what = ("once it is full, each message it adds pushes an older one out of it" if how == "slides" else
                "each time it adds a message, the whole conversation is replaced by a new list (a summary)")
        sent = module.facts.get("memory_windows_sent", {}).get(held)
        linked = ("the request that sends it is not linked here: how much it costs is not known" if sent is None
                  else "it is sent as the history of the request related here" if sent[1] else
                  "it is sent as the history of the request related here, with no cache breakpoint on or after "
                  "it: nothing of it is cached today")
        message = (f"The conversation kept in `{held}` is cut here by `{method}`: {what}, so the history sent "
                   f"from it never matches the prefix cached by the previous request ({linked}); keep the whole "
                   "conversation, or cut it in steps (compact the oldest half at a limit)")
        related = [Related(sent[0], "the request that sends it as its history")] if sent is not None else []
        severity = Severity.WARNING if sent is not None and sent[1] else Severity.INFO
        yield rule.diagnostic(message, module.span(at), severity=severity, related=related)
    for at, held, head in module.facts.get("summary_heads", ()):
        message = (f"The running summary `{held}` is rewritten here each time the kept conversation drops "
                   "a turn into it (only its newest part is kept whole), and it is sent as a message before "
                   "that conversation: so the history changes from its first message on, on every such turn, "
                   "and nothing after the system prompt is read from the cache (the request that sends it is "
                   "not linked here: how much it costs is not known); summarise in steps (the oldest half at "
                   "a limit), or send the summary after the kept turns")
        yield rule.diagnostic(message, module.span(at), severity=Severity.INFO,
                              related=[Related(module.span(head), "the summary sent at the head of the "
                                               "conversation here")])
