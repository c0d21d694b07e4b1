"""PRM107 context-before-history."""
from __future__ import annotations

from ..impact import Rate, impacts
from ..model import Kind, Part, PromptLayout, Related, Segment, Severity, Volatility
from ..prefix import ROLE_NAMES, turn_start, unproven_slot
from ..turn_names import (conversation_named, counted_name, counter_named, placeholder_name, serialized_name,
                          turn_content)
from . import _prefix_rule as text
from .base import Rule

#: Kinds of a placeholder whose value the extraction does not know (or knows only by its name).
_PLACEHOLDERS = (Kind.TEMPLATE_VARIABLE, Kind.UNKNOWN, Kind.USER_INPUT)
#: What a value may be and still change with each turn: a value known to be fixed per
#: conversation, per day or per process decides against its name.
_PER_TURN = (Volatility.UNKNOWN, Volatility.PER_REQUEST)
_WHAT = {"retrieved": "content retrieved for each turn", "user": "the user's message",
         "examples": "examples picked for each turn", "few-shot": "few-shot examples",
         "instructions": "instructions given for each run", "counter": "the number of the current step or turn"}
#: The evidence clause of a finding on names only: `{}` is what the value is named like (`_WHAT`).
_NAMES = "only the names are the evidence: named like {}, before the placeholder named like the conversation history"
_VALUE_NAME = "only its name is the evidence: nothing known says what fills it or how often it changes"
_HISTORY_NAME = "only the name of the history placeholder says it holds the conversation"


