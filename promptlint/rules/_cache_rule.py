"""Shared helpers of the cache-size and breakpoint rules PRM301-PRM306."""
from __future__ import annotations

from ..estimates import Cut, token_range
from ..model import PromptLayout, Segment, Span
from ..profiles import Profile

ROLE_NAMES = {"system": "system prompt", "developer": "developer message", "tools": "tool definitions",
              "user": "user message", "assistant": "assistant message", "tool": "tool result",
              "history": "conversation history"}


def tokens_text(low: int, high: int) -> str:
    """'1,024 tokens' when exact, 'about 1,100 tokens' (the middle of the range) otherwise."""
    if low == high:
        return f"{low:,} tokens"
    return f"about {(low + high) // 2:,} tokens"


def minimums(profiles: list[Profile]) -> list[Profile]:
    """The profiles with a documented minimum cacheable length."""
    return [p for p in profiles if p.caching_supported and p.min_cacheable_tokens is not None]


def below_all(layout: PromptLayout, cut: Cut, profiles: list[Profile]) -> tuple[int, int, int] | None:
    """(low, high, minimum) when the static text before `cut` is certainly below the minimum of
    every profile (the highest plausible count is below each minimum), else None. `minimum` is
    the smallest minimum; low/high are for the profile with that minimum."""
    rows = minimums(profiles)
    if not rows:
        return None
    result = None
    for p in rows:
        low, high = token_range(layout, cut, p)
        if high >= p.min_cacheable_tokens:
            return None
        if result is None or p.min_cacheable_tokens < result[2]:
            result = (low, high, p.min_cacheable_tokens)
    return result


def at_or_above_all(layout: PromptLayout, cut: Cut, profiles: list[Profile]) -> tuple[int, int, int] | None:
    """(low, high, minimum) when the static text before `cut` certainly reaches the minimum of
    every profile (the lowest plausible count is at or above each minimum), else None."""
    rows = minimums(profiles)
    if not rows:
        return None
    result = None
    for p in rows:
        low, high = token_range(layout, cut, p)
        if low < p.min_cacheable_tokens:
            return None
        if result is None or p.min_cacheable_tokens > result[2]:
            result = (low, high, p.min_cacheable_tokens)
    return result


def expr_of(seg: Segment) -> str:
    """The segment's source expression, shortened to 60 characters, for messages."""
    if seg.is_static:
        raw = seg.text
    else:
        raw = seg.expr or seg.evidence or seg.kind.value
    expr = " ".join(raw.split())
    return expr if len(expr) <= 60 else expr[:57] + "..."


def span_or(*spans: Span | None) -> Span:
    """The first span given that is not None."""
    return next(s for s in spans if s is not None)
