"""PRM304 too-many-breakpoints: more cache breakpoints than the API accepts."""
from __future__ import annotations

from typing import Iterable

from ..estimates import breakpoint_cuts, size_profiles
from ..model import Diagnostic, PromptLayout, Related, Severity
from . import _cache_rule as h
from .base import Rule


class TooManyBreakpointsRule(Rule):
    """## What it does
    Counts the cache breakpoints of one request, on tools, system blocks and messages, plus the
    slot that Anthropic's top-level automatic `cache_control` uses, and reports the first one past
    the provider's limit (4 on Anthropic and Bedrock; sources: https://platform.claude.com/docs/en/build-with-claude/prompt-caching,
    https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html).

    ## Why is this bad?
    The API rejects the request with a 400 error. Breakpoints carried along in a replayed
    conversation are a common way to reach the limit after a few turns.

    ## Example
    ```python
    system=[
        {"type": "text", "text": PART_1, "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": PART_2, "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": PART_3, "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": PART_4, "cache_control": {"type": "ephemeral"}},
    ]
    ...
    client.messages.create(..., system=system, cache_control={"type": "ephemeral"})
    ```
    Use instead: keep one breakpoint at the end of the static prefix and one on the newest message.

    ## Fix safety
    No fix: which breakpoints to keep depends on how the prompt is reused.

    ## Breakpoints left in a kept conversation
    A statement that writes a breakpoint in place into the newest message of a message list
    (`messages[-1]["content"][-1]["cache_control"] = {...}`, also through a name bound to it or a
    loop that walks the list newest first and stops at the first block it marks) changes that
    message itself. When the list is kept from turn to turn, next turn's request marks its own
    newest message and the older marker is still there: one more breakpoint on every turn, and from
    the 5th turn at the latest the request carries more than 4 and is rejected. This is a known
    failure of real agents ("cache_control markers accumulate across tool-calling rounds until the
    request exceeds Anthropic's 4-block limit", https://github.com/Bike4Mind/bike4mind/issues/2127;
    https://github.com/rescrv/claudius/pull/42). Reported at the statement: an error when the code
    keeps and grows the list (a `self.` attribute a method of the class appends to, a list a loop
    grows around the call, a module-level list), info when the list is the callers' (a parameter,
    with no call in the module that passes a list built for the request; or a converter's result
    that holds its input's own blocks): whether they keep it is not known there. Not reported when
    every call is in other modules of the package and passes a list built for that call
    (`msgs = convert(events); mark_newest(msgs)`: nothing keeps it), nor when
    the code marks a copy (`copy.deepcopy`, blocks built anew), marks the first or a fixed message
    (the same one every turn), or takes the older breakpoints off first (`block.pop("cache_control",
    None)`, `del block["cache_control"]`): a marker is no part of the cached prefix, so taking it off
    an older block keeps that block's cache entry readable (Anthropic's prompt-caching guide,
    https://github.com/anthropics/skills/blob/0da71c3b54277f20e96146648444590eab1dc82c/skills/claude-api/shared/prompt-caching.md:
    "the moving marker ... is not an invalidator (previously-marked blocks are still cache hits)").
    Code that counts the breakpoints and stops marking at a limit is PRM302's; a counter that
    stops the loop past the limit (`if used < 5: ...; used += 1`) is counted here at that number
    (5: one too many). A breakpoint a converter's loop copies onto the block built from an item
    where the item carries one (the caller asked for it there: `if (cc := _cache_control(part)) is
    not None: block["cache_control"] = cc`, the helper reading the part's own `cache_control`) is
    counted once, not on every message.

    ## One breakpoint copied onto every block
    A converter that reads the breakpoint a caller put on a message (`cc =
    message.meta.get("cache_control")`) and, in a loop over the message's parts or blocks, writes it
    on each block it builds (`for part in message.content: block = {...}; block["cache_control"] =
    cc`) turns one breakpoint into one per block, as many as the message holds: a marked message of
    more than 4 blocks makes a request the API rejects. Reported as info at the loop's first write
    (the number of blocks is not known). Not when the loop stops after the write (`for blk in
    reversed(content): ...; break`: the last block only), writes only for the last item, reads the
    breakpoint off its own item (the caller marked that item), runs over a slice or a display of
    fixed length, or writes on a block made outside it.

    ## Breakpoints added on top of the caller's
    A function that adds breakpoints at three or more places of a request it is handed (a caching
    middleware: the top-level automatic `cache_control`, the last system block, the last tool) and
    passes its messages on without counting the breakpoints they carry is reported as info at its
    first write, in a package that carries breakpoints written on message blocks into its requests
    (a file reads one off a block: `block.get("cache_control")`, `"cache_control" in block`): two
    in the messages then make five, and the request is rejected. Proxies that add their own
    breakpoints to a client's request are a known source of the error ("A maximum of 4 blocks with
    cache_control may be provided. Found 5.": https://github.com/VicBilibily/GCMP/pull/83). Not
    reported when the function or a helper reads a breakpoint key or calls one named to count them
    (it makes room), nor in a package whose messages never carry one.
    """

    code = "PRM304"
    brief = "more breakpoints than the provider allows"
    severity = Severity.ERROR
    fix_availability = "none"

    def check_layout(self, layout: PromptLayout) -> Iterable[Diagnostic]:
        cuts = breakpoint_cuts(layout)
        slots = [bp.span or layout.parts[pi].span for _cut, pi, bp in cuts for _ in range(bp.count)]
        if layout.auto_cache is not None:
            slots.append(layout.auto_cache)  # the automatic breakpoint takes the last slot
        profiles, label = size_profiles(layout)
        limits = [p.max_breakpoints for p in profiles if p.opt_in]
        if not limits or len(limits) != len(profiles):
            return
        limit = max(limits)
        looped = next((bp for part in layout.parts for bp in part.breakpoints if bp.repeated), None)
        if looped is not None:
            fixed = len(slots) - 1
            turn = max(1, limit - fixed + 1)
            message = (f"A cache breakpoint set on every message of the conversation in a loop: with the "
                       f"{fixed} other breakpoint{'s' if fixed != 1 else ''} of the request, {label} allows {limit}, "
                       f"so from message {turn} of a conversation on the API rejects the request")
            yield self.diagnostic(message, h.span_or(looped.span, layout.site), prompt=layout.id)
            return
        if len(slots) <= limit:
            return
        span = slots[limit]
        auto = " (the automatic one included)" if layout.auto_cache is not None else ""
        looped = max((bp.count for _cut, _pi, bp in cuts), default=1)
        if looped > 1:  # a loop that stops at a count (`if used < 5:`, `messages[-5:]`)
            message = (f"Up to {len(slots)} cache breakpoints in one request{auto}: a loop over the messages sets "
                       f"up to {looped} of them once the conversation is long enough; {label} allows {limit}: the "
                       "API rejects the request then")
        else:
            message = (f"{len(slots)} cache breakpoints in one request{auto}; {label} allows {limit}: "
                       f"the API rejects the request")
        yield self.diagnostic(message, h.span_or(span, layout.site), prompt=layout.id)

    def check_module(self, module) -> Iterable[Diagnostic]:
        yield from self._kept(module)
        yield from self._spread(module)
        for node, places in module.facts.get("added_marks", ()):  # (python/added_marks.py)
            message = (f"This function adds cache breakpoints at {places} places of a request it is handed and "
                       "passes on its messages without counting the breakpoints they carry (this package carries "
                       "breakpoints written on message blocks into its requests): with "
                       f"{max(1, 5 - places)} or more there, the request holds more than 4 and Anthropic rejects it "
                       "(a 400 error); count the request's breakpoints first and add only as many as still fit")
            yield self.diagnostic(message, module.span(node), severity=Severity.INFO)

    def _spread(self, module) -> Iterable[Diagnostic]:
        """Info at a loop that copies the one breakpoint read off a message onto every block it
        builds (`python/spread_marks.py`): how many blocks a marked message has is not known."""
        for mark in module.facts.get("spread_marks", ()):
            related = [Related(module.span(mark.read), "the breakpoint is read here, once")]
            related += [Related(module.span(s), "copied here too") for s in mark.others[:4]]
            message = ("This loop copies the one cache breakpoint read off the message (line "
                       f"{mark.read.lineno}) onto every block it builds: a marked message of more than 4 such blocks "
                       "(fewer with the request's other breakpoints) makes a request Anthropic rejects (a 400 "
                       "error: at most 4 breakpoints); put it on the message's last block only")
            yield self.diagnostic(message, module.span(mark.node), severity=Severity.INFO, related=related)

    def _kept(self, module) -> Iterable[Diagnostic]:
        """A breakpoint written into the newest message of a conversation kept from turn to turn
        and never removed (`python/kept_marks.py`): an error when the code keeps and grows the
        list, info when it is the callers' list. Capped ones are PRM302's."""
        for mark in module.facts.get("kept_marks", ()):
            if mark.capped is not None:
                continue
            if mark.kept is None:
                whose = mark.via or "its callers' list"
                what = "adds a message carrying a cache breakpoint to" if mark.adds else \
                    "writes a cache breakpoint, in place, into the newest message of"
                message = (f"This statement {what} `{mark.holder}` ({whose}), and nothing removes the older ones: a "
                           "caller that keeps its "
                           "conversation and passes it again gets one more breakpoint every turn, and Anthropic "
                           "rejects a request with more than 4 (a 400 error), from the 5th turn at the latest "
                           "(sooner with the request's other breakpoints); mark a copy of the message, or remove "
                           "the older breakpoints first")
                yield self.diagnostic(message, module.span(mark.node), severity=Severity.INFO)
                continue
            related = [Related(module.span(mark.caller), "the kept list is passed here")] if mark.caller else []
            what = (f"adds a message carrying a cache breakpoint to `{mark.holder}`," if mark.adds else
                    f"writes a cache breakpoint into the newest message of `{mark.holder}`, in place,")
            message = (f"This statement {what} and {mark.kept} from turn to turn with no code removing the older "
                       "ones: every turn "
                       "leaves one more breakpoint in the conversation, and Anthropic rejects a request with more "
                       "than 4 (a 400 error), from the 5th turn at the latest (sooner with the request's other "
                       "breakpoints); mark a copy of the message, or remove the older breakpoints first")
            yield self.diagnostic(message, module.span(mark.node), related=related)
