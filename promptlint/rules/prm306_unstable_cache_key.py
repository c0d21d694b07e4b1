"""PRM306 unstable-cache-key: a cache-routing key that changes on every request."""
from __future__ import annotations

import re
from typing import Iterable

from ..model import Diagnostic, Kind, PromptLayout, Related, Severity, Volatility
from . import _cache_rule as h
from .base import Rule

# Request options that route requests to a cache: OpenAI, xAI and Mistral `prompt_cache_key`, xAI's
# `x-grok-conv-id` header. Sources: https://developers.openai.com/api/docs/guides/prompt-caching,
# https://docs.x.ai/developers/advanced-api-usage/prompt-caching/maximizing-cache-hits,
# https://docs.mistral.ai/studio-api/conversations/advanced/prompt-caching.
CACHE_KEY_OPTIONS = ("prompt_cache_key", "x-grok-conv-id")


_SLICE = re.compile(r"\[[^\[\]]*:[^\[\]]*\]$")


def _how_it_changes(seg) -> str:
    """What makes the key change, in the words of its source: a slice or a value of the user's
    message changes with each message (requests that start alike still share a key), a time with
    the clock, anything else (a uuid, a random number) on every request."""
    if seg.kind is Kind.USER_INPUT:
        what = "a truncation of" if _SLICE.search(seg.expr.strip()) else "taken from"
        noun = "question" if "question" in seg.expr.lower() else "message"
        return (f"{what} the user's {noun}: it changes with each {noun}, so requests that share a prefix "
                "seldom share a cache")
    if seg.kind is Kind.TIMESTAMP:
        return "a time: it changes with the clock, so requests that share a prefix seldom share a cache"
    return "new on every request: requests that share a prefix never share a cache"


class UnstableCacheKeyRule(Rule):
    """## What it does
    Finds a cache-routing key (OpenAI `prompt_cache_key`, xAI's `x-grok-conv-id` header) whose
    value changes on every request: a fresh `uuid4()`, a random number, a timestamp. A key derived
    from a conversation, user or account id is fine.

    ## Why is this bad?
    The key is combined with a hash of the prompt's start to pick the machine that holds the
    cache (source: https://developers.openai.com/api/docs/guides/prompt-caching).
    A new key per request sends identical prefixes to different machines,
    so hits become rare although the prompt bytes never change.

    ## Example
    ```python
    client.responses.create(model="gpt-5-mini", instructions=INSTRUCTIONS, input=items,
                            prompt_cache_key=str(uuid.uuid4()))
    ```
    Use instead: a key that is stable for the traffic that shares a prefix, such as a hash of the
    account id and model, or the conversation id.

    ## Fix safety
    No fix: the right granularity of the key is a design choice.
    """

    code = "PRM306"
    brief = "a `prompt_cache_key` that changes on every request"
    severity = Severity.ERROR
    fix_availability = "none"

    def check_layout(self, layout: PromptLayout) -> Iterable[Diagnostic]:
        for key in CACHE_KEY_OPTIONS:
            seg = layout.options.get(key)
            if seg is None or seg.is_static or seg.volatility is not Volatility.PER_REQUEST:
                continue
            evidence = f"; only {seg.evidence} suggests it" if seg.name_only and seg.evidence else ""
            message = f"`{key}` is {h.expr_of(seg)}, {_how_it_changes(seg)}{evidence}"
            related = [Related(seg.origin, "value produced here")] \
                if seg.origin and (seg.span is None or not seg.span.contains(seg.origin)) else []
            yield self.diagnostic(message, h.span_or(seg.span, layout.site), prompt=layout.id, related=related,
                                  severity=Severity.WARNING if seg.name_only else None, name_only=seg.name_only)
