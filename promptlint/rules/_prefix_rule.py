"""Shared wording of the prefix rules PRM101-PRM104 and PRM201-PRM202: what a segment is, where it
sits and what it costs, in words a user can check against their bill and against `promptlint
explain` (the same o200k counts and the same per-target cached tokens)."""
from __future__ import annotations

import dataclasses
import re

from ..impact import Impact, Rate
from ..impact_phrases import interleaved
from ..model import PER_INSTANCE, Applicability, Kind, Precision, Related, Segment
from ..prefix import Placed, tokens, what_is_lost
from ..python.kept_text import KEPT

_PRECISION = {Precision.SUB_DAY: "sub-day precision", Precision.DAY: "day precision",
              Precision.MONTH: "month precision", Precision.YEAR: "year precision"}
_INTERNAL = re.compile(r"^(instance|self|message|module|class):(?P<name>.*)$")
_NOT_SOURCE = {"", "?", "an unknown value", "dict", "list", "path", "configuration data"}


def source_text(seg: Segment, limit: int = 60) -> str | None:
    """The segment's source expression on one line, cut to `limit` characters, or None when the
    extraction has no source text for it (an internal placeholder is never shown to a user)."""
    expr = " ".join(seg.expr.split())
    if expr in _NOT_SOURCE or _INTERNAL.match(expr):
        return None
    return expr if len(expr) <= limit else expr[: limit - 3] + "..."


def describe(seg: Segment, note: str = "", *, within: bool = False) -> str:
    """'`datetime.now()` (sub-day precision)', 'a `Text` object', 'a value'; the value the code
    writes where it enters, when that is text built around it: '`summary` (built from `query`)',
    or a choice between texts: '`max_sections` (one variant reads `10`)'.
    `note` (the extraction's evidence, say) joins the same parentheses: '`summary` (built from
    `query`; the parameter `q`)', never a second pair. `within`: text built around the value is
    named as where it is, 'in `summary` (built from `query`)' (after a kind: "Timestamp in ...")."""
    expr = source_text(seg)
    caret = seg.written
    notes = []
    # (a choice between texts is named by what the code writes there, `{max_sections}`, even when
    # its variants are not built around it: its `expr` is one variant's text, `10`)
    if expr is not None and caret is not None and (caret.built or seg.kind is Kind.CONDITIONAL):
        written = source_text(dataclasses.replace(seg, expr=caret.text)) or caret.text
        text = f"in `{written}`" if within and caret.built and seg.kind is not Kind.CONDITIONAL else f"`{written}`"
        # (a choice between texts: its segment is where the variants differ, shown from one of them)
        notes.append(f"one variant reads `{expr}`" if seg.kind is Kind.CONDITIONAL else f"built from `{expr}`")
    elif expr is not None:
        text = f"`{expr}`"
    else:
        m = _INTERNAL.match(" ".join(seg.expr.split()))
        name = m.group("name").rsplit(".", 1)[-1] if m else ""
        text = f"a `{name}` object" if m and m.group(1) == "instance" and name else (
            "a conditional section" if seg.kind is not None and seg.kind.value == "conditional" else "a value")
    if note:
        notes.append(note)
    if seg.precision is not None:
        notes.append(_PRECISION[seg.precision])
    if seg.gate:  # (the finding says what happens once the option is on)
        notes.append(f"only when `{seg.gate}` is on, and it is off by default")
    return f"{text} ({'; '.join(notes)})" if notes else text


def evidence(seg: Segment) -> str:
    """'; only the name `request_id` suggests it' for a finding whose evidence is a name."""
    if seg.name_only and seg.evidence:
        why = seg.evidence.split(" (")[0]
        return f"; only {why} suggests it"
    return ""


def why(seg: Segment) -> str:
    """'call to `memory.search(...)`': the extraction's evidence, unless it is only a name ("" then),
    for `describe(seg, note=why(seg))`."""
    if not seg.evidence or seg.name_only or seg.evidence in ("an object",):
        return ""
    return _QUOTED.sub(lambda m: f"`{_one_line(m.group(1))}`", seg.evidence)


#: Code quoted in an extraction's evidence (between backticks).
_QUOTED = re.compile(r"`([^`]*)`")


def _one_line(code: str, limit: int = 60) -> str:
    """Quoted code on one line (its whitespace runs collapsed), cut to `limit` characters."""
    code = " ".join(code.split())
    return code if len(code) <= limit else code[: limit - 3] + "..."


