"""PRM305 breakpoint-after-dynamic-content: the breakpoint meant to close the static prefix
sits after content that changes per request or per conversation."""
from __future__ import annotations

from typing import Iterable

from ..estimates import Cut, breakpoint_cuts, tokens_before
from ..impact import Rate, rate_of
from ..model import Diagnostic, PromptLayout, Related, Segment
from ..prefix import tokens
from . import _cache_rule as h
from .base import Rule

_PREFIX_ROLES = ("tools", "system", "developer")


class BreakpointAfterDynamicContentRule(Rule):
    """## What it does
    Finds the cache breakpoint that should close a prompt's static prefix when it sits after
    content that changes: per-request content (the document of this call, a timestamp) in a
    one-shot request, or per-conversation content (a runtime or session id) appended to the
    system prompt or tools. A breakpoint on the newest user message of a conversation that is
    re-sent next turn is right and is not reported (it becomes history, which the next request
    reads: docs/policies.md, Policy 4), nor is a later breakpoint when an earlier one already
    closes the static part.

    ## Why is this bad?
    The cache entry is keyed on everything before the breakpoint. If that includes per-call
    content, every call writes a new entry (1.25x the input price on Anthropic) and none is ever
    read; with per-conversation ids, every new conversation pays the write again. The static text
    before the dynamic content, often most of the prompt, is never shared ("Put the breakpoint at
    the end of the shared portion, not at the end of the whole prompt - otherwise every request
    writes a distinct cache entry and nothing is ever read": Anthropic's prompt-caching guide,
    https://github.com/anthropics/skills/blob/0da71c3b54277f20e96146648444590eab1dc82c/skills/claude-api/shared/prompt-caching.md).

    Per-call instructions merged into the block that carries the breakpoint are the same fault:
    added to its text in place (`system[-1]["text"] += f"Time: {now}"`), written into a copy of
    it (`system[-1] = {**system[-1], "text": system[-1]["text"] + note}`), or by a helper that
    rebuilds the list around a slice of it (`[*system[:-1], {**last, "text": last["text"] +
    note}]`): the marked block now ends with the per-call text. A block of its own after the
    marked one (`system.append({"type": "text", "text": note})`) keeps the breakpoint on the
    static text.

    ## Example
    ```python
    messages=[{"role": "user", "content": [
        {"type": "text", "text": f"<document>{document}</document>"},
        {"type": "text", "text": f"Request time: {now}", "cache_control": {"type": "ephemeral"}},
    ]}]
    ```
    Use instead: put the breakpoint at the end of the static part (e.g. on the system block) and
    keep per-call content after it, without a breakpoint.

    ## Fix safety
    Not offered yet. Moving only the breakpoint leaves the model input unchanged, so a fix that
    splits the block and moves the marker would be safe.
    """

    code = "PRM305"
    brief = "the breakpoint closes per-request or per-conversation content"
    fix_availability = "none"
    fix_title = "Close the static part with its own breakpoint and keep dynamic content after it"

    def check_layout(self, layout: PromptLayout) -> Iterable[Diagnostic]:
        cuts = breakpoint_cuts(layout)
        found = _first_dynamic(layout) if cuts else None
        if found is None:
            return
        at, seg, role = found
        if any(cut <= at for cut, _pi, _bp in cuts):
            return  # an earlier breakpoint already closes the static part
        static = tokens_before(layout, at)
        after = [(cut, pi, bp) for cut, pi, bp in cuts if cut > at]
        if not static or not after:
            return
        _cut, pi, bp = after[0]
        where = h.ROLE_NAMES.get(role, role)
        if rate_of(seg) is Rate.REQUEST:
            kind, cost = "per-request", "every request writes a new cache entry and none is read"
            where += "" if layout.has_history else " of a one-shot request"
        else:
            kind, cost = "per-conversation", "every new conversation writes the whole prefix again"
        message = (f"Cache breakpoint follows {kind} content {h.expr_of(seg)} in the {where}: {cost}; "
                   f"the {tokens(static, 'static token')} before it are never shared")
        related = [Related(seg.span, "dynamic content here")] if seg.span is not None else []
        yield self.diagnostic(message, h.span_or(bp.span, layout.parts[pi].span, layout.site),
                              prompt=layout.id, related=related)


def _first_dynamic(layout: PromptLayout) -> tuple[Cut, Segment, str] | None:
    """The first segment whose change makes a later breakpoint useless: per-request content in a
    one-shot request (no history part) or before the history, per-conversation content in the
    tools / system / developer parts before the history. Unknown volatility is not evidence, nor
    is a date (it changes once a day: one write a day, docs/policies.md, Policy 1)."""
    history = next((i for i, p in enumerate(layout.parts) if p.is_history), None)
    for pi, si, part, seg in layout.segments():
        if history is not None and pi >= history:
            return None
        if seg.is_static:
            continue
        rate = rate_of(seg)
        if rate is Rate.REQUEST:
            return Cut(pi, si), seg, part.role
        if rate is Rate.CONVERSATION and part.role in _PREFIX_ROLES:
            return Cut(pi, si), seg, part.role
    return None
