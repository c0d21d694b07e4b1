"""PRM101 dynamic-before-static."""
from __future__ import annotations

from ..impact import Rate, impacts, rate_of
from ..model import Kind, PromptLayout, Related, Severity
from ..prefix import MIN_STATIC_AFTER
from ..python.fetched_tool_fields import find_fetched_tool_fields
from . import _prefix_rule as text
from ._history_first import WARN_TOKENS, history_first
from .base import Rule

_OWN_RULE = {Kind.TIMESTAMP, Kind.UNIQUE_ID, Kind.CONDITIONAL, Kind.HISTORY, Kind.SERIALIZED,
             Kind.UNORDERED_ITERATION}
_WHAT = {Rate.REQUEST: "Per-request content", Rate.CONVERSATION: "Per-conversation content",
         Rate.UNKNOWN: "Content of unknown volatility"}


#: The help line of a user message placed before the conversation history (`[("system", RULES),
#: ("user", "{question}"), MessagesPlaceholder("history")]`): the history moves, not the message.
_HISTORY_LAST = "Put the conversation history before this message: the newest user message goes last"
#: The help line of a value of unknown volatility that opens the system prompt (`system=self.system_prompt`,
#: a template's rendering): most often the application's own system prompt, set once and cached as it
#: is; moving it into the user message would be wrong advice then.
_SYSTEM_HEAD = ("If this value changes between requests, move it after the static content; a system prompt "
                "set once for the application is cached as it is")


def _advice(imp) -> str | None:
    """The help line of one finding: the history first for a user message before it, a conditional
    move for a value of unknown volatility that opens the system prompt, else the rule's own."""
    placed = imp.placed
    if imp.history_after and placed.part.role == "user":
        return _HISTORY_LAST
    if imp.rate is Rate.UNKNOWN and placed.part.role == "system" and placed.static_before == 0 \
            and not placed.values_before:
        return _SYSTEM_HEAD
    return None