def position(p: Placed, complete: bool = True) -> str:
    """'at token 22 of the request, in the system prompt' (o200k tokens of static text before it,
    the "static prefix ends" figure of `promptlint explain` when it is the first dynamic value);
    when other values come first, 'after 2 values of unknown length and 40 static tokens of the
    request, in the system prompt' (the count leaves them out)."""
    of = "the request" if complete else "this prompt"
    n = p.values_before
    if n:
        static = f"{p.static_before:,} static token{'s' if p.static_before != 1 else ''}"
        return f"after {n} value{'s' if n != 1 else ''} of unknown length and {static} of {of}, in the {p.where}"
    return f"at token {p.static_before:,} of {of}, in the {p.where}"


def behind(imp: Impact) -> str:
    """'; `uuid4()` at token 3 breaks the prefix before it: both must go' when an earlier value of
    another kind also changes on every request (the finding stands, but fixing it alone gives nothing
    back); '' otherwise."""
    if imp.behind is None:
        return ""
    return (f"; {describe(imp.behind.seg)} at token {imp.behind.static_before:,} breaks the prefix before it: "
            "both must go")


def related(seg: Segment) -> list[Related]:
    """Where the value was made, unless that is within the finding's own place (the value made in
    the f-string field the finding points at: `{datetime.now()}`); of an unordered iteration whose
    set was made a list elsewhere (`Segment.listed`: a caller's `list(s)`), that place too."""
    out = []
    if seg.origin is not None and (seg.span is None or not seg.span.contains(seg.origin)):
        out.append(Related(seg.origin, "value produced here"))
    for listed in sorted(seg.listed, key=lambda p: (p.filename, p.start.row, p.start.column)):
        if not (seg.span is not None and seg.span.contains(listed)) \
                and not (seg.origin is not None and listed.contains(seg.origin)):
            out.append(Related(listed, "made a list here in an unstable order, which the prompt text keeps: sort it "
                                       "here or where it is iterated", evidence=False))
    return out


def lost(p: Placed) -> str:
    return what_is_lost(p)


def follows(imp: Impact, bound: bool = True) -> str:
    """'the 1,415 static tokens and the conversation history after it' (static text up to the
    next value that changes more often); in the newest user message, 'the 55 static tokens after
    it in the same message'; for a fragment, a lower bound and what the request may add (unless
    not `bound`: the caller says it in its own words)."""
    bits = []
    if imp.static_after:
        bits.append(f"the {tokens(imp.static_after, 'static token')}")
    if imp.history_after:
        bits.append("the conversation history")
    if not bits and not imp.before_lost:
        return "the cached block after it"
    text = " and ".join(bits) + " after it" + interleaved(imp) if bits else ""
    if imp.placed.in_newest:
        text += " in the same message"
    if imp.before_lost:
        before = f"the {tokens(imp.before_lost, 'static token')} before it (the cache breakpoint after it closes them)"
        text = f"{before} and {text}" if text else before
    if imp.complete or not bound:
        return text
    if imp.history_after:
        return "at least " + text
    if imp.rate is Rate.CONVERSATION or imp.seg.spares_history:  # (the history after it: its own, or none)
        return f"{text}, and any static text the request adds after this prompt,"
    return f"{text}, and whatever the request adds after this prompt (in a chat, the history),"


def _are(imp: Impact) -> str:
    """'are' or 'is', agreeing with `follows(imp)`."""
    alone = imp.history_after and not imp.static_after and not imp.before_lost
    return "is" if alone else "are"


def _figure(imp: Impact) -> str:
    """' (gpt-4.1: 0 cached tokens per request instead of 1,408)' for the target that loses most."""
    t = imp.worst
    if t is None or not imp.complete or (t.lost == 0 and not imp.history_after):
        return ""
    if imp.rate is Rate.CONVERSATION:
        return (f" ({t.target}: the first request of each conversation reads {t.cached(t.now)} "
                f"instead of {t.amount(t.fixed)})")
    if t.lost == 0:  # only the history is at stake
        return f" ({t.target}: {t.cached(t.now)} per request, and none of the history)"
    more = " plus the history" if imp.history_after else ""
    return f" ({t.target}: {t.cached(t.now)} per request instead of {t.amount(t.fixed)}{more})"


def loop_cost(imp: Impact) -> str:
    """What a value of each pass of a loop costs when placed before text every pass sends the same
    (`Impact.shared`): 'one request is made per element of a loop (the loop or the function it calls
    per element: line 16), each with a new value here and the same `summary` after it, ...'."""
    shared = imp.shared.seg
    loop = imp.seg.each
    at = f"line {loop.start.row}" if loop.filename == (imp.seg.span or loop).filename else f"{loop.filename}:{loop.start.row}"
    what = f"`{shared.expr}`" if shared.expr else "text"
    return (f"one request is made per element of a loop (the loop or the function it calls per element: {at}), "
            f"each with a new value here and the same {what} after it, which is therefore processed uncached on "
            "every request but the first; placed before this value it would be cached (its size is not known here)")


