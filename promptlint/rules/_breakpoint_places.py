"""Where PRM302 places a missing cache breakpoint and how it phrases the fix: the part of a
request a helper builds (`built_elsewhere`, `builder`), the end of the static prefix
(`end_of_prefix`), whether a `**mapping` may hold a top-level marker (`opaque`), and the
API-specific advice (`fix_phrase`, `legacy_phrase`). Pure functions of a `PromptLayout`."""
from __future__ import annotations

from ..estimates import Cut
from ..marker_names import blocks_only
from ..model import PromptLayout, Span

def opaque(layout: PromptLayout) -> bool:
    """True when the call passes a `**mapping` of unknown keys that may hold a top-level
    `cache_control`: any but the sending function's own `**kwargs` or the options its instance is
    built with (`options_forwarded`) or a
    request mapping it takes whole from its callers (`converted` "request") in a
    package tree where no file names a breakpoint key (`tree_markers`), whose callers there write
    no such key."""
    forwarded = layout.options_forwarded or any(k == "request" for k, _ in layout.converted)
    return layout.unread_options and ((layout.tree_markers and not layout.others_markers) or not forwarded)


def built_elsewhere(layout: PromptLayout) -> Span | None:
    """Where the only message of a one-message request is written, when a helper the send call
    calls writes it (`client.messages.create(**self._create_kwargs(content))`, with `messages=[{"role":
    "user", "content": content}]` in `_create_kwargs`: a function of `layout.reaches` that does
    not hold the call): the place the request is built, one root cause for every send call that
    uses it (a retry, an async twin). None when the sending function writes it itself."""
    messages = [p for p in layout.parts if p.role != "tools"]
    if len(messages) != 1 or messages[0].span is None:
        return None
    span = messages[0].span
    return span if any(within(span, f) and not within(layout.site, f) for f in layout.reaches) else None


def builder(layout: PromptLayout) -> Span | None:
    """Where a helper puts the converted prompt into the request (`kwargs = self._build_kwargs(messages)`,
    with `kwargs["system"] = system` in `_build_kwargs`): the span of the first part of the prompt
    (not the tools) written in a function of `layout.reaches` that does not hold the call; None
    when the sending function writes them."""
    for part in layout.parts:
        if part.role == "tools" or part.span is None:
            continue
        span = part.span
        if any(within(span, f) and not within(layout.site, f) for f in layout.reaches):
            return span
    return None


def within(inner: Span, outer: Span) -> bool:
    return inner.filename == outer.filename and outer.start <= inner.start and inner.end <= outer.end


def legacy_phrase(layout: PromptLayout) -> str:
    """What a breakpoint needs first on Anthropic's legacy Text Completions API (api "completions"):
    it takes none, the Messages API does; "" on any other API."""
    return " (the legacy Text Completions API takes no breakpoint: send it to the Messages API with one)" \
        if layout.api == "completions" else ""


def fix_phrase(layout: PromptLayout) -> str:
    """How to cache a re-sent conversation on the layout's API: Bedrock Converse takes
    `cachePoint` blocks (no top-level marker), Claude's Messages API on Bedrock `cache_control` on
    blocks (`marker_names.blocks_only`), elsewhere a top-level `cache_control`, the
    legacy Text Completions API none (the Messages API first)."""
    if layout.api == "completions":
        return ("the legacy Text Completions API takes no breakpoint: sent to the Messages API with a top-level "
                "`cache_control` (automatic caching), it would be cached")
    if (layout.api or "").startswith("converse"):
        return "a `cachePoint` block after the system prompt and one after the last message would cache it"
    if blocks_only(layout):
        return "a `cache_control` on the last block of the last message would cache it"
    return "a top-level `cache_control` (automatic caching) or a breakpoint on the last message would cache it"


def end_of_prefix(layout: PromptLayout, stop: Cut):
    """Where the breakpoint belongs: the argument or message holding the last static text before
    `stop` (its part's span), else that text's own span, else the call."""
    last = None
    for pi, si, part, seg in layout.segments():
        if Cut(pi, si) >= stop:
            break
        if seg.text.strip():
            last = part.span or seg.span or last
    return last or layout.site
