"""PRM101 dynamic-before-static."""
from __future__ import annotations

from ..model import Kind, PromptLayout, Severity, Volatility
from ..prefix import MIN_STATIC_AFTER, placed_segments
from . import _prefix_rule as text
from .base import Rule

_OWN_RULE = {Kind.TIMESTAMP, Kind.UNIQUE_ID, Kind.CONDITIONAL, Kind.HISTORY, Kind.SERIALIZED,
             Kind.UNORDERED_ITERATION}
INFO_MIN_STATIC_AFTER = 256  # tokens: below this an unknown value costs little even if it changes


class DynamicBeforeStaticRule(Rule):
    """## What it does
    Finds per-request or per-user content (the user's message, data fetched with it such as
    retrieved memories or documents) placed before static content or before the conversation
    history.

    ## Why is this bad?
    Everything after the first changed byte is a cache miss. Per-request content at the end of the
    system prompt still sits before the history, so the largest part of a long conversation is
    re-processed on every turn. Content whose volatility is unknown (a parameter, an attribute) is
    reported as info only.

    ## Example
    ```python
    messages = [{"role": "system", "content": RULES + recalled_memories}, *history]
    ```
    Use instead: keep the system message static and send the per-turn content with the newest
    user message.

    ## Fix safety
    Moving content between messages changes the prompt: unsafe.
    """

    code = "PRM101"
    fix_availability = "sometimes"
    fix_title = "Move the dynamic content after the static content (e.g. into the newest user message)"

    def check_layout(self, layout: PromptLayout):
        info_given = False
        for p in placed_segments(layout):
            seg = p.seg
            if seg.kind in _OWN_RULE or seg.volatility in (Volatility.STABLE, Volatility.PER_PROCESS,
                                                           Volatility.PER_DAY):
                continue
            if p.part.is_history or p.part.role == "tools":
                continue  # tool lists are PRM203's; replayed history is the prefix itself
            if seg.volatility is Volatility.PER_REQUEST:
                if not p.followed:
                    continue
                severity = Severity.WARNING
            elif seg.volatility is Volatility.PER_CONVERSATION:
                if p.static_after < MIN_STATIC_AFTER:
                    continue
                severity = Severity.WARNING
            else:
                if info_given or (p.static_after < INFO_MIN_STATIC_AFTER and not p.history_after):
                    continue
                info_given = True  # only the first: later unknowns sit after it, their cost is counted
                severity = Severity.INFO
            what = "Per-request content" if seg.volatility is Volatility.PER_REQUEST else (
                "Per-conversation content" if seg.volatility is Volatility.PER_CONVERSATION else "Content of unknown volatility")
            why = f" ({seg.evidence})" if seg.evidence and not seg.name_only else ""
            message = f"{what} {text.describe(seg)}{why} {text.position(p)}: {text.lost(p)} " + (
                "cannot be read from the cache" if severity is Severity.WARNING else
                "cannot be read from the cache whenever it changes") + text.evidence(seg)
            yield self.diagnostic(message, seg.span or layout.site, severity=severity, prompt=layout.id,
                                  related=text.related(seg), fix=text.move_fix(seg, p))