class DynamicBeforeStaticRule(Rule):
    """## What it does
    Finds per-request or per-user content (the user's message, data fetched with it such as
    retrieved memories or documents) placed before static content or before the conversation
    history, and static instructions placed after the per-request content of a one-shot prompt's
    newest user message (an image or a document block counts as content where it is written).
    A value the code does not read there is the request's input, per request, unless it is a
    parameter of the call and the request's known input (a parameter named as the user's input, a
    loop's element, a field of the request), read from another name, comes after it in the
    message: then the parameter is of unknown volatility, info (the graph's schema before
    `Question: {question}`, the same for every question).
    The replayed conversation placed before static parts of the request (`[MessagesPlaceholder(
    "chat_history"), ("system", RULES), ...]`, `[*history, {"role": "system", ...}, ...]`) is
    reported at the history: each turn appends to it, so the static text after it moves and is
    processed uncached on every turn; a warning when that text holds at least 1,024 tokens and the
    history is the only growing part, else info (an agent's scratchpad after it: the steps of one
    turn still share it).
    Text that a method of an object writes into the system message of the conversation the object
    keeps (`self.planner.set_system_prompt(self.planner.system_prompt.replace("TASK", task))`, the
    method writing `self.messages[0]`) is judged as that system message followed by the
    conversation; content written there on the first turn only (`if self.turn == 0:`) is re-sent
    unchanged with the conversation, so the history after it is not lost to it (the static text
    after it is).
    A message placeholder after the value that nothing shows to hold the conversation (an optional
    `MessagesPlaceholder("chat_history")` that no other code of its module names, so nothing there
    fills it; one named for something else, `function_response`, that may hold the request's own
    messages) is no proof of a history: a finding that rests on it is info.
    An image or document that changes per request, put before the prompt text a function takes
    whole from its callers and sends (`[*image_blocks, {"type": "text", "text": prompt}]`), is
    info: the callers' prompts may share their instructions, which the image keeps from being
    cached, but how much they share is not known there.
    A system message rendered from a template whose text is not in the code (a configuration, a
    docstring: `Template(self.config.system_message).render(data)`, `system_prompt.format(**row)`)
    with the values the user message is made from (`user = Template(...).render(**data)`,
    `json.dumps(data)`) places per-request values wherever its template asks: info, at the render.
    A value a function awaits on each call and writes into the text of a tool definition it builds
    (`tool_spec["description"] += f"The current working directory is: {cwd}"` after `cwd = await
    get_cwd(url)`) sits in the tools, before the system prompt and the history: info, where the value
    enters the definition (how often it changes is not known).
    A value of each pass of a loop that sends one request per element (`for kp in points:
    send(TEMPLATE.format(key_point=kp, summary=summary))`, or a function called once per element)
    placed before text every pass sends the same (text computed before the loop, a parameter, an
    argument that does not read the element: `summary`) is info when the static text alone gives
    no finding: that text is processed uncached on every request of the loop but the first, and
    its size is not known.

    ## Why is this bad?
    Everything after the first changed byte is a cache miss. Per-request content at the end of the
    system prompt still sits before the history, so the largest part of a long conversation is
    re-processed on every turn. In a one-shot prompt, instructions after the user's text are never
    cached; placed before it they would be. The severity follows what the provider would cache:
    a warning when cached tokens are lost on most requests; info when the loss is small, when the
    content's volatility is unknown (a parameter, an attribute), or in prompt text built apart from
    its request whose static text alone stays below the model's minimum even reordered (a request
    that sends more with it loses that text), or in a whole request whose code names no model
    promptlint knows and that stays below the minimums of the targets assumed for it even
    reordered, when a value known to change per request precedes at least 128 static tokens (an
    engine that caches shorter prefixes, such as vLLM or SGLang, loses them); nothing when nothing
    cacheable follows, or when a whole request's static text stays below every minimum of its
    known model even reordered (nothing is lost).

    ## Example
    ```python
    messages = [{"role": "system", "content": RULES + recalled_memories}, *history]
    ```
    Use instead: keep the system message static and send the per-turn content with the newest
    user message.

    ## Fix safety
    Moving content between messages changes the prompt: unsafe.
    """

    code = "PRM101"
    brief = "per-request content (the user's message, data fetched with it) before static content or history"
    specificity = 4
    fix_availability = "sometimes"
    fix_title = "Move the dynamic content after the static content (e.g. into the newest user message)"

    def check_layout(self, layout: PromptLayout):
        every = impacts(layout)
        for imp in every:
            seg = imp.seg
            if (seg.kind in _OWN_RULE and not _changing_data(seg, imp.rate)) or imp.rate not in _WHAT:
                continue
            severity = imp.severity
            if severity is None:
                continue
            message = (f"{_WHAT[imp.rate]} {text.describe(seg, text.why(seg), within=True)} "
                       f"{text.position(imp.placed, imp.complete)}: {text.cost(imp)}{text.evidence(seg)}")
            yield self.diagnostic(message, seg.span or layout.site, severity=severity, prompt=layout.id,
                                  related=text.related(seg) + _shared(imp) + _earlier(every, imp) + _conversation_after(layout, seg)
                                  + _merged(every, imp),
                                  fix=text.move_fix(seg, imp, layout), name_only=seg.name_only,
                                  advice=_advice(imp))
        yield from self._before_passed_prompt(layout)
        yield from self._after_history(layout)

    def check_module(self, module):
        """Info at a system message rendered from a template whose text is not in the code with the
        values the user message is made from (`python/unseen_templates.py`), and at a value awaited
        on each call written into a tool definition (`python/fetched_tool_fields.py`)."""
        for render, user, template, values in module.facts.get("unseen_templates", ()):
            message = (f"The system message is rendered here from a template whose text is not in the code "
                       f"(`{template}`) with `{values}`, the values the user message is made from: whatever of "
                       "them the template places changes with each request, before everything that follows the "
                       "system message (examples, the conversation history), which is then processed uncached "
                       "(which values the template places is not known here: how much it costs is not known); "
                       "keep per-request values out of the system template and put them in the user message")
            yield self.diagnostic(message, module.span(render), severity=Severity.INFO,
                                  related=[Related(module.span(user), f"the user message made from `{values}` here")])
        for f in find_fetched_tool_fields(module):
            message = (f"`{f.name}`, a value `{f.function}` awaits anew on every call (line {f.fetched.lineno}), is "
                       f"written into a tool definition ({f.target}): the tool definitions come first in every "
                       "request, before the system prompt and the history, so whenever the value differs from the "
                       "previous request's, the whole prefix is processed uncached (how often it changes is not known "
                       "here); keep tool definitions fixed and send the value in the newest message or a tool result")
            yield self.diagnostic(message, module.span(f.node), severity=Severity.INFO,
                                  related=[Related(module.span(f.fetched), "value fetched here")])

    def _after_history(self, layout: PromptLayout):
        """Static parts after the replayed conversation (`rules/_history_first.py`): processed
        uncached on every turn. A warning when they hold at least the lowest minimum a provider
        caches and the history is the only growing part; info when the turn grows its own
        messages after them (an agent's scratchpad: its steps share the prefix within a turn)."""
        found = history_first(layout)
        if found is None:
            return
        history, static, tokens, grown = found
        shown = next((s for s in history.segments if not s.is_static), None)
        bare = shown is None or not shown.evidence  # (a template's placeholder: no expression of the code to name)
        named = "" if bare else f" {text.describe(shown)}"
        where = ", ".join(dict.fromkeys("the system prompt" if p.role == "system" else f"a {p.role} message"
                                        for p in static))
        severity = Severity.WARNING if tokens is not None and tokens >= WARN_TOKENS and not grown else Severity.INFO
        size = (f"{tokens:,} static token{'s' if tokens != 1 else ''}" if tokens is not None else
                f"{text.describe(static[0].segments[0])}, not read here: its size is not known")
        within = (" (the steps within one turn, which add after them, still share them)" if grown else "")
        message = (f"The conversation history{named} comes first, before {where} ({size}): each turn adds to the history, so the static text after it "
                   f"sits at another place in the next request and is processed uncached on every turn{within}; "
                   "put the static instructions first and the history after them")
        span = next((s.span for s in history.segments if s.span is not None), None) or history.span or layout.site
        related = [Related(p.span, "static text placed after the history") for p in static[:1] if p.span is not None]
        yield self.diagnostic(message, span, severity=severity, prompt=layout.id, related=related,
                              advice="Put the static instructions before the conversation history")

    def _before_passed_prompt(self, layout: PromptLayout):
        """Info at an attachment (an image, a document) that changes per request or per
        conversation, placed before the prompt text an adapter takes whole from its callers in
        the same message (`passes_prompt`: `[*image_blocks, {"type": "text", "text": prompt}]`):
        the callers' prompts (instructions, then the request's data) may share their beginning,
        which the attachment before it keeps from being cached; how long it is is not known."""
        if not layout.passes_prompt:
            return
        for part in layout.parts:
            if part.role != "user":
                continue
            segs = [s for s in part.segments if not s.is_static or s.text.strip()]
            text_at = next((i for i, s in enumerate(segs) if not s.is_attachment), None)
            first = segs[0] if segs and text_at else None
            if first is None or not first.is_attachment or rate_of(first) not in (Rate.REQUEST, Rate.CONVERSATION):
                continue
            prompt = segs[text_at]
            if prompt.kind is Kind.USER_INPUT:  # the user's own question (`question`): no instructions to share
                continue
            how = "on every request" if rate_of(first) is Rate.REQUEST else "in each conversation"
            message = (f"{_WHAT[rate_of(first)]} {text.describe(first, first.evidence.split(', ', 1)[-1])} comes "
                       f"before the prompt text its callers pass (`{prompt.expr}`) in the same message: whatever "
                       f"instructions their prompts share at their start are processed uncached {how}; with the "
                       "text first and the attachment after it they could be cached (how much they share is not "
                       "known here; some providers advise the image first for answer quality: weigh the two)")
            related = [Related(prompt.span, "the prompt text")] if prompt.span is not None else []
            yield self.diagnostic(message, first.span or layout.site, severity=Severity.INFO, prompt=layout.id,
                                  related=related + text.related(first))


