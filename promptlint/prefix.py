"""Where each dynamic segment sits relative to the cacheable prefix of its request.

The prefix of a request is everything before the newest user message (DESIGN.md Policy 3); the
replayed conversation (history) is part of it. For each dynamic segment in the prefix this module
counts the static tokens before and after it (o200k_base, exact) and tells whether history
follows: the cost of the segment is what comes after it.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import tokens
from .model import Part, PromptLayout, Segment

MIN_STATIC_AFTER = 8  # tokens: less static text after a volatile value (closing tags, punctuation) costs little

_ROLE_NAMES = {"system": "system prompt", "developer": "developer message", "tools": "tool definitions",
               "user": "user message", "assistant": "assistant message", "tool": "tool result",
               "history": "conversation history"}


@dataclass
class Placed:
    """A dynamic segment of the prefix with its surroundings; token counts are o200k tokens."""

    part_index: int
    seg_index: int
    part: Part
    seg: Segment
    static_before: int
    static_after: int
    history_after: bool
    breakpoint_after: bool = False

    @property
    def followed(self) -> bool:
        """True when enough cacheable content follows for the segment to cost something."""
        return self.history_after or self.static_after >= MIN_STATIC_AFTER

    @property
    def where(self) -> str:
        return _ROLE_NAMES.get(self.part.role, self.part.role)


def prefix_parts(layout: PromptLayout) -> list[Part]:
    """The parts that form the cacheable prefix: all parts before the newest user message."""
    end = layout.newest_user if layout.newest_user is not None else len(layout.parts)
    return layout.parts[:end]


def placed_segments(layout: PromptLayout) -> list[Placed]:
    """Every dynamic segment of the prefix, in request order, with static tokens around it."""
    parts = prefix_parts(layout)
    flat = [(pi, si, part, seg) for pi, part in enumerate(parts) for si, seg in enumerate(part.segments)]
    counts = [tokens.count(seg.text) if seg.is_static else 0 for _, _, _, seg in flat]
    total = sum(counts)
    out: list[Placed] = []
    before = 0
    for i, (pi, si, part, seg) in enumerate(flat):
        if not seg.is_static:
            history_after = any(p.is_history for p in parts[pi + 1:])
            bp_after = any(b.after >= si for b in part.breakpoints) or any(p.breakpoints for p in parts[pi + 1:]) \
                or any(p.breakpoints for p in layout.parts[len(parts):len(parts) + 1])
            out.append(Placed(pi, si, part, seg, before, total - before - counts[i], history_after, bp_after))
        before += counts[i]
    return out


def what_is_lost(p: Placed) -> str:
    """'the 1,830 static tokens and the conversation history after it' and the like."""
    bits = []
    if p.static_after:
        bits.append(f"the {p.static_after:,} static token{'s' if p.static_after != 1 else ''}")
    if p.history_after:
        bits.append("the conversation history")
    if not bits and p.breakpoint_after:
        bits.append("the cached block that ends after it")
    return " and ".join(bits) + " after it" if bits else "nothing after it"