class ContextBeforeHistoryRule(Rule):
    """## What it does
    Finds a template placeholder named like content that changes with each turn (retrieved
    context such as `context`, `relevant_chunks`, `documents`, `memories`, `knowledge`; the
    user's message; examples picked for the turn) placed before a placeholder named like the
    conversation history (`history`, `chat_history`, `{{ history | colang }}`, a loop over
    `messages`), in Jinja templates, prompt files, prompt strings and message lists of YAML or
    TOML files, and prompt templates written in Python. Few-shot `examples` count only when the
    same prompt or its prompt set (the prompts of its file) also takes content named like
    retrieved context: many prompts keep a fixed list of examples. In prompts built in Python
    (message dicts, LangChain message objects, a helper that returns or edits the system message,
    an Assistants or Azure AI agent run on a thread), the history is the conversation the message
    list replays, and a value named like such content (`kb_chunks`, `context`, `docs`,
    `additional_instructions` of a run) before it, whose source is not known, is the finding; a
    value known to be fixed (a file read once, a setting, an attribute set in `__init__`) is not,
    nor a value after the history, nor a one-shot request (no history), nor a message of a role
    of its own (a framework's `context` message). Content the code fetches with the newest user
    message is `PRM101`'s warning.
    A placeholder named like the number of the current step or turn (`{{ turn_number }}`,
    `current_step`; not a bound such as `max_steps`, nor a loop's item) is such content too. A
    count of the history written before the history itself (`Current step: {{ step_history|length
    + 1 }}` then `{% for step in step_history %}`, `{{ messages | count }}` before a loop over
    `messages`) is reported at the count: it changes whenever the history grows. Jinja templates
    written as Python prompt constants and rendered elsewhere (a framework's template wrapper) are
    read as Jinja.

    ## Why is this bad?
    The history grows by appending, so a request that sends it again could reuse its cached
    prefix, but only up to the first byte that changed. Content retrieved for the current turn,
    placed before the history, changes on every request, so the whole history after it is
    processed uncached every time, and a conversation grows longer than any instructions.
    The names of the two placeholders and their order are the only evidence (nothing says what
    fills them or how often it changes), so the finding is info. Where code fills the template
    with a value whose volatility is known, the value decides: a value fixed per conversation, per
    day or per process is no finding. One finding per prompt, at the first such placeholder.
    Content that `PRM101` already reports as a warning is that rule's finding.
    A count of the history before it is lost whenever the history grows (the count and the
    history are the same value); that the counted value is a history that grows between requests
    only its name says, so it is an info (Policy 7: names are hints, not proof).

    ## Example
    ```jinja
    Context:
    {{ context }}

    Current conversation:
    {{ history }}
    Human: {{ input }}
    ```
    Use instead: the history first, then the retrieved context with the newest message:
    `Current conversation: {{ history }}` then `Context: {{ context }}` then `Human: {{ input }}`.

    ## Fix safety
    Display-only: moving content changes the prompt.
    """

    code = "PRM107"
    brief = ("a value named like per-turn content (retrieved context, the user's message, a step number) "
             "or a count of the history, before the conversation history")
    specificity = 1
    merges_related = True  # a placeholder several prompts fill: each prompt's history is a related place
    severity = Severity.INFO
    fix_title = "Put the per-turn content after the conversation history, with the newest message"

    def check_layout(self, layout: PromptLayout):
        ordered = _ordered(layout)
        yield from self._counted(layout, ordered)
        at = next((i for i, (_p, seg, sec) in enumerate(ordered)
                   if _conversation(seg) or _names_conversation(seg) and (sec is None or sec.kind is Kind.CONDITIONAL)),
                  None)  # (a value of another variant of a Python text is no placeholder of the conversation)
        if at is None or at == 0:
            return
        history = ordered[at][1]
        known = _conversation(history)  # the conversation the analysis knows (a message list), not a name
        every = impacts(layout)
        warned = {id(imp.seg) for imp in every if imp.severity is Severity.WARNING}
        reported = {id(imp.seg) for imp in every if imp.severity is not None}
        sections = {id(imp.seg) for imp in every if imp.rate is Rate.CONDITION and imp.severity is not None}
        for part, seg, section in ordered[:at]:
            if known and part.role not in ROLE_NAMES:
                continue  # a message of a role of its own (`{"role": "context"}`): not known to be sent as text
            if seg.apart:
                continue  # a caller's value sent apart from this conversation (`Segment.apart`): not before its history
            found = _per_turn(seg, layout, ordered)
            if found is None:
                continue
            if id(seg) in warned or (section is not None and id(section) in warned) \
                    or (found[0] == "value" and id(seg) in reported):
                return  # PRM101 reports it with its cost (a warning, or a value known to change): that finding stands
            what, why = found
            where = ROLE_NAMES.get(part.role, f"{part.role} message")
            if what == "value":
                head = f"{text.describe(seg, text.why(seg))} changes on every request and"
                tail = _HISTORY_NAME
            else:
                inner = seg.kind is Kind.SERIALIZED and serialized_name(seg.expr)
                head = (f"{text.describe(seg)} serializes `{inner}`, named like {_WHAT[what]}{why}, and" if inner
                        else f"{text.describe(seg)} is named like {_WHAT[what]}{why} and")
                tail = _VALUE_NAME if known else _NAMES.format(_WHAT[what])
            if known:
                place = "the conversation history" + (f" ({history.expr})" if history.expr.startswith("the ") else
                                                        "" if _prose(history.expr) else f" {text.describe(history)}")
                note = "the conversation history placed after it"
            else:
                place = f"{text.describe(history)}, named like the conversation history,"
                note = "the placeholder named like the conversation history"
            cost = "so" if what == "value" else "if it changes with each turn,"
            message = (f"{head} comes before {place} in the {where}: {cost} the whole history after it is "
                       f"processed uncached on every request; placed after the history (with the newest message) "
                       f"it would leave the history cached ({tail})")
            at_history = history.span or history.origin  # (a conversation handed to a helper: the call)
            if at_history is None and seg.span is not None and layout.site.filename != seg.span.filename:
                at_history, note = layout.site, "the prompt built here, with the conversation history after it"
            related = [Related(at_history, note)] if at_history is not None else []
            span = seg.span
            if section is not None and id(section) in sections and section.span is not None:
                # the conditional section it is written in is reported too (PRM104): one finding, there
                if seg.span is not None:
                    related.insert(0, Related(seg.span, "the placeholder"))
                span = section.span
            yield self.diagnostic(message, span or layout.site, prompt=layout.id,
                                  related=related + text.related(seg), name_only=what != "value")
            return  # one finding per prompt (Policy 8: later per-turn values are the same cause)


    def _counted(self, layout: PromptLayout, ordered):
        """A count of a placeholder named like the conversation history (`{{ step_history|length
        + 1 }}`, `{{ messages | count }}`) placed before that placeholder (a loop over it, its
        value): the count changes whenever the history grows, so the history after it is never
        read from the cache: an info at the count (one per prompt), only the name saying the value
        is a history that grows."""
        for i, (part, seg, _section) in enumerate(ordered):
            if seg.kind not in _PLACEHOLDERS or seg.volatility not in _PER_TURN:
                continue
            name = counted_name(seg.expr)
            if not name or not conversation_named(name):
                continue
            history = next((h for _p, h, _s in ordered[i + 1:]
                            if _names_conversation(h) and placeholder_name(h.expr) == name), None)
            if history is None:
                continue
            where = ROLE_NAMES.get(part.role, f"{part.role} message")
            message = (f"{text.describe(seg)} writes the length of `{name}`, named like the conversation history, "
                       f"before {text.describe(history)} in the {where}: the count changes whenever the history "
                       f"grows, so the whole history after it is processed uncached on every request (only its name "
                       f"says it is a history that grows); placed after the history it would leave the history cached")
            related = [Related(history.span, "the history it counts, placed after it")] if history.span else []
            yield self.diagnostic(message, seg.span or layout.site, severity=Severity.INFO, prompt=layout.id,
                                  related=related)
            return


