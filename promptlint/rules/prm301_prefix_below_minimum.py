"""PRM301 prefix-below-minimum: automatic caching that can never start for this prompt."""
from __future__ import annotations

from typing import Iterable

from ..estimates import Cut, breakpoint_cuts, prefix_stop, size_profiles, tokens_before
from ..impact import Rate, rate_of
from ..model import Diagnostic, PromptLayout, Severity
from ..prefix import placed_segments, prefix_end
from . import _cache_rule as h
from .base import Rule

# Request options that ask for caching explicitly on automatic-caching APIs.
_EXPLICIT_OPTIONS = ("prompt_cache_key", "prompt_cache_retention", "prompt_cache_options")


class PrefixBelowMinimumRule(Rule):
    """## What it does
    Reports a prompt on an automatic-caching API (OpenAI, Gemini, ...) whose static prefix is
    shorter than the model's minimum cacheable length, when what follows the prefix changes on
    every request (or nothing follows), so the prefix can never grow past the minimum. Only sizes
    known statically are reported. Info by default; a warning when the call asks for caching
    explicitly (Anthropic's top-level `cache_control`, OpenAI `prompt_cache_key`). Not reported
    for an adapter that sends the prompt (or the message list) its callers pass whole (`def
    generate(self, prompt): ... messages=[{"role": "user", "content": prompt}]`): that parameter
    carries its callers' prompts, long static templates included, so the few tokens before it
    (a schema, tools) say nothing about what is cached. Nor for a fixed request of a few words
    (fewer than 32 tokens, nothing in it changes: `"hi"` with `max_tokens=1`, a warm-up or a health
    check) when nothing asks for caching: it is no prompt whose caching anyone plans.

    ## Why is this bad?
    Providers cache nothing below the minimum (OpenAI 1,024 tokens, Gemini 2.5 2,048, Gemini 3.x
    4,096; sources: https://developers.openai.com/api/docs/guides/prompt-caching,
    https://ai.google.dev/gemini-api/docs/caching) and say nothing about it: `cached_tokens` just stays 0. That is fine for a
    short prompt nobody expects to cache; it matters when caching is part of the cost plan.

    ## Example
    ```python
    client.chat.completions.create(
        model="gpt-4.1",
        messages=[{"role": "system", "content": "Answer briefly."}, {"role": "user", "content": question}],
        prompt_cache_key="faq",
    )
    ```
    Use instead: share a longer static prefix (instructions, reference material, examples)
    across requests, or drop the caching options.

    ## Fix safety
    No fix: only the author can decide whether the prompt should be longer.
    """

    code = "PRM301"
    brief = "a static prefix shorter than the model's minimum cacheable length"
    severity = Severity.INFO
    fix_availability = "none"

    def check_layout(self, layout: PromptLayout) -> Iterable[Diagnostic]:
        if not layout.provider or breakpoint_cuts(layout):
            return
        profiles, label = size_profiles(layout)
        explicit = layout.auto_cache is not None or any(k in layout.options for k in _EXPLICIT_OPTIONS)
        if not profiles or not all(p.automatic or explicit for p in profiles):
            return
        if layout.passes_prompt:
            return  # an adapter: the prompt is its callers' (their templates), of unknown length
        stop = prefix_stop(layout)
        if stop == Cut(0, 0) or not _prefix_is_final(layout, stop):
            return
        if any(not part.segments for part in layout.parts) or not tokens_before(layout, stop):
            return  # a part whose content is not known (an empty part), or no static text: size unknown
        if not explicit and _probe(layout):
            return
        found = h.below_all(layout, stop, profiles)
        if found is None:
            return
        minimum = found.min_cacheable_tokens
        if len(profiles) == 1:
            message = (f"Static prefix of {h.tokens_text(layout, stop, found)} is below the {minimum:,}-token minimum "
                       f"of {label}: nothing of this prompt is cached")
        else:  # the model is not known: below the smallest minimum, so below every model's
            message = (f"Static prefix of {h.tokens_text(layout, stop, found)} is below {minimum:,} tokens, the "
                       f"smallest minimum of {label}: nothing of this prompt is cached, whichever model it is")
        yield self.diagnostic(message, layout.site, prompt=layout.id,
                              severity=Severity.WARNING if explicit else Severity.INFO)


#: o200k tokens: a request whose whole text is fixed and shorter than this is a probe (INFO_STATIC_AFTER).
PROBE_TOKENS = 32


def _probe(layout: PromptLayout) -> bool:
    """True for a request whose whole text is fixed and a few words long (`messages=[{"role":
    "user", "content": "hi"}]`, `max_tokens=1`: a warm-up, a health check, a usage test): the same
    bytes on every call, too short for any cache to save something; no prompt of the application
    is kept from being cached."""
    segs = [seg for _, _, _, seg in layout.segments()]
    return all(seg.is_static for seg in segs) and tokens_before(layout, Cut(len(layout.parts), 0)) < PROBE_TOKENS


def _prefix_is_final(layout: PromptLayout, stop: Cut) -> bool:
    """True when the cacheable prefix cannot extend past `stop`, so that size alone is the cause:
    the request ends there, or the value there changes on every request and nothing worth caching
    (static text, the history) follows it in the prefix a later request shares. Stable,
    per-conversation, per-day or unknown content may repeat between requests; a value followed by
    static text is the cause itself (PRM101-PRM103 report it, with what it costs)."""
    if stop >= prefix_end(layout):
        return True
    seg = layout.parts[stop.part].segments[stop.count]
    if rate_of(seg) is not Rate.REQUEST:
        return False
    placed = next((p for p in placed_segments(layout) if p.cut == stop), None)
    return placed is not None and not placed.followed
