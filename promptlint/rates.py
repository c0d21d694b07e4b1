"""How often a prompt segment's text changes (`Rate`), and how two rates compare.

A segment's rate is read from its facts (kind, volatility, timestamp precision: docs/policies.md,
Policy 1); `blocks` and `stops` compare an earlier or later segment's rate with one segment's, for
the one-root-cause rule (Policy 8) of `impact.py`. No units: rates are ordered by `RANK`
(higher = changes more often).
"""
from __future__ import annotations

from enum import Enum

from .model import Kind, Precision, Volatility


class Rate(Enum):
    """How often a segment's text changes, in words a message can use."""

    REQUEST = "changes on every request"
    CONVERSATION = "differs per conversation"
    DAY = "changes once a day"
    PROCESS = "is fixed when its module is imported"
    MONTH = "changes once a month"
    UNKNOWN = "of unknown volatility"
    CONDITION = "present or absent by a condition"


RANK = {Rate.REQUEST: 4, Rate.CONVERSATION: 3, Rate.DAY: 2, Rate.PROCESS: 2, Rate.MONTH: 1}
RARE = (Rate.DAY, Rate.PROCESS, Rate.MONTH)


def rate_of(seg) -> Rate | None:
    """How often `seg`'s text changes; None for static text, stable values, the history and
    year-precision timestamps (they never cost a cache write worth a finding)."""
    if seg.is_static or seg.kind is Kind.HISTORY or seg.volatility is Volatility.STABLE:
        return None
    if seg.kind is Kind.CONDITIONAL:
        return Rate.CONDITION
    if seg.volatility is Volatility.PER_PROCESS:
        return Rate.PROCESS
    if seg.kind is Kind.TIMESTAMP:
        if seg.precision is Precision.YEAR:
            return None
        if seg.precision is Precision.MONTH:
            return Rate.MONTH
        if seg.precision is Precision.DAY:
            return Rate.DAY
    return {Volatility.PER_REQUEST: Rate.REQUEST, Volatility.PER_CONVERSATION: Rate.CONVERSATION,
            Volatility.PER_DAY: Rate.DAY}.get(seg.volatility, Rate.UNKNOWN)


def blocks(earlier: Rate | None, rate: Rate) -> bool:
    """True when an earlier segment of rate `earlier` already causes what a segment of `rate` would
    (the same root cause, Policy 8)."""
    if earlier is None:
        return False
    if rate is Rate.UNKNOWN:
        return earlier in (Rate.REQUEST, Rate.UNKNOWN)
    if rate is Rate.CONDITION:
        return earlier in (Rate.REQUEST, Rate.CONDITION)
    return earlier in RANK and RANK[earlier] >= RANK[rate]


def stops(later: Rate | None, rate: Rate) -> bool:
    """True when a later segment of rate `later` ends what moving a segment of `rate` would gain."""
    if later is None or later not in RANK:
        return False
    if rate in RANK:
        return RANK[later] > RANK[rate]
    return RANK[later] >= RANK[Rate.CONVERSATION] if rate is Rate.CONDITION else later is Rate.REQUEST
