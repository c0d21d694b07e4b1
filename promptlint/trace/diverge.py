"""The first divergence between two requests, and what it costs in cached tokens.

Two requests are compared unit by unit in cache order; the first unit whose role, kind or
text differs is where the prefix diverges, at the length of the texts' common prefix. What it
costs is read from the previous request: the tokens it could have left in the cache for the
current one (its whole text within a conversation, its head across conversations), minus the
tokens the current one can still read. Opt-in caching (Anthropic) reads only up to cache
breakpoints: the last breakpoint inside the reusable part against the last one before the
divergence. The provider's minimum and rounding apply (`estimates.cached_tokens`).
"""
from __future__ import annotations

from typing import NamedTuple

from ..estimates import cached_tokens
from ..profiles import Profile
from .counting import Tokenizer
from .model import Request

__all__ = ["Cost", "Point", "common_prefix", "cost", "first_divergence", "message_lcp"]


class Point(NamedTuple):
    """A divergence: unit index (the same in both requests) and characters into its text."""

    unit: int
    offset: int


class Cost(NamedTuple):
    """Base-encoding tokens before the divergence (`offset`); profile tokens the previous request
    could have shared (`ideal`) and can still share (`kept`), and the cached tokens lost."""

    offset: int
    ideal: int
    kept: int
    cached_lost: int

    @property
    def prefix_lost(self) -> int:
        return max(0, self.ideal - self.kept)


def common_prefix(a: str, b: str) -> int:
    """Length of the longest common prefix of two strings (binary search over C comparisons)."""
    lo, hi = 0, min(len(a), len(b))
    if a[:hi] == b[:hi]:
        return hi
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def first_divergence(prev: Request, cur: Request, limit: int | None = None) -> Point | None:
    """Where `cur` stops repeating the first `limit` units of `prev` (default: all of them);
    None when it repeats them all (append-only)."""
    limit = len(prev.units) if limit is None else min(limit, len(prev.units))
    for i in range(limit):
        if i >= len(cur.units):
            return Point(i, 0)
        a, b = prev.units[i], cur.units[i]
        if a.key != b.key:
            if a.kind != b.kind or a.role != b.role:
                return Point(i, 0)
            return Point(i, common_prefix(a.text, b.text))
    return None


def message_lcp(a: Request, b: Request) -> int:
    """Number of leading conversation-message units two requests share."""
    n = 0
    for x, y in zip(a.units[a.head:], b.units[b.head:]):
        if x.key != y.key:
            break
        n += 1
    return n


def _tokens_to(req: Request, units: int, tok: Tokenizer) -> int:
    return sum(tok.count(u.text) for u in req.units[:units])


def cost(prev: Request, point: Point, region: int, tok: Tokenizer, profile: Profile | None) -> Cost:
    """What diverging at `point` costs when `prev`'s first `region` units were reusable."""
    offset = _tokens_to(prev, point.unit, tok)
    if point.unit < len(prev.units):
        offset += tok.count(prev.units[point.unit].text, point.offset)
    if profile is not None and profile.opt_in:
        marks = [i + 1 for i, u in enumerate(prev.units[:region]) if u.breakpoint]
        if prev.auto_cache and region == len(prev.units):
            marks.append(region)
        ideal_end = marks[-1] if marks else 0
        kept_end = max((m for m in marks if m <= point.unit), default=0)
        ideal = tok.scale(_tokens_to(prev, ideal_end, tok))
        kept = tok.scale(_tokens_to(prev, kept_end, tok))
    else:
        ideal = tok.scale(_tokens_to(prev, region, tok))
        kept = min(tok.scale(offset), ideal)
    lost = cached_tokens(profile, ideal) - cached_tokens(profile, kept) if profile is not None else 0
    return Cost(offset, ideal, kept, max(0, lost))
