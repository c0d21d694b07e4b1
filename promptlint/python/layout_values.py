"""Value helpers of request layouts (python/layout.py and the SDK modules): variants of a value,
message lists merged from branches, cache-breakpoint keys, the replayed conversation's segment.
Pure functions over flow values (python/flow/values.py); no parsing, no judging.
"""
from __future__ import annotations

from ..model import Kind, Segment, Volatility, replace
from .flow.variants import MAX_VARIANTS
from .flow.merged import merged_list
from .flow.values import Alt, Mapping, Obj, Seq, Spread, Text, grown_name
from .flow.windows import items_cut
from .markers import MARKER_KEYS

def present_or_absent(grown: list) -> Seq | None:
    """One message list for the few variants of a list built in branches that each write a message
    or not (`if system_prompt: messages.append(system)`, then `messages.extend(history)`): the
    messages of all of them in their order, one some variants leave out present or absent (its
    content conditional, its role kept), so the system prompt keeps its place before the history.
    None when there are not 2 to MAX_VARIANTS variants, all lists written once (not grown in a
    loop), when two of them order their common messages differently (`merged.merged_list`), or
    when no variant holds every message (`[*history, note]` in one branch, `[system, *history]` in
    another: messages that go together with others, not a message left out)."""
    if not 1 < len(grown) <= MAX_VARIANTS or not all(isinstance(v, Seq) and not v.repeated for v in grown):
        return None
    merged = merged_list(grown)
    if merged is None or not any(len(v.items) == len(merged.items) for v in grown):
        return None  # (no variant holds them all: branches that write other messages, not one left out)
    marks = tuple(dict.fromkeys(mk for v in grown for mk in v.markers))
    return replace(merged, items=[sometimes(i) for i in merged.items], markers=marks)


def sometimes(item):
    """An item of merged branches that is a message or nothing (`Alt([message, ""])`): that message,
    its content present or absent; another item as it is."""
    if not isinstance(item, Alt) or len(item.options) != 2:
        return item
    message, absent = item.options
    if not (isinstance(absent, Text) and all(s.is_static and not s.text for s in absent.segs)):
        return item
    blank = Text([Segment(text="", span=item.span)])
    if isinstance(message, Mapping) and "content" in message.items:
        return replace(message, items={**message.items, "content": Alt([message.items["content"], blank], item.span)})
    if isinstance(message, Obj) and "content" in message.kwargs:
        return replace(message, kwargs={**message.kwargs, "content": Alt([message.kwargs["content"], blank], item.span)})
    return item


def read_whole(value, depth: int = 0) -> bool:
    """True when a message (or a block of it) is read whole: dict displays with every key seen
    (no `**spread` of data we cannot read), their lists of blocks, text; an object's arguments.
    `depth` counts values and options alike: a tool result's blocks inside a message's list of
    blocks, each a choice of converters, lie 9 deep."""
    if depth > 12:
        return False
    if isinstance(value, Mapping):
        return not value.repeated and value.node is not None and all(read_whole(v, depth + 1) for v in value.items.values())
    if isinstance(value, Seq):
        return all(read_whole(v, depth + 1) for v in value.items)
    if isinstance(value, Alt):
        return all(read_whole(v, depth + 1) for v in value.options)
    return not isinstance(value, Spread)




def marker_keys(value, depth: int = 0) -> list:
    """Where a `cache_control` (or Bedrock `cachePoint`) key is set anywhere in a message's content that `part` does not
    read as blocks: a block spread from a condition (`**({"cache_control": ...} if last else {})`),
    an SDK block class (`TextBlockParam(..., cache_control=...)`). Spans (or None), one per key."""
    if depth > 6:
        return []
    if isinstance(value, Mapping):
        own = [value.key_spans.get(k) for k in MARKER_KEYS if k in value.items]
        return own + [s for v in value.items.values() for s in marker_keys(v, depth + 1)]
    if isinstance(value, Obj):
        own = [value.span] if any(k in value.kwargs for k in MARKER_KEYS) else []
        return own + [s for v in [*value.args, *value.kwargs.values()] for s in marker_keys(v, depth + 1)]
    if isinstance(value, (Seq, Alt)):
        return [s for v in (value.items if isinstance(value, Seq) else value.options) for s in marker_keys(v, depth + 1)]
    if isinstance(value, Spread):
        return marker_keys(value.value, depth + 1)
    return []