def drawn_cost(imp: Impact) -> str:
    """What elements drawn at random on every request cost before more of a prompt whose size is
    not known (`Impact.drawn_only`): 'the drawn text itself, static text of its collection, is the
    same in no two requests, nor is what follows it (...)'."""
    after = f"nor are the {tokens(imp.static_after, 'static token')} after it" if imp.static_after else "nor is what follows it"
    return (f"the drawn text itself, static text of its collection in another selection or order, is the same in no "
            f"two requests, {after} (how much of the request that is, is not known here)")


def cost(imp: Impact) -> str:
    """What the segment costs, after the colon of a message; for a value whose finding rests on a
    history that is only message placeholders not shown to hold the conversation
    (`Impact.rests_on_slot`), what they are."""
    return _cost(imp) + (slot_note(imp) if imp.rests_on_slot else "")


def slot_note(imp: Impact) -> str:
    """'; the history there is `chat_history` (a message placeholder), optional and named by no other
    code of its module: nothing there fills it, so whether a conversation is replayed after it is not
    known'."""
    seg = imp.slot
    if seg is None:
        return ""
    if seg.slot_empty:
        why = "optional and named by no other code of its module: nothing there fills it"
    else:
        why = "not named for a conversation: it may hold this request's own messages"
    return (f"; the history there is `{seg.slot}` (a message placeholder), {why}, so whether a conversation "
            "is replayed after it is not known")


def _cost(imp: Impact) -> str:
    what = follows(imp)
    if imp.drawn_only:
        return drawn_cost(imp)
    if imp.dormant:  # (a fragment too: the model its code names caches nothing today)
        reason = imp.targets[0].dormant
        when = "for every new conversation" if imp.rate is Rate.CONVERSATION else "on every request"
        return (f"nothing of this request is cached today ({reason}); once it is, {what} would be "
                f"processed uncached {when}")
    kept = _kept_by(imp.seg)
    if imp.loop_only:
        return loop_cost(imp)
    if imp.unsure_minimum:
        return f"{what} {_are(imp)} processed uncached on every request{_placed_before(imp)}; {assumed_below(imp)}"
    if imp.rate in (Rate.REQUEST, Rate.CONVERSATION) and imp.costs_nothing:
        # (a whole request that loses nothing is no finding: `Impact.severity`) a prompt string
        # built apart from its request: what it loses in a request that sends more than it
        when = "in every new conversation" if imp.rate is Rate.CONVERSATION else \
            f"{kept}, in each request" if kept else "on every request"
        return (f"{follows(imp, bound=False)} {_are(imp)} processed uncached {when} {stays_below(imp)} "
                "even with it moved")
    if imp.rate is Rate.REQUEST and kept:
        return f"{what} {_are(imp)} processed uncached {kept}{_figure(imp)}"
    if imp.rate is Rate.REQUEST:
        if imp.placed.in_newest:
            return (f"{what} {_are(imp)} processed uncached on every request; placed before it they would be "
                    f"cached{_figure(imp)}")
        return f"{what} {_are(imp)} processed uncached on every request{_figure(imp)}"
    if imp.rate is Rate.CONVERSATION:
        return f"{what} {_are(imp)} cached once per conversation instead of once for all conversations{_figure(imp)}"
    if imp.rate is Rate.DAY:
        return (f"{what} {_are(imp)} written to the cache again once a day at most, while cached prefixes "
                "expire within minutes to an hour anyway")
    if imp.rate is Rate.MONTH:
        return f"{what} {_are(imp)} written to the cache again once a month at most"
    if imp.rate is Rate.PROCESS and PER_INSTANCE in imp.seg.evidence:
        return (f"it is made for each new instance that is not given one, so {what} {_are(imp)} cached "
                "separately by each process that builds one (and again whenever it is rebuilt)")
    if imp.rate is Rate.PROCESS:
        return (f"it is fixed when its module is imported, so {what} {_are(imp)} cached separately by each "
                "process (and again after a restart)")
    return f"whenever it changes, {what} {_are(imp)} processed uncached{_figure(imp)}"


def _kept_by(seg: Segment) -> str:
    """'each time `load_prompt` builds it again (it keeps the text in `self.system_prompt`, which its
    requests re-send until then)' for a time or id in text a method keeps on its instance
    (python/kept_text.py), else ''."""
    at = seg.evidence.rfind(KEPT)
    if at < 0:
        return ""
    method, _, attr = seg.evidence[at + len(KEPT):].strip(" )").partition(" in ")
    return (f"each time {method} builds it again (it keeps the text in {attr}, which the instance's requests "
            "re-send until then)")


