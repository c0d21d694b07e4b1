"""Where each dynamic segment sits in its request, relative to the prefix a later request can share.

A later request can reuse the part of this request that it sends again byte for byte
(docs/policies.md, Policies 2-3): in a conversation (a layout with history) everything before the newest user
message, the replayed history included; in a one-shot request (no history) the whole request up
to the end of the newest user message, since static text at its start is sent again by the next
call. Token counts are o200k_base counts of static text, counted per run of adjacent static
segments of a part exactly as `estimates.tokens_before` counts them, so that the figures of a
message equal those of `promptlint explain` (its "static prefix ends" marker and its prompt list).
"""
from __future__ import annotations

from dataclasses import dataclass

from .estimates import Cut, tokens_before
from .model import Kind, Part, PromptLayout, Segment
from .turn_names import conversation_named

MIN_STATIC_AFTER = 8  # tokens: less static text after a volatile value (closing tags, punctuation) costs little

ROLE_NAMES = {"system": "system prompt", "prompt": "prompt text", "developer": "developer message",
              "tools": "tool definitions", "user": "user message", "assistant": "assistant message",
              "tool": "tool result", "history": "conversation history",
              "unknown": "message of unknown role"}


@dataclass
class Placed:
    """A dynamic segment of the shareable prefix with its surroundings; token counts are o200k
    tokens of static text (runs counted as `estimates.tokens_before` counts them).

    `static_before`: static text of the request before the segment (`values_before`: the dynamic
    segments among it, their lengths not counted); `static_after`: static text
    after it up to the end of the shareable prefix; `history_after`: a replayed history follows
    in that prefix; `breakpoint_after`: an explicit cache breakpoint follows (in the prefix or on
    the newest user message); `in_newest`: the segment is in the newest user message of a one-shot
    request (then only that message's own static text follows it)."""

    part_index: int
    seg_index: int
    part: Part
    seg: Segment
    static_before: int
    static_after: int
    history_after: bool
    breakpoint_after: bool = False
    in_newest: bool = False
    values_before: int = 0  # dynamic segments before it in the request (of lengths not known here)

    @property
    def cut(self) -> Cut:
        return Cut(self.part_index, self.seg_index)

    @property
    def followed(self) -> bool:
        """True when enough cacheable content follows for the segment to cost something."""
        return self.history_after or self.static_after >= MIN_STATIC_AFTER

    @property
    def where(self) -> str:
        if self.in_newest:
            return "newest user message"
        return ROLE_NAMES.get(self.part.role, f"{self.part.role} message")


def turn_start(layout: PromptLayout) -> int | None:
    """The index of the first part of this turn's own messages after the newest user message,
    when the first of them is the model's reply to it (`Part.reply`: a tool loop's follow-up
    request re-sends the turn with the reply and the tool results appended), else None. Nothing
    from there on is history: it is new in this turn, after the newest user message."""
    newest = layout.newest_user
    if newest is not None and newest + 1 < len(layout.parts) and layout.parts[newest + 1].reply:
        return newest + 1
    return None


def replays_history(layout: PromptLayout) -> bool:
    """True when the request replays a conversation: a history part before this turn's own
    messages (`turn_start`)."""
    start = turn_start(layout)
    return layout.has_history if start is None else any(p.is_history for p in layout.parts[:start])


def prefix_end(layout: PromptLayout) -> Cut:
    """The end of the prefix a later request can share: just before the newest user message in a
    conversation (Policy 3), after it in a one-shot request, or the end of the request when no
    newest user message is known."""
    if layout.newest_user is None:
        return Cut(len(layout.parts), 0)
    if replays_history(layout):
        return Cut(layout.newest_user, 0)
    return Cut(layout.newest_user + 1, 0)


def prefix_parts(layout: PromptLayout) -> list[Part]:
    """The parts that a later request can share (see `prefix_end`)."""
    return layout.parts[: prefix_end(layout).part]


