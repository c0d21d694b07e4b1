"""Cacheable-prefix sizes and per-target estimates: tokens per provider and model.

The static prefix of a layout is its static text in request order up to the first dynamic segment
(volatile, or stable but of unknown text); chat-format tokens (role markers, message framing) are
not counted. Text is counted per run of adjacent static segments of a part (a whole message or
block list when it is all static). On APIs with explicit breakpoints the cached prefix ends at the last breakpoint that
sits inside the static prefix. OpenAI tokenizers are exact (tiktoken, offline); Anthropic, Gemini
and self-hosted models are estimated from the o200k count with the ratios in `RATIOS`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, NamedTuple

from . import tokens
from .marker_names import unplaced
from .model import Breakpoint, Kind, PromptLayout, Volatility
from .profiles import (DEFAULT_TARGETS, Profile, Target, UnknownTargetError, canonical_provider, lookup,
                       parse_target, profiles_of)

__all__ = [
    "RATIOS", "TOKENIZER_NAMES", "Cut", "Ratio", "breakpoint_cuts", "cached_tokens", "estimate", "is_exact", "prefix_stop",
    "size_profiles", "static_prefix_tokens", "static_tokens", "target_tokens", "targets_for",
    "texts_before", "token_range", "tokenizer_name", "tokens_before",
]


@dataclass(frozen=True)
class Ratio:
    """Target-tokenizer tokens per o200k token: a point estimate and a plausible range."""

    value: float
    low: float
    high: float
    basis: str


# Target tokens per o200k_base token. No offline tokenizer exists for these families.
RATIOS: dict[str, Ratio] = {
    # Claude 3.5 Sonnet vs GPT-4o used +16% tokens on English, +21% on math, +30% on Python
    # (VentureBeat, May 2025, secondary); "typically within 5-15%" (techcompare.app, secondary).
    # Anthropic publishes no tokenizer; the supported count is
    # https://platform.claude.com/docs/en/build-with-claude/token-counting
    "claude-legacy": Ratio(1.16, 1.05, 1.30, "Claude vs o200k +16% English, up to +30% code "
                           "(VentureBeat, May 2025; secondary)"),
    # The newer tokenizer gives "approximately 30 percent more tokens than on earlier models"
    # (https://platform.claude.com/docs/en/build-with-claude/token-counting, primary);
    # Opus 4.7 coverage 1.0-1.35x (secondary).
    # Combined with the legacy ratio this is an inference, UNCERTAIN.
    "claude-2026": Ratio(1.5, 1.05, 1.76, "legacy Claude ratio x1.3 for the newer tokenizer "
                         "(https://platform.claude.com/docs/en/build-with-claude/token-counting)"),
    # "a token is equivalent to about 4 characters" (https://ai.google.dev/gemini-api/docs/tokens),
    # close to o200k on English prose. Inference, UNCERTAIN.
    "gemma3": Ratio(1.0, 0.9, 1.2, "about 4 characters per token, as o200k "
                    "(https://ai.google.dev/gemini-api/docs/tokens)"),
    "gemma4": Ratio(1.0, 0.9, 1.2, "about 4 characters per token, as o200k "
                    "(https://ai.google.dev/gemini-api/docs/tokens)"),
}
# The tokenizers in words, for the people reading a report (the JSON `tokenizer` keeps the key).
TOKENIZER_NAMES = {"claude-legacy": "Claude 3-4.6", "claude-2026": "Claude 4.7+", "gemma3": "Gemma 3",
                   "gemma4": "Gemma 4", "served-model": "the served model's"}


def tokenizer_name(tokenizer: str | None) -> str:
    """'Claude 3-4.6' for the key 'claude-legacy' (an estimate row's `tokenizer`); a tiktoken
    encoding ('o200k_base') and any other key as they are."""
    return TOKENIZER_NAMES.get(tokenizer or "", tokenizer or "unknown")


_UNKNOWN_RATIO = Ratio(1.0, 0.8, 1.25, "tokenizer unknown: o200k count used as is")
# Tokenizers counted exactly, mapped to the encoding that counts them (o200k_harmony is o200k_base
# plus special tokens, which prompt text never contains as text).
_EXACT = {"o200k_base": "o200k_base", "cl100k_base": "cl100k_base", "o200k_harmony": "o200k_base"}
_BASE = "o200k_base"


class Cut(NamedTuple):
    """A point in request order: all parts before `part`, plus the first `count` segments of it."""

    part: int
    count: int


def prefix_stop(layout: PromptLayout) -> Cut:
    """Where the static prefix ends: just before the first dynamic segment (`kind` set, whatever
    its volatility, since a stable dynamic value has no known text), or after the last part."""
    for pi, si, _part, seg in layout.segments():
        if not seg.is_static:
            return Cut(pi, si)
    return Cut(len(layout.parts), 0)


def texts_before(layout: PromptLayout, cut: Cut) -> list[str]:
    """The static text before `cut`: one string per run of adjacent static segments of a part
    (a whole part when it is all static), empty runs dropped. Dynamic segments end a run."""
    texts = []
    for pi, part in enumerate(layout.parts[: cut.part + 1]):
        segs = part.segments if pi < cut.part else part.segments[: cut.count]
        run: list[str] = []
        for seg in [*segs, None]:
            if seg is not None and seg.is_static:
                run.append(seg.text)
            elif run:
                texts.append("".join(run))
                run = []
    return [t for t in texts if t]


def tokens_before(layout: PromptLayout, cut: Cut, encoding: str = _BASE) -> int:
    """Exact tokens (tiktoken `encoding`) of the static text before `cut`, summed over the runs of
    `texts_before`."""
    return sum(tokens.count(t, encoding) for t in texts_before(layout, cut))


def static_prefix_tokens(layout: PromptLayout) -> int:
    """o200k tokens of the static prefix (the JSON report's `static_prefix_tokens`)."""
    return tokens_before(layout, prefix_stop(layout))


def static_tokens(layout: PromptLayout) -> int:
    """o200k tokens of all static text of the layout, each run of adjacent static segments of a
    part counted as one text (the JSON report's `static_tokens`)."""
    return tokens_before(layout, Cut(len(layout.parts), 0))


def _unknown_at(layout: PromptLayout, stop: Cut) -> bool:
    """True when the static prefix stops at a segment of unknown kind and volatility (text read
    from elsewhere: it may be static), not at one known to change."""
    if stop.part >= len(layout.parts) or stop.count >= len(layout.parts[stop.part].segments):
        return False
    seg = layout.parts[stop.part].segments[stop.count]
    return seg.kind is Kind.UNKNOWN and seg.volatility is Volatility.UNKNOWN


def breakpoint_cuts(layout: PromptLayout) -> list[tuple[Cut, int, Breakpoint]]:
    """Every explicit breakpoint as (cut just after it, part index, breakpoint), in request order."""
    found = [(Cut(pi, bp.after + 1), pi, bp) for pi, part in enumerate(layout.parts) for bp in part.breakpoints]
    return sorted(found, key=lambda item: item[0])


def is_exact(profile: Profile) -> bool:
    """True when the profile's tokenizer is counted exactly (tiktoken), False for an estimate."""
    return profile.tokenizer in _EXACT


def _ratio(profile: Profile) -> Ratio:
    return RATIOS.get(profile.tokenizer, _UNKNOWN_RATIO)


def target_tokens(layout: PromptLayout, cut: Cut, profile: Profile) -> tuple[int, Ratio | None]:
    """Tokens of the static text before `cut` in the profile's tokenizer, and the ratio used:
    an exact tiktoken count (ratio None) or the o200k count times `RATIOS[tokenizer].value`."""
    encoding = _EXACT.get(profile.tokenizer)
    if encoding is not None:
        return tokens_before(layout, cut, encoding), None
    ratio = _ratio(profile)
    return round(tokens_before(layout, cut) * ratio.value), ratio


def token_range(layout: PromptLayout, cut: Cut, profile: Profile) -> tuple[int, int]:
    """(lowest, highest) plausible tokens before `cut` in the profile's tokenizer: one exact value
    for tiktoken families, the o200k count times the ratio's range otherwise. Size rules report
    "below the minimum" only when the highest value is below it, "at or above" only when the lowest is."""
    encoding = _EXACT.get(profile.tokenizer)
    if encoding is not None:
        n = tokens_before(layout, cut, encoding)
        return n, n
    ratio, base = _ratio(profile), tokens_before(layout, cut)
    return math.floor(base * ratio.low), math.ceil(base * ratio.high)


def cached_tokens(profile: Profile, prefix: int) -> int:
    """Tokens of a `prefix`-token cacheable prefix that the provider bills at the cached rate.

    Below the minimum nothing is cached. With an increment, OpenAI-style steps count from the
    minimum (1024, 1152, ...) and block engines keep full blocks only (vLLM: 16-token blocks);
    increment 0 or 1 caches exactly up to the breakpoint. Sources: OpenAI before GPT-5.6, 128-token
    increments (https://github.com/openai/openai-cookbook/blob/main/examples/Prompt_Caching_201.ipynb §1.1);
    GPT-5.6 and later, exact breakpoints "not rounded to a token block"
    (https://github.com/openai/openai-python/blob/main/src/openai/types/responses/response_input_text_param.py);
    vLLM, full 16-token blocks (https://github.com/vllm-project/vllm/blob/main/docs/design/prefix_caching.md).
    """
    if not profile.caching_supported or prefix <= 0:
        return 0
    minimum = profile.min_cacheable_tokens or 0
    if prefix < minimum:
        return 0
    step = profile.increment_tokens
    if step > 1:
        return minimum + (prefix - minimum) // step * step if minimum else prefix // step * step
    return prefix


def targets_for(layout: PromptLayout, configured: Iterable[Target] | None = None) -> list[Target]:
    """The targets to estimate a layout for: its own provider and model when the call site names
    a provider promptlint knows and its model is known statically; a known provider whose model is
    not (`model=self.model`): the `configured` targets (the `targets` setting, `--target`) of that
    provider, else the provider's default row (model None); no known provider: `configured`, else
    DEFAULT_TARGETS."""
    configured = list(configured or ())
    if layout.provider or layout.model:
        try:
            profile, _ = lookup(layout.provider, layout.model)
        except UnknownTargetError:
            pass
        else:
            if layout.model is None:
                same = [t for t in configured if _provider_of(t) == profile.provider]
                if same:
                    return same
            return [Target(profile.provider, layout.model)]
    return configured or list(DEFAULT_TARGETS)


def target_profiles(layout: PromptLayout) -> list[tuple[Profile, str | None]]:
    """(profile, model as given or None) per target the layout is estimated for, the same as
    `explain` shows: the targets of its estimates, else `targets_for`; a target no profile knows
    is left out."""
    pairs = [(e["provider"], e["model"]) for e in layout.estimates] or \
        [(t.provider, t.model) for t in targets_for(layout)]
    out = []
    for provider, model in pairs:
        try:
            out.append((lookup(provider, model)[0], model))
        except UnknownTargetError:
            continue
    return out


def _provider_of(target: Target) -> str | None:
    """The canonical provider of a configured target (None when it names no known provider)."""
    try:
        return lookup(target.provider, target.model)[0].provider
    except UnknownTargetError:
        return None


def size_profiles(layout: PromptLayout) -> tuple[list[Profile], str]:
    """Profiles a size rule must hold for, and a label for messages.

    A statically known model gives its one profile. Otherwise every row of the call's provider is
    a candidate (a finding must hold for all of them); a layout with cache breakpoints but no known
    provider is taken as Anthropic (`cache_control` is Anthropic's syntax). Empty when unknown.
    """
    try:
        profile, note = lookup(layout.provider, layout.model)
    except UnknownTargetError:
        if any(p.breakpoints for p in layout.parts) or layout.auto_cache is not None:
            rows = [p for p in profiles_of("anthropic") if p.caching_supported]
            return rows, "any Claude model"
        return [], ""
    if note is None:
        return [profile], layout.model or profile.models
    rows = [p for p in profiles_of(profile.provider) if p.caching_supported]
    return rows, f"any {profile.provider} model"


def _resolve(target: Target | str) -> Target:
    return parse_target(target) if isinstance(target, str) else target


def _estimate_one(layout: PromptLayout, target: Target) -> dict:
    profile, note = lookup(target.provider, target.model)
    notes = [note] if note else []
    stop = prefix_stop(layout)
    cuts = breakpoint_cuts(layout)
    inside = [c for c in cuts if c[0] <= stop]
    ttl = None
    cut: Cut | None = stop
    own_call = canonical_provider(layout.provider) == profile.provider
    if profile.max_breakpoints > 0 and inside and layout.auto_cache is None:
        cut, ttl = inside[-1][0], inside[-1][2].ttl
    elif profile.opt_in and layout.auto_cache is None:
        if cuts:
            cut = None
            if _unknown_at(layout, stop):  # (a system prompt read from elsewhere, then a breakpoint)
                notes.append("the cache breakpoints close content of unknown origin: what they cache is not known")
            else:
                notes.append("no cache breakpoint closes static text: nothing is cached")
        elif own_call:
            cut = None
            if layout.unplaced_markers or layout.unread_options or layout.open_options:
                # the code may set one where the layout does not show it: say what is known
                where = unplaced(layout)
                notes.append(f"no cache breakpoint placed ({where}): without one nothing is cached on this opt-in API")
            else:
                notes.append("no cache breakpoint: nothing is cached on this opt-in API")
        else:
            notes.append("assuming a cache breakpoint at the end of the static prefix")
    prefix = target_tokens(layout, cut, profile)[0] if cut is not None else 0
    exact = profile.tokenizer in _EXACT
    if not exact:
        notes.append(f"estimated as {_ratio(profile).value:g} x the o200k count")
    if not profile.caching_supported:
        notes.append(f"{profile.no_caching} for this model family")
    elif profile.min_cacheable_tokens is None and profile.increment_tokens <= 1:
        notes.append("minimum cacheable length not documented")
    return {
        "provider": profile.provider,
        "model": target.model,
        "tokenizer": profile.tokenizer,
        "exact": exact,
        "prefix_tokens": prefix,
        "min_cacheable_tokens": profile.min_cacheable_tokens,
        "cached_tokens": cached_tokens(profile, prefix),
        "read_price_multiplier": profile.read_price_multiplier,
        "write_price_multiplier": profile.write_multiplier(ttl),
        "note": "; ".join(notes) or None,
    }


def estimate(layout: PromptLayout, targets: Iterable[Target | str] | None = None) -> list[dict]:
    """One estimate per target, each with exactly the fields of the JSON report's `estimates`:
    provider, model, tokenizer (a key: a tiktoken encoding such as "o200k_base" when `exact`, else
    "claude-legacy", "claude-2026", "gemma3", ...; `tokenizer_name` says it in words), exact, prefix_tokens, min_cacheable_tokens, cached_tokens (tokens
    billed at the cached rate after the provider's rounding), read_price_multiplier,
    write_price_multiplier (for the TTL of the breakpoint that closes the prefix), note.

    `targets` are Target tuples or "provider:model" strings; None means `targets_for(layout)`.
    A target whose provider is unknown raises UnknownTargetError; a bad string, ValueError.
    """
    chosen = [_resolve(t) for t in targets] if targets is not None else targets_for(layout)
    return [_estimate_one(layout, t) for t in chosen]
