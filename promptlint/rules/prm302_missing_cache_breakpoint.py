"""PRM302 missing-cache-breakpoint: an opt-in cache API with a long static prefix and no marker."""
from __future__ import annotations

from typing import Iterable

from ..estimates import Cut, breakpoint_cuts, prefix_stop, size_profiles
from ..model import Diagnostic, PromptLayout
from . import _cache_rule as h
from .base import Rule


class MissingCacheBreakpointRule(Rule):
    """## What it does
    Finds a call to an API that caches only where the client asks (Anthropic Messages, Claude
    and Nova on Bedrock) whose static prefix (tools, system prompt, ...) is known to reach the
    model's minimum cacheable length, with no cache breakpoint anywhere: no `cache_control` on a
    block and no top-level automatic `cache_control`.

    ## Why is this bad?
    On these APIs nothing is cached without a breakpoint. Every request pays the full input price
    for the same static text; a breakpoint at its end makes later requests read it at about a
    tenth of the price (writes cost 1.25x once per TTL; source:
    https://platform.claude.com/docs/en/build-with-claude/prompt-caching).

    ## Example
    ```python
    client.messages.create(model="claude-sonnet-4-5", max_tokens=1024, system=LONG_POLICY,
                           messages=[{"role": "user", "content": question}])
    ```
    Use instead:
    ```python
    client.messages.create(
        model="claude-sonnet-4-5", max_tokens=1024,
        system=[{"type": "text", "text": LONG_POLICY, "cache_control": {"type": "ephemeral"}}],
        messages=[{"role": "user", "content": question}],
    )
    ```

    ## Fix safety
    Not offered yet. Adding a breakpoint changes billing (a write costs more than plain input),
    so such a fix would be unsafe.
    """

    code = "PRM302"
    fix_availability = "none"
    fix_title = "Add `cache_control` at the end of the static prefix"

    def check_layout(self, layout: PromptLayout) -> Iterable[Diagnostic]:
        if not layout.provider or breakpoint_cuts(layout) or layout.auto_cache is not None:
            return
        profiles, label = size_profiles(layout)
        if not profiles or not all(p.opt_in for p in profiles):
            return
        stop = prefix_stop(layout)
        if stop == Cut(0, 0):
            return
        found = h.at_or_above_all(layout, stop, profiles)
        if found is None:
            return
        minimum = found.min_cacheable_tokens
        message = (f"Static prefix of {h.tokens_text(layout, stop, found)} reaches the {minimum:,}-token minimum of "
                   f"{label} but has no cache breakpoint: it is never cached")
        yield self.diagnostic(message, _end_of_prefix(layout, stop), prompt=layout.id)


def _end_of_prefix(layout: PromptLayout, stop: Cut):
    """Where the breakpoint belongs: the argument or message holding the last static text before
    `stop` (its part's span), else that text's own span, else the call."""
    last = None
    for pi, si, part, seg in layout.segments():
        if Cut(pi, si) >= stop:
            break
        if seg.text.strip():
            last = part.span or seg.span or last
    return last or layout.site
