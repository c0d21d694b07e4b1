"""PRM305 breakpoint-after-dynamic-content: the breakpoint meant to close the static prefix
sits after content that changes per request or per conversation."""
from __future__ import annotations

from typing import Iterable

from ..estimates import Cut, breakpoint_cuts, tokens_before
from ..impact import Rate, rate_of
from ..model import Diagnostic, PromptLayout, Related, Segment, Severity
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

    Also, as info: a Gemini context cache made on the request path (a function that sets the
    request's `cached_content` and calls `caches.create`, or a function of the module that does)
    over a head slice of the request's contents (`contents[:length]`, the conversation up to its
    last breakpoint): a cache cannot be extended, so each turn that moves the cut writes the
    whole conversation so far into a new cache, and the previous one is not read again. With no
    `caches.update` in the module, the message adds that a cache is never kept alive by its reads
    (made again a TTL after it was made), and one made on every call with nothing looked up first
    that each request makes a new cache; each alone is reported too (python/context_caches.py).

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

    def check_module(self, module) -> Iterable[Diagnostic]:
        """Info at a Gemini context cache made for the request sent (`python/context_caches.py`)."""
        for cache in module.facts.get("context_caches", ()):
            said = []
            if cache.every_call:
                said.append("nothing looks for an existing cache first, so every request makes a new one: each "
                            "request pays the cache write and its storage for a cache that is read once")
            if cache.cut is not None:
                said.append(f"it holds the request's contents up to a cut (`{cache.cut}`), and a cache cannot be "
                            "extended: each turn that moves the cut (a conversation growing, a breakpoint on its "
                            "newest message) writes the whole conversation so far into a new cache, billed and "
                            "stored again, and the previous turn's cache is never read again")
            if not cache.updated and not cache.every_call:
                said.append("no `caches.update` extends a cache that is read: it expires a TTL after it was "
                            "made however often it is used, and steady traffic on a prefix that does not move "
                            "writes it again every TTL")
            if not said:
                continue
            message = (f"A Gemini context cache is made here, on the request path of `{cache.function}`: "
                       + "; and ".join(said) + " (how often this runs is not followed here: how much it costs is "
                       "not known); cache only what stays fixed (system instruction, tools, documents) and "
                       "extend the cache's TTL when it is read")
            yield self.diagnostic(message, module.span(cache.call), severity=Severity.INFO,
                                  advice="Cache only the fixed part, look the cache up first, and extend its TTL")

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