def history_between(layout: PromptLayout, start: Cut, end: Cut, proven: bool = False) -> bool:
    """True when a history part starts after `start` and before `end`, or a conversation history
    flattened into prompt text (a `{history}` placeholder filled with the chat so far) lies there;
    with `proven`, not a history part that is only message placeholders not shown to hold the
    conversation (`unproven_slot`)."""
    for pi, part in enumerate(layout.parts):
        if part.is_history:
            if start < Cut(pi, 0) < end and not (proven and _only_slots(part)):
                return True
            continue
        if any(s.kind is Kind.HISTORY and start < Cut(pi, si) < end for si, s in enumerate(part.segments)):
            return True
    return False


def unproven_slot(seg: Segment) -> bool:
    """True for a history segment that is a message placeholder (`Segment.slot`) not shown to hold
    the conversation: optional and named by no other code of its module, so nothing there fills it
    (`slot_empty`), or named for something else than a conversation (`function_response`,
    `agent_scratchpad`: `turn_names.conversation_named`), whose messages may be one request's own."""
    return bool(seg.slot) and (seg.slot_empty or not conversation_named(seg.slot))


def slot_after(layout: PromptLayout, start: Cut, end: Cut) -> Segment | None:
    """The first message placeholder of the history between `start` and `end` when that history is
    only placeholders not shown to hold the conversation (`unproven_slot`), else None."""
    if not history_between(layout, start, end) or history_between(layout, start, end, proven=True):
        return None
    return next((s for pi, part in enumerate(layout.parts) if part.is_history and start < Cut(pi, 0) < end
                 for s in part.segments if s.kind is Kind.HISTORY and unproven_slot(s)), None)


def _only_slots(part: Part) -> bool:
    history = [s for s in part.segments if s.kind is Kind.HISTORY]
    return bool(history) and all(unproven_slot(s) for s in history)


def placed_segments(layout: PromptLayout) -> list[Placed]:
    """Every dynamic segment of the shareable prefix, in request order, with static tokens around
    it (segments inside a history part too: a replayed tool result is part of the prefix)."""
    end = prefix_end(layout)
    total = tokens_before(layout, end)
    bp_cuts = sorted(Cut(pi, bp.after + 1) for pi, part in enumerate(layout.parts) for bp in part.breakpoints)
    newest = layout.newest_user if not replays_history(layout) else None
    out: list[Placed] = []
    values = 0
    for pi, si, part, seg in layout.segments():
        cut = Cut(pi, si)
        if cut >= end:
            break
        if seg.is_static or seg.kind is Kind.HISTORY:
            continue
        before = tokens_before(layout, cut)
        # (a value written once when the conversation starts: the history after it is its own; a
        # value of a caller that keeps its requests out of the conversation: not its history)
        out.append(Placed(pi, si, part, seg, before, total - before,
                          history_between(layout, cut, end) and not seg.spares_history,
                          any(c > cut for c in bp_cuts), in_newest=pi == newest, values_before=values))
        values += 1
    return out


def loop_shared(p: Placed, later: list[Placed], rates: list, end: Cut) -> Placed | None:
    """The first segment of `later` (those after `p`, with their `rates.Rate`s: None for a value
    that does not change) before `end` that stays the same in every pass of the loop that binds
    `p`'s value (`Segment.same` is its `each`: python/loop_values.py), with nothing between them
    that may change (a value of unknown volatility, another per-request value); None when there is
    none. `for kp in points: send(f"KEY POINT: {kp} SUMMARY: {summary}")`: at `{kp}`, `{summary}`."""
    loop = p.seg.each
    if loop is None:
        return None
    for q, rate in zip(later, rates):
        if not q.cut < end:
            return None
        if q.seg.same == loop:
            return q
        if rate is not None:
            return None
    return None


def tokens(n: int, what: str = "token") -> str:
    """'1 token', '1,830 tokens': a count with its noun in the right number."""
    return f"{n:,} {what}{'' if n == 1 else 's'}"


def what_is_lost(p: Placed) -> str:
    """'the 1,830 static tokens and the conversation history after it' and the like."""
    bits = []
    if p.static_after:
        bits.append(f"the {tokens(p.static_after, 'static token')}")
    if p.history_after:
        bits.append("the conversation history")
    if not bits and p.breakpoint_after:
        bits.append("the cached block that ends after it")
    return " and ".join(bits) + " after it" if bits else "nothing after it"