def _placed_before(imp: Impact) -> str:
    """'; placed before it they could be cached' for a value in the newest user message, else ''."""
    return "; placed before it they could be cached" if imp.placed.in_newest else ""


def assumed_below(imp: Impact) -> str:
    """'the whole request stays below the 1,024-token minimum of openai:gpt-4.1 even with it moved,
    but the code names no model promptlint knows (these targets are assumed): an engine that caches
    shorter prefixes (vLLM, SGLang) loses them, and so does any provider once the prompt grows' for
    a whole request that stays below every minimum of targets assumed for it
    (`Impact.unsure_minimum`)."""
    return (f"the whole request stays below {_lowest_minimum(imp)} even with it moved, but the code names no model promptlint "
            "knows (these targets are assumed): an engine that caches shorter prefixes (vLLM, SGLang) loses them, "
            "and so does any provider once the prompt grows past its minimum")


def _lowest_minimum(imp: Impact) -> str:
    """'the 1,024-token minimum of openai:gpt-4.1': the lowest minimum of the impact's targets."""
    t = min(imp.targets, key=lambda x: x.minimum or 0)
    return f"the {t.minimum:,}-token minimum of {t.target}" if t.minimum else "the minimum of " + t.target


def stays_below(imp: Impact) -> str:
    """'that sends more than this prompt (static text before it, or a conversation after it);
    alone, this prompt stays below the 1,024-token minimum of openai:gpt-4.1': the clause of a
    prompt string built apart from its request whose static text stays below every minimum
    (`Impact.costs_nothing`), where what it loses depends on what the request adds."""
    minimum = _lowest_minimum(imp)
    more = ("more text after it: the conversation is written in this prompt, before the value" if imp.after_conversation
            else "a conversation after it")
    return f"that sends more than this prompt (static text before it, or {more}); alone, this prompt stays below {minimum}"


def fix_of(seg: Segment):
    """The segment's fix: the one the old analysis built (`seg.fix`), else the one the codemod
    layer builds from the segment's anchor (parsing the file with libcst only now, when the
    finding is reported), else None."""
    if seg.fix is not None:
        return seg.fix
    if seg.anchor is None:
        return None
    from .. import codemod
    return codemod.build(seg.anchor)


_MOVE_PLACES = ("fstring-field", "concat-operand")


def move_fix(seg: Segment, imp: Impact, layout):
    """The unsafe fix that moves the value after the static text of its f-string or
    concatenation, when a sure edit exists in the diagnostic's own file and the move pays
    (`gains.move_pays`: with the value where the edit puts it, its finding is gone and the prompt
    caches more, the test `promptlint fix` applies to the fixed text), marked `moves`. None
    otherwise, so a finding offers only a fix that `fix --unsafe-fixes` applies; None at once when
    the conversation history follows the value (a move inside the string cannot take it past the
    history)."""
    if seg.span is None or imp.history_after:
        return None
    if seg.fix is None and (seg.anchor is None or seg.anchor.place not in _MOVE_PLACES):
        return None
    fix = fix_of(seg)
    if fix is None or fix.applicability is not Applicability.UNSAFE:
        return None
    from ..gains import move_pays
    if not move_pays(layout, imp, fix):
        return None
    return dataclasses.replace(fix, moves=True)


_TOOL_SCOPE = {"per-request": "new on every request", "per-conversation": "differs per conversation (per instance)",
               "per-process": "fixed per process", "per-day": "changes once a day"}


def in_tool_list(layout, kind) -> list[tuple[Segment, str]]:
    """(segment, message tail) for each value of `kind` (an id, a time) in a tool list found only
    by its name (a function or attribute named for tools, with no call seen sending it): tool
    definitions come first in a request, so the whole request after them depends on the value;
    how much that costs is not known without the request (at most info, Policy 7)."""
    if layout.source != "python-constant" or not layout.parts or any(p.role != "tools" for p in layout.parts):
        return []
    out = []
    for part in layout.parts:
        for seg in part.segments:
            if seg.kind is kind and seg.volatility.value in _TOOL_SCOPE:
                out.append((seg, f"{describe(seg)} in a tool definition, {_TOOL_SCOPE[seg.volatility.value]}: "
                                 "tool definitions come first in a request, so if this list is sent as a "
                                 "request's tools, the system prompt and history after it are cached only as "
                                 "long as the value stays the same; only its name says it is a tool list (no "
                                 "call sending it was found)"))
    return out

