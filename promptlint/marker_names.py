"""How a request's API marks a cache breakpoint, in the words of findings and help lines.

Anthropic's Messages API (also on Bedrock's InvokeModel and Vertex) takes a `cache_control` key on
a content block or, on the Claude API, at the top level of the request (automatic caching: advice
for Claude on Bedrock names blocks, `blocks_only`); Bedrock's Converse API
takes none of them but a `{"cachePoint": {"type": "default"}}` block after the content it closes
(docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html); the legacy Text Completions API
takes no breakpoint at all (the Messages API does). A finding or help line that names a marker
names the one the request's API takes (`PromptLayout.api`: "converse" / "converse_stream",
"completions", else the Messages API's)."""
from __future__ import annotations

from .model import PromptLayout


def is_converse(layout: PromptLayout) -> bool:
    """True for a request of Bedrock's Converse API, whose breakpoints are `cachePoint` blocks."""
    return (layout.api or "").startswith("converse")


def blocks_only(layout: PromptLayout) -> bool:
    """True for Claude's Messages API on Bedrock (InvokeModel's body, `AnthropicBedrock`): it
    takes `cache_control` on content blocks; the top-level marker of automatic caching is the
    Claude API's, not named as Bedrock's (github.com/anthropics/anthropic-sdk-python/issues/939:
    on Bedrock, a `cache_control` on each block to cache up to), so advice there names blocks."""
    return layout.provider == "bedrock" and not is_converse(layout)


def no_breakpoint(layout: PromptLayout) -> str:
    """'no `cache_control` breakpoint' (or 'no `cachePoint` block' on Converse): why an opt-in API
    caches nothing of the request today."""
    return "no `cachePoint` block" if is_converse(layout) else "no `cache_control` breakpoint"


def unplaced(layout: PromptLayout) -> str:
    """Why a breakpoint may be set where the layout does not show one: a statement that sets one
    on a block not placed in it (`unplaced_markers`), else a `**mapping` of keys not known."""
    if is_converse(layout):
        return ("a statement adds a `cachePoint` block not placed here" if layout.unplaced_markers
                else "a `**mapping` of keys not known is sent with it, and may hold `cachePoint` blocks")
    return ("a statement sets `cache_control` on a block not placed here" if layout.unplaced_markers
            else "a `**mapping` of keys not known is sent with it, and may hold a top-level `cache_control`")


def system_breakpoint(layout: PromptLayout) -> str:
    """The breakpoint that closes a system prompt on the request's API, as a noun phrase."""
    return ("a `cachePoint` block after the system prompt" if is_converse(layout)
            else "a `cache_control` on the system block" if blocks_only(layout)
            else "a `cache_control` on the system block, or a top-level one,")


def shared_breakpoint(layout: PromptLayout) -> str:
    """The breakpoint that caches the longest beginning that the prompts passed through one
    function share, as a noun phrase."""
    return ("a `cachePoint` block after the text the prompts share" if is_converse(layout)
            else "a `cache_control` on a block that ends the text the prompts share" if blocks_only(layout)
            else "a top-level `cache_control` (automatic caching)")


def breakpoint_advice(layout: PromptLayout) -> str:
    """The help line of a missing breakpoint on the request's API."""
    if layout.openai_compat:
        return "Send it with the Anthropic SDK (Messages API), with `cache_control` at the end of what repeats"
    if layout.api == "completions":
        return "Send it to the Messages API, with `cache_control` at the end of the static prefix"
    if is_converse(layout):
        return "Add a `cachePoint` block after the static prefix (and one after the last message)"
    return "Add `cache_control` at the end of the static prefix"