def variants_of(value, depth: int = 0):
    """The alternatives of a value, nested Alts flattened (at most a few levels, 16 variants)."""
    if isinstance(value, Alt) and depth < 6:
        out = []
        for option in value.options:
            out.extend(variants_of(option, depth + 1))
        return out[:16]
    return [value]


def is_history_like(value) -> bool:
    """A value that is one history segment (a parameter named `messages`, a list grown across
    turns): where an API takes a string or a message list (Responses `input`, Gemini `contents`),
    anything else is the newest user message (docs/policies.md, Policy 3)."""
    return isinstance(value, Text) and len(value.segs) == 1 and value.segs[0].kind is Kind.HISTORY


def history_seg(value, span, expr) -> Segment:
    """The segment of a replayed conversation; `window` kept when it is cut to its newest messages
    (in one of its variants too: a list cut in a branch)."""
    segs = value.segs if isinstance(value, Text) else []
    cut, taken = _cut_in(value), items_cut([value])  # (a message of a cut: named by the cut)
    placed = next((s for s in segs if s.origin_note), None)  # where the code puts it (python/handoff.py)
    return Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, expr=taken.expr if taken else expr or "messages", span=span,
                   evidence="replayed conversation", window=cut and cut.window,
                   window_stop=cut and cut.window_stop, window_off=cut.window_off if cut else "",
                   unconfirmed=bool(cut and cut.unconfirmed),
                   origin=placed and placed.origin, origin_note=placed.origin_note if placed else "")


def as_prompt_text(segs: list[Segment]) -> list[Segment]:
    """The segments of a part that is text, not a message list (a system prompt, a user message, a
    one-shot prompt), with each list an instance grows that nothing shows to hold the conversation
    (`Segment.unconfirmed`: `self.candidates`, `self.questions_asked`) as content of unknown
    volatility that it is: the items written into the text are not the conversation's messages,
    so nothing of a conversation history follows them. Its cut (`window`) is kept. Other
    segments, and the conversation (named so, or grown with messages), are unchanged."""
    if not any(s.unconfirmed and s.kind is Kind.HISTORY for s in segs):
        return segs
    return [replace(s, kind=Kind.UNKNOWN, evidence=f"built from `{grown_name(s)}`, a list its methods add to") if s.unconfirmed and s.kind is Kind.HISTORY else s
            for s in segs]


def _cut_in(value) -> Segment | None:
    """The segment of `value` (of one of its variants) cut to its newest messages, or None: a
    helper that returns `initial + history[-50:]` in one branch and cuts it otherwise."""
    if isinstance(value, Alt):
        return next((c for o in value.options if (c := _cut_in(o)) is not None), None)
    return next((s for s in value.segs if s.window is not None), None) if isinstance(value, Text) else None


def expr_of(value) -> str:
    """The source text a value is read from: its first segment's, or the one every variant of an
    `Alt` names (`input, schema = input` in a branch: the parameter `input` either way)."""
    if isinstance(value, Text):
        for s in value.segs:
            if s.expr:
                return s.expr
    if isinstance(value, Alt) and len(names := {expr_of(o) for o in value.options}) == 1:
        return names.pop()
    return getattr(value, "qualname", "") or "messages"


def grown_evidence(seq, unread) -> str:
    """Why a message list is drawn as the conversation history, and what of it is not read
    (`explain` shows it): a list appended to in a loop (a conversation grown turn by turn, or the
    caller's messages converted one by one), and the first of its messages the code read does not write (`unread`: a list handed
    in, a message of unknown shape), with the reason the evaluator gives for it."""
    what = "a message list appended to in a loop, taken as the replayed conversation"
    if not seq.items:
        return f"{what}; none of its messages is written in the code read here"
    if unread is None:
        return what
    inner = unread.value if isinstance(unread, Spread) else unread
    name = expr_of(inner)
    why = next((s.evidence for s in inner.segs if not s.is_static and s.evidence), "") \
        if isinstance(inner, Text) else ""
    return f"{what}; its messages from `{' '.join(name.split())}` are not read (" + \
        (why or "what they hold is not written in the code followed here") + ")"
