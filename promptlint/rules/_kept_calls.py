"""PRM105 diagnostics of a kept conversation cut through a method of the object that keeps it:
read as its newest items (`module.facts["window_calls"]`, python/window_calls.py) or cut by the
remover of the object that holds it, under a size test of a memory class
(`module.facts["delegated_cuts"]`, python/delegated_cuts.py). The request that sends it is not
linked to the call: info."""
from __future__ import annotations

from ..model import SLICED, Related, Severity


def findings(rule, module):
    """PRM105 diagnostics of the two facts of the module docstring, in that order."""
    for call, method, cut, form in module.facts.get("window_calls", ()):
        how = "counted from its end" if form == "tail" else "from the negative start given here"
        message = (f"The kept conversation is read here as its newest items only, through `{method}`, which "
                   f"slices the sequence its object keeps {how}: once it is longer, the oldest item drops out "
                   "of what is read on every new turn, so the history built from it never matches the prefix "
                   "cached by the previous request (the request that sends it is not linked here: how much "
                   "it costs is not known); read it whole, or cut it in steps so it only changes at a cut")
        yield rule.diagnostic(message, module.span(call), severity=Severity.INFO, related=[Related(cut, SLICED)])
    for call, method, pop, held in module.facts.get("delegated_cuts", ()):
        message = (f"The conversation kept in `{held}` is cut here by `{method}`, which removes one of its oldest "
                   "messages, under a test of its size as it grows: once it reaches the bound, every new message "
                   "pushes an older one out, so the history sent from it never matches the prefix cached by the "
                   "previous request (the request that sends it is not linked here: how much it costs is not "
                   "known); keep the whole conversation, or cut it in steps (compact the oldest half at a limit)")
        yield rule.diagnostic(message, module.span(call), severity=Severity.INFO,
                              related=[Related(pop, "the message removed here")])