def _shared(imp) -> list:
    """Where the text after a value of each pass of a loop that every pass sends the same enters
    the prompt (`Impact.shared`), for a finding that rests on it (`Impact.loop_only`)."""
    span = imp.shared.seg.span if imp.loop_only else None
    return [Related(span, "the same in every pass of the loop: sent after the value")] if span is not None else []


def _changing_data(seg, rate) -> bool:
    """True for serialized data whose content changes per request or per conversation, sorted or
    not (`json.dumps(hits, sort_keys=True)` of data fetched with the user's message, `json.dumps(docs)`
    of documents retrieved for the turn): per-request content like any other, placed before what
    could be cached. Sorting its keys would not make it cacheable (PRM201 judges only the key order
    of data whose content may repeat)."""
    return seg.kind is Kind.SERIALIZED and rate in (Rate.REQUEST, Rate.CONVERSATION)


MAX_MERGED = 5  # later values named with a finding: a few places to look at, not a listing


def _earlier(every, imp) -> list:
    """The values of unknown volatility placed before the finding's value in the same prompt, with
    no finding of their own (the "values of unknown length" its message counts before it), where
    each enters the prompt, at most MAX_MERGED, one per line; not those in the newest user message
    of a one-shot request (the request's own content there: Policy 3): when one changes with each request as well, it
    breaks the prefix first, and moving only the finding's value gives nothing back (Policy 8:
    the finding stands for them; its value is the one known to change).

    `f"...{input}...{entities}...{context_section}...RUBRIC"` (`input` a parameter, `context_section`
    built from `retrieval_context`) -> the finding on `{context_section}` names `{input}` and `{entities}`."""
    own = imp.seg.span
    seen = {own.row} if own is not None else set()
    out = []
    for other in every:
        if other is imp or not other.placed.cut < imp.placed.cut:
            continue
        if other.rate is not Rate.UNKNOWN or other.seg.kind in _OWN_RULE or other.severity is not None \
                or other.placed.in_newest or (other.seg.same is not None and other.seg.same == imp.seg.each):
            continue  # (in the newest user message: the request's own content, Policy 3)
        span = other.seg.span
        if span is None or own is None or span.filename != own.filename or span.row in seen:
            continue  # (one place per line: a value built of several pieces on it is named once)
        seen.add(span.row)
        out.append(Related(span, f"an earlier value, {text.describe(other.seg)}, of unknown volatility: if it "
                                 "changes with each request too, it breaks the prefix first and must move as well",
                           evidence=False))
        if len(out) == MAX_MERGED:
            break
    return out


