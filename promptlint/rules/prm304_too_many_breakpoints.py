"""PRM304 too-many-breakpoints: more cache breakpoints than the API accepts."""
from __future__ import annotations

from typing import Iterable

from ..estimates import breakpoint_cuts, size_profiles
from ..model import Diagnostic, PromptLayout, Severity
from . import _cache_rule as h
from .base import Rule


class TooManyBreakpointsRule(Rule):
    """## What it does
    Counts the cache breakpoints of one request, on tools, system blocks and messages, plus the
    slot that Anthropic's top-level automatic `cache_control` uses, and reports the first one past
    the provider's limit (4 on Anthropic and Bedrock; sources: https://platform.claude.com/docs/en/build-with-claude/prompt-caching,
    https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html).

    ## Why is this bad?
    The API rejects the request with a 400 error. Breakpoints carried along in a replayed
    conversation are a common way to reach the limit after a few turns.

    ## Example
    ```python
    system=[
        {"type": "text", "text": PART_1, "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": PART_2, "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": PART_3, "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": PART_4, "cache_control": {"type": "ephemeral"}},
    ]
    ...
    client.messages.create(..., system=system, cache_control={"type": "ephemeral"})
    ```
    Use instead: keep one breakpoint at the end of the static prefix and one on the newest message.

    ## Fix safety
    No fix: which breakpoints to keep depends on how the prompt is reused.
    """

    code = "PRM304"
    brief = "more breakpoints than the provider allows"
    severity = Severity.ERROR
    fix_availability = "none"

    def check_layout(self, layout: PromptLayout) -> Iterable[Diagnostic]:
        cuts = breakpoint_cuts(layout)
        slots = [bp.span or layout.parts[pi].span for _cut, pi, bp in cuts]
        if layout.auto_cache is not None:
            slots.append(layout.auto_cache)  # the automatic breakpoint takes the last slot
        profiles, label = size_profiles(layout)
        limits = [p.max_breakpoints for p in profiles if p.opt_in]
        if not limits or len(limits) != len(profiles):
            return
        limit = max(limits)
        looped = next((bp for part in layout.parts for bp in part.breakpoints if bp.repeated), None)
        if looped is not None:
            fixed = len(slots) - 1
            turn = max(1, limit - fixed + 1)
            message = (f"A cache breakpoint set on every message of the conversation in a loop: with the "
                       f"{fixed} other breakpoint{'s' if fixed != 1 else ''} of the request, {label} allows {limit}, "
                       f"so from message {turn} of a conversation on the API rejects the request")
            yield self.diagnostic(message, h.span_or(looped.span, layout.site), prompt=layout.id)
            return
        if len(slots) <= limit:
            return
        span = slots[limit]
        auto = " (the automatic one included)" if layout.auto_cache is not None else ""
        message = (f"{len(slots)} cache breakpoints in one request{auto}; {label} allows {limit}: "
                   f"the API rejects the request")
        yield self.diagnostic(message, h.span_or(span, layout.site), prompt=layout.id)
