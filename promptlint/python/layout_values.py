"""Value helpers of request layouts (python/layout.py and the SDK modules): variants of a value,
message lists merged from branches, cache-breakpoint keys, the replayed conversation's segment,
the volatility of what the code does not read in a one-shot request's newest user message.
Pure functions over flow values (python/flow/values.py) and source text; no parsing, no judging.
"""
from __future__ import annotations

import re

from ..model import Kind, Segment, Source, Volatility, replace
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


#: Kinds of a value that is no input of the request whatever its volatility: the conversation,
#: and a clock reading or an id (causes of their own, PRM102 / PRM103).
_NO_INPUT = (Kind.HISTORY, Kind.TIMESTAMP, Kind.UNIQUE_ID)
_NAME = re.compile(r"[A-Za-z_]\w*")


def _request_input(seg: Segment) -> bool:
    """True for a value known to change per request that is not a time or an id: the user's
    input (a parameter named so), a loop element, a request's field, data fetched with it."""
    return not seg.is_static and seg.volatility is Volatility.PER_REQUEST and seg.kind not in _NO_INPUT


def newest_input(segs: list[Segment], root=lambda seg: "") -> list[Segment]:
    """The segments of the newest user message of a one-shot request (Policy 7), each value the
    code does not read (unknown kind or a template's placeholder, of unknown volatility) made
    the request's input, per request: that is what the message is sent for. Not when the
    message holds the conversation (a judge given a transcript: the transcript is what is new;
    an attachment still is), nor for a value read from a parameter of the call (`Segment.source`:
    the parameter itself, a keyword read from its `**kwargs`, what a helper returns of either, or
    text computed from it alone) placed before a value the code already knows as the request's input (`{schema}` of a graph,
    then `Question: {question}`) read from another name: the input is that one, and the
    parameter keeps its unknown volatility (often what the deployment is set up with). A field of
    the object the input is read from (`row["func_desc"]` before `row["query"]`) is the request's
    too, and a value the function makes itself (a reply it awaits, a page it fetches, text it
    renders per item) stays the input: it is made on each call. Text the same in every pass of a
    loop that sends the request (`Segment.same`, python/loop_values.py) is none. `segs`: the message's segments
    in order; `root(seg)`: the name the code reads a segment from (`row` of `row["query"]`), or
    "" when not known. Returns the segments, changed where read so."""
    holds = any(not s.is_static and s.kind is Kind.HISTORY for s in segs)
    out, roots = [], None  # roots: the names the known inputs after this point are read from
    for s in reversed(segs):
        if not s.is_static and s.volatility is Volatility.UNKNOWN and s.kind in (Kind.UNKNOWN, Kind.TEMPLATE_VARIABLE) \
                and (s.is_attachment or not holds and not _beside_input(s, roots)) and s.same is None:
            s = replace(s, volatility=Volatility.PER_REQUEST, evidence=s.evidence or "content of the newest user message")
        elif _request_input(s):
            roots = (roots or set()) | {root(s)}
        out.append(s)
    return out[::-1]


def _beside_input(seg: Segment, roots: set[str] | None) -> bool:
    """True when `seg` is read from a parameter of the call (`Source.PARAMETER`) and a known input
    follows it that is read from another name than that parameter's (`roots`: those inputs'
    names, "" for one not known; None: none)."""
    return roots is not None and seg.source is Source.PARAMETER and seg.source_name not in roots


def root_name(seg: Segment, filename: str, source: str) -> str:
    """The name the code at the place a segment's value is produced reads it from (`row` of
    `row["query"]`, `question` of `question=question`'s value), when that place is in the file
    `filename` whose text is `source`; else ""."""
    span = seg.origin or seg.span
    if span is None or span.filename != filename:
        return ""
    lines = source.splitlines()
    if not 0 < span.start.row <= len(lines):
        return ""
    found = _NAME.match(lines[span.start.row - 1], span.start.column - 1)
    return found.group(0) if found else ""
