"""PRM303 breakpoint-below-minimum: a cache breakpoint whose prefix can never be cached."""
from __future__ import annotations

from typing import Iterable

from ..estimates import breakpoint_cuts, prefix_stop, size_profiles
from ..model import Diagnostic, PromptLayout
from . import _cache_rule as h
from .base import Rule


class BreakpointBelowMinimumRule(Rule):
    """## What it does
    Finds a cache breakpoint (Anthropic `cache_control`, OpenAI `prompt_cache_breakpoint`) whose
    prefix, everything from the tools through the marked block, is known statically to be shorter
    than the model's minimum cacheable length. When dynamic content of unknown size (a tool list
    loaded at run time, a user message) comes before the breakpoint, nothing is reported.

    ## Why is this bad?
    Below the minimum the provider silently skips the write: no error, just
    `cache_creation_input_tokens: 0` on every request. Minimums differ per model: Claude Sonnet 4.5
    1,024 tokens, Claude Haiku 3.5 2,048, Claude Haiku 4.5 4,096 (source: Anthropic's claude-api
    skill, https://github.com/anthropics/skills/blob/fc9191c88d37ca81ae89ce74c6b4fe3e6396f9f2/skills/claude-api/shared/prompt-caching.md),
    so a marker that works on one model does nothing on another.

    ## Example
    ```python
    client.messages.create(
        model="claude-3-5-haiku-20241022", max_tokens=512,
        system=[{"type": "text", "text": "You are a terse assistant.", "cache_control": {"type": "ephemeral"}}],
        messages=messages,
    )
    ```
    Use instead: move the breakpoint to close a prefix of at least the minimum (after shared
    reference material), or remove it.

    ## Fix safety
    No fix: whether to grow the prefix or drop the marker is the author's choice.
    """

    code = "PRM303"
    brief = "a cache breakpoint that closes too few tokens to ever cache"
    fix_availability = "none"

    def check_layout(self, layout: PromptLayout) -> Iterable[Diagnostic]:
        cuts = breakpoint_cuts(layout)
        if not cuts:
            return
        profiles, label = size_profiles(layout)
        stop = prefix_stop(layout)
        for i, (cut, pi, bp) in enumerate(cuts):
            if cut > stop:
                break  # dynamic content before this breakpoint: its size is not known statically
            found = h.below_all(layout, cut, profiles)
            if found is None:
                continue
            if any(h.at_or_above_all(layout, later, profiles) for later, _, _ in cuts[i + 1:] if later <= stop):
                continue  # a later breakpoint caches this prefix anyway: no cached token is lost
            minimum = found.min_cacheable_tokens
            where = h.ROLE_NAMES.get(layout.parts[pi].role, layout.parts[pi].role)
            if len(profiles) == 1:
                message = (f"Cache breakpoint in the {where} closes {h.tokens_text(layout, cut, found)}, below the "
                           f"{minimum:,}-token minimum of {label}: it never caches")
            else:  # the model is not known: below the smallest minimum, so below every model's
                message = (f"Cache breakpoint in the {where} closes {h.tokens_text(layout, cut, found)}, below "
                           f"{minimum:,} tokens, the smallest minimum of {label}: it never caches, whichever "
                           "model it is")
            yield self.diagnostic(message, h.span_or(bp.span, layout.parts[pi].span, layout.site), prompt=layout.id)
