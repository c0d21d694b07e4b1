"""Shared helpers of the cache-size and breakpoint rules PRM301-PRM306."""
from __future__ import annotations

from ..estimates import Cut, target_tokens, token_range
from ..model import PromptLayout, Segment, Span
from ..prefix import ROLE_NAMES, tokens
from ..profiles import Profile
from ._prefix_rule import describe

__all__ = ["ROLE_NAMES", "at_or_above_all", "below_all", "expr_of", "minimums", "span_or", "tokens_text"]


def tokens_text(layout: PromptLayout, cut: Cut, profile: Profile) -> str:
    """'1,024 tokens' for an exact count, 'about 1,100 tokens' for an estimate (the point estimate
    of `estimates.target_tokens`)."""
    n, ratio = target_tokens(layout, cut, profile)
    return tokens(n) if ratio is None or n == 0 else f"about {tokens(n)}"


def minimums(profiles: list[Profile]) -> list[Profile]:
    """The profiles with a documented minimum cacheable length."""
    return [p for p in profiles if p.caching_supported and p.min_cacheable_tokens is not None]


def below_all(layout: PromptLayout, cut: Cut, profiles: list[Profile]) -> Profile | None:
    """The profile with the smallest minimum when the static text before `cut` is certainly below
    the minimum of every profile (its highest plausible count is below each minimum), else None."""
    rows = minimums(profiles)
    if not rows or any(token_range(layout, cut, p)[1] >= p.min_cacheable_tokens for p in rows):
        return None
    return min(rows, key=lambda p: p.min_cacheable_tokens)


def at_or_above_all(layout: PromptLayout, cut: Cut, profiles: list[Profile]) -> Profile | None:
    """The profile with the largest minimum when the static text before `cut` certainly reaches
    the minimum of every profile (its lowest plausible count is at or above each), else None."""
    rows = minimums(profiles)
    if not rows or any(token_range(layout, cut, p)[0] < p.min_cacheable_tokens for p in rows):
        return None
    return max(rows, key=lambda p: p.min_cacheable_tokens)


def expr_of(seg: Segment) -> str:
    """The segment for messages: its source expression in backticks, shortened to 60 characters,
    or words for a value the extraction has no source text for ("a value")."""
    if seg.is_static:
        expr = " ".join(seg.text.split())
        return f"`{expr if len(expr) <= 60 else expr[:57] + '...'}`"
    return describe(seg)


def span_or(*spans: Span | None) -> Span:
    """The first span given that is not None."""
    return next(s for s in spans if s is not None)