def _merged(every, imp) -> list:
    """The later values of the prompt that this finding stands for (Policy 8: they change at least
    as often, so moving only the first one would not help; when its volatility is unknown, the
    one that does change may be any of them) and that have cacheable text after them (MIN_STATIC_AFTER
    tokens, or the history): where each enters the prompt, on other lines than
    the finding's, at most MAX_MERGED, each line and each expression once (a value written three
    times is named at its first later place).

    `f"{prompt}...{update_instructions}...{trajectories}..."` -> the finding on `{prompt}` names
    `{update_instructions}` and `{trajectories}`."""
    own = imp.seg.span
    seen = {own.row} if own is not None else set()
    named = set()
    out = []
    for other in every:
        if other.merged_into is not imp.placed or other.seg.kind in _OWN_RULE \
                or not (other.history_after or other.static_after >= MIN_STATIC_AFTER):
            continue  # nothing cacheable after it (the task id at the very end): it breaks nothing
        if other.seg.same is not None and other.seg.same == imp.seg.each:
            continue  # (the same in every pass of the value's loop: `_shared` names it)
        span = other.seg.span
        if span is None or span.row in seen or (own is not None and span.filename != own.filename) \
                or other.seg.expr in named:
            continue
        seen.add(span.row)
        named.add(other.seg.expr)
        what = f"a later value, {text.describe(other.seg)}"
        if other.seg.expr == imp.seg.expr:
            note = "the same value again: it must move as well"
        elif other.rate is Rate.UNKNOWN:
            note = f"{what}, of unknown volatility: when it changes, it breaks the prefix as well"
        else:
            note = f"{what}, {other.rate.value}: the same cause, it must move as well"
        out.append(Related(span, note, evidence=False))
        if len(out) == MAX_MERGED:
            break
    return out


def _conversation_after(layout: PromptLayout, seg) -> list:
    """Where the code puts the conversation after the system prompt that holds `seg`
    (`messages[0]["content"] += prompt`, `build_messages(query, prompt, history)`), when the
    analysis found it there (python/handoff.py: the history segment's origin and note); none for a
    value of a caller that keeps its requests out of that conversation (`Segment.apart`)."""
    if seg.apart:
        return []
    parts = layout.parts
    at = next((i for i, p in enumerate(parts) if any(s is seg or s == seg for s in p.segments)), None)
    if at is None:
        return []
    for p in parts[at + 1:]:
        for s in p.segments:
            if s.kind is Kind.HISTORY and s.origin is not None and s.origin_note:
                return [Related(s.origin, s.origin_note)]
    return []