def _ordered(layout: PromptLayout) -> list[tuple[Part, Segment, Segment | None]]:
    """The dynamic segments of the layout's parts in request order (tools left out), each
    followed by the placeholders of its conditional section or loop body (`Segment.inner`):
    (part, segment, the section it is written in or None). This turn's own messages after the
    newest user message (the model's reply and the tool results, `prefix.turn_start`) are no
    history: they are left out."""
    out: list[tuple[Part, Segment, Segment | None]] = []
    for part in layout.parts[:turn_start(layout)]:
        if part.role == "tools":
            continue
        for seg in part.segments:
            if seg.is_static:
                continue
            out.append((part, seg, None))
            out.extend((part, inner, seg) for inner in seg.inner)
    return out


def _names_conversation(seg: Segment) -> bool:
    """A placeholder named like the conversation history whose value is not known to be
    something else (a history the analysis knows is a `history` segment: PRM101 judges it)."""
    return seg.kind in (Kind.TEMPLATE_VARIABLE, Kind.UNKNOWN) and seg.volatility in _PER_TURN \
        and conversation_named(placeholder_name(seg.expr)) and not counted_name(seg.expr)  # (its count is not it)


def _prose(expr: str) -> bool:
    """An expression text that is words, not code (`conversation history`)."""
    return " " in expr.strip() and not any(c in expr for c in "([.'\"`_")


def _conversation(seg: Segment) -> bool:
    """The conversation history as the analysis knows it from Python code (a `history` segment: a
    list replayed and grown across turns, `*history`, `MessagesPlaceholder`), whole (not the
    older part a compaction summarises) and known to hold the conversation's messages (not a
    message placeholder nothing is shown to fill with them: `prefix.unproven_slot`)."""
    return seg.kind is Kind.HISTORY and not seg.older and not seg.unconfirmed and not unproven_slot(seg)


def known_per_request(seg: Segment) -> bool:
    """True when the code fills the placeholder with a value known to change on every request
    (not only by a name, nor by the assumption that a template's placeholders are filled per
    call): the value decides, whatever its name."""
    return seg.volatility is Volatility.PER_REQUEST and not seg.name_only and seg.origin is not None


def _per_turn(seg: Segment, layout: PromptLayout, ordered) -> tuple[str, str] | None:
    """(what the value is, the words of further evidence) for a placeholder that changes with
    each turn: by its value (`known_per_request`), else by its name; None otherwise."""
    serialized = seg.kind is Kind.SERIALIZED and serialized_name(seg.expr)
    if seg.kind not in _PLACEHOLDERS and not serialized or seg.volatility not in _PER_TURN:
        return None
    if known_per_request(seg):
        return "value", ""
    name = serialized or placeholder_name(seg.expr)
    what = turn_content(name)
    if what is None and counter_named(name) and not _loop_target(name, ordered, seg):
        return "counter", ""
    if what is None:
        return None
    if what != "few-shot":
        return what, ""
    names = [placeholder_name(s.expr) for _p, s, _sec in ordered if s.kind is not None]
    retrieved = sorted({n for n in names if turn_content(n) == "retrieved"} | set(layout.set_retrieved))
    if not retrieved:
        return None
    shown = ", ".join(f"`{n}`" for n in retrieved[:3])
    return what, f" (its prompt set also takes {shown}, named like content retrieved for each turn)"


def _loop_target(name: str, ordered, seg: Segment) -> bool:
    """True when `name` is a target of a loop the placeholder `seg` is written in (`{% for turn in
    examples %}{{ turn }}`: an item, not a counter)."""
    import re
    for _p, s, section in ordered:
        if s is seg and section is not None:
            m = re.match(r"\s*for\s+(.+?)\s+in\s", section.expr or "")
            if m and name in re.findall(r"[A-Za-z_]\w*", m.group(1)):
                return True
    return False
