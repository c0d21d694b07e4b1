"""PRM103 unique-id-in-prefix."""
from __future__ import annotations

from ..model import Kind, PromptLayout, Volatility
from ..prefix import MIN_STATIC_AFTER, placed_segments
from . import _prefix_rule as text
from .base import Rule


class UniqueIdInPrefixRule(Rule):
    """## What it does
    Finds a unique id (`uuid4()`, `random`, `secrets`, request / session / conversation / trace /
    runtime ids) inside the cacheable prefix, with static text or history after it.

    ## Why is this bad?
    An id that is new per request makes every request a new prefix. An id that is stable within a
    conversation but differs between conversations (a session or runtime id) keeps two
    conversations from sharing the static text after it, and with an explicit breakpoint after it
    every conversation pays a cache write.

    ## Example
    ```python
    system = f"Session {uuid.uuid4()}\\n{RULES}"
    ```
    Use instead: send ids in request metadata or at the end of the newest user message.

    ## Fix safety
    Moving the id changes the prompt: unsafe.
    """

    code = "PRM103"
    fix_availability = "sometimes"
    fix_title = "Move the id after the static content, or out of the prompt"

    def check_layout(self, layout: PromptLayout):
        for p in placed_segments(layout):
            seg = p.seg
            if seg.kind is not Kind.UNIQUE_ID or seg.volatility in (Volatility.STABLE, Volatility.UNKNOWN):
                continue
            if seg.volatility is Volatility.PER_REQUEST:
                if not p.followed:
                    continue
            elif p.static_after < MIN_STATIC_AFTER and not p.breakpoint_after:
                continue  # stable within a conversation: the history after it is still reused
            scope = {Volatility.PER_REQUEST: "changes on every request",
                     Volatility.PER_CONVERSATION: "differs per conversation",
                     Volatility.PER_PROCESS: "differs per process"}.get(seg.volatility, "changes")
            message = (f"Unique id {text.describe(seg)} {text.position(p)} {scope}: "
                       f"{text.lost(p)} cannot be shared between "
                       + ("requests" if seg.volatility is Volatility.PER_REQUEST else
                          "conversations" if seg.volatility is Volatility.PER_CONVERSATION else "processes")
                       + text.evidence(seg))
            yield self.diagnostic(message, seg.span or layout.site, prompt=layout.id, related=text.related(seg),
                                  fix=text.move_fix(seg, p))
