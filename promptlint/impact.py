"""The cache-impact model: what a dynamic segment costs a user, per request and per target model.

For each dynamic segment of a prompt's shareable prefix (`prefix.placed_segments`) and each target
of the prompt (its call's provider and model, else the configured or default targets; the same
targets as the prompt's `estimates` and `promptlint explain`), the model states:

- how often the segment's text changes (`Rate`): per request, per conversation, once a day, once
  per process (a value fixed at import), once a month, unknown, or by a condition. A timestamp's
  precision decides (docs/policies.md, Policy 1): a date changes once a day whatever its
  volatility says.
- which part of the request the provider can cache: the prefix a later request shares, cut at the
  last explicit breakpoint on opt-in APIs (Anthropic: nothing after it is cached), nothing at all on
  an opt-in API without a breakpoint or on a model without prompt caching (the loss is then
  dormant: it starts when caching does), rounded to the minimum and increments of the target.
- the cached tokens per request now and with the segment's content moved after the cacheable text
  (`TargetLoss.now`, `.fixed`), in the target's tokenizer (an estimate for Claude and Gemini).
- the severity that follows (Policy 4, 7): a warning when cached tokens are lost on most requests,
  info when the loss is rare (a date, a value fixed per process), small, or the value's volatility
  is unknown, nothing when nothing cacheable follows.

One root cause is one impact (Policy 8): a segment is `first` only when no earlier segment of the
prompt changes at least as often; the static text after the first one counts up to the next segment
that changes more often (`static_after`), not only up to the next placeholder.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from .classify import drawn_at_random
from .estimates import Cut, is_exact, target_profiles, token_range, tokens_before
from .impact_geometry import Geometry
from .model import Kind, PromptLayout, Segment, Severity, Volatility
from .prefix import MIN_STATIC_AFTER, Placed, history_between, loop_shared, placed_segments, slot_after
from .profiles import DEFAULT_TARGETS, Profile, UnknownTargetError, canonical_provider, lookup
from .rates import RARE, Rate, blocks, rate_of, stops
from .turn_names import written_conversation

# A loss below this many target tokens, or below SMALL_SHARE of what would be cached, is small:
# OpenAI caches in 128-token increments (models before GPT-5.6, §1.1 of
# https://github.com/openai/openai-cookbook/blob/main/examples/Prompt_Caching_201.ipynb), so a
# smaller difference is within the rounding of the most common automatic cache.
SMALL_LOSS = 128
SMALL_SHARE = 0.10
# A fragment (a template or prompt file, a prompt constant) whose request is not known: a date is
# worth a note only before this much static text.
FRAGMENT_DAY_STATIC_AFTER = 64
UNKNOWN_STATIC_AFTER = 256
"""The rule of evidence for prompt text built in Python whose send was not found (`sent_apart`): a
value in it (any kind: per-request, per-conversation, unknown, a time, an id, a condition, unsorted
JSON) is reported only when at least this many o200k tokens of static text, or the conversation
history, follow it; an unordered iteration before less is info (PRM202: its items are the same
content in another order, so their own text is at stake, not only the tail). Without the request, the static text after the value is all that
is known to be lost, and what the request adds is not guessed (Policy 5). Less is not worth
caching on its own: it is two of OpenAI's 128-token cache increments (a loss within one or two
increments is within the rounding of the most common automatic cache, SMALL_LOSS) and a quarter of
the smallest minimum of the automatic caches (1,024 tokens, FRAGMENT_MINIMUM; Gemini 2.5 Flash
2,048, Claude Haiku 4.5 4,096), so a prompt with less after its value needs three times as much
text from elsewhere before the loss counts at all. A finding whose whole request is known keeps
its own figures (`Impact.severity`), however short the tail; so does a system or developer message
(`before_conversation`: the conversation follows it, Policy 2), a prompt file, a template or a
framework system prompt (Policy 5)."""
VALUE_STATIC_AFTER = SMALL_LOSS
"""The rule of evidence for a value known to change per request or per conversation (PRM101's
values, and a clock reading or an id whose source proves that it does: `uuid4()`, `random.choice(...)`,
`datetime.now()` to the second; nor a time or an id known only by its name, a condition or an
order, which keep UNKNOWN_STATIC_AFTER), and a value of unknown volatility (`Impact._unknown`: it may
be configuration, so at most info whatever follows it below UNKNOWN_STATIC_AFTER), in prompt
text built apart from its request (`sent_apart`) or in a template or prompt file: at least one of
OpenAI's 128-token cache increments (SMALL_LOSS) of static text after it, or the conversation history. A short prompt that opens with a row's data or the user's
text before its instructions (`f"Question: {q}\n\n" + RULES`) has none of its instructions
shareable; one increment of them is worth a note, never a warning: below UNKNOWN_STATIC_AFTER such
a finding is at most info (Policy 4: a prompt far below every minimum)."""
# The smallest minimum of the automatic caches (OpenAI, 1,024 tokens:
# https://developers.openai.com/api/docs/guides/prompt-caching): a fragment whose whole static text
# stays below it loses cached tokens only in a request that adds more.
FRAGMENT_MINIMUM = 1024
# Per-request content before less static text than this (labels, tags) is not worth a note when
# the loss is small or nothing is cached either way.
INFO_STATIC_AFTER = 32


_OWN_KINDS = (Kind.SERIALIZED, Kind.UNORDERED_ITERATION)  # PRM201 / PRM202: their rate is not about the text
_OWN_CAUSE = (Kind.TIMESTAMP, Kind.UNIQUE_ID)  # PRM102 / PRM103: reported even behind another value


@dataclass
class TargetLoss:
    """Cached tokens per request on one target, in its tokenizer: `now` with the segment where it
    is, `fixed` with its content moved after the cacheable text. `dormant` is set when nothing of
    the request is cached on this target today (an opt-in API without a breakpoint, a model without
    prompt caching): the figures then say what caching would give once it is on. `minimum` is the
    target's minimum cacheable prefix (None: not documented)."""

    target: str
    exact: bool
    minimum: int | None
    now: int
    fixed: int
    dormant: str = ""
    sure: bool = True  # False: `fixed` reaches the minimum only on the estimate, not on its lowest plausible count, or
    # (automatic) by < SMALL_LOSS tokens after it, past values of unknown length that may reach it (`Placed.values_before`)


    @property
    def lost(self) -> int:
        return max(self.fixed - self.now, 0)

    @property
    def big(self) -> bool:
        """True when the loss is neither zero nor small (SMALL_LOSS, SMALL_SHARE) and does not hang
        on a tokenizer estimate (`sure`)."""
        return self.sure and self.lost >= max(SMALL_LOSS, SMALL_SHARE * self.fixed)

    def amount(self, n: int) -> str:
        """'1,408' for an exact count, 'about 1,630' for an estimate."""
        return f"{n:,}" if self.exact or n == 0 else f"about {n:,}"

    def cached(self, n: int) -> str:
        """'1,408 cached tokens', '1 cached token', 'about 1,630 cached tokens'."""
        return f"{self.amount(n)} cached token{'' if n == 1 else 's'}"


@dataclass
class Impact:
    """What one dynamic segment costs (see the module docstring). `static_after` (o200k tokens)
    and `history_after` count what follows it up to the next segment that changes more often;
    `complete` is True when the whole request is known (`is_complete`), False for a fragment (a
    template, a prompt file or constant, a system prompt a framework sends) whose request may add
    more after it (the history of a chat, more instructions), so its
    sizes are lower bounds and minimums cannot excuse it (Policy 5). `before_lost` (o200k tokens)
    is the static text before the segment that an explicit breakpoint after it ties to it (no
    breakpoint closes it earlier): it is lost with the segment. `sized` is True when the known text
    is what the severity is judged on, minimums included (Policy 4): a whole request, or a prompt
    string built in Python with no call found, which may be any part of a request (a template
    filled by `.format` elsewhere, a message list); False for a prompt file, template or config
    string, or a system prompt a framework sends, which a conversation of unknown size follows
    (Policy 5: that size is not guessed). `behind` is, for a timestamp or an id (its own root cause,
    with its own fix), the earlier value of another kind that changes at least as often: both must be
    fixed for the cache to come back. `unsure_end` is True when what follows the segment counts up
    to a breakpoint whose place is not known (`PromptLayout.history_marker`: a statement marks a
    block that may be in the history): the loss is uncertain, at most info (Policy 7). `merged_into`
    is, for a segment that is not `first`, the earliest value before it that already causes what it
    would (its finding stands for this one and names it)."""

    placed: Placed
    rate: Rate
    first: bool
    static_after: int
    history_after: bool
    complete: bool
    targets: list[TargetLoss] = field(default_factory=list)
    part_has_static: bool = False
    before_lost: int = 0
    sized: bool = True
    behind: Placed | None = None
    unsure_end: bool = False
    between: int = 0  # other dynamic segments inside the `static_after` span: it is not one run
    merged_into: Placed | None = None  # not `first`: the earlier value whose finding stands for it (Policy 8)
    after_conversation: bool = False  # a prompt file's value after the conversation it writes (`written_conversation`)
    assumed: bool = False  # the targets are the default ones: the code names no provider promptlint knows (`assumed_targets`)
    shared: Placed | None = None  # text after it the same in every pass of the loop that makes it new (`loop_shared`)
    drawn: bool = False  # elements drawn at random per request (`classify.drawn_at_random`), the first value of the
    # prompt that may change, with text of unknown size after them (a value of its own)
    slot: Segment | None = None  # the first placeholder of a history after it of such only (`prefix.slot_after`)

    @property
    def seg(self):
        return self.placed.seg

    @property
    def worst(self) -> TargetLoss | None:
        """The target that loses the most (the first one on a tie), or None without targets."""
        return max(self.targets, key=lambda t: t.lost, default=None)

    @property
    def live(self) -> list[TargetLoss]:
        return [t for t in self.targets if not t.dormant]

    @property
    def dormant(self) -> bool:
        """True when nothing of the request is cached on any target today."""
        return bool(self.targets) and not self.live

    @property
    def below_minimum(self) -> bool:
        """True when even with the segment moved, the static text stays below every minimum."""
        return bool(self.targets) and all(t.fixed == 0 for t in self.targets)

    @property
    def costs_nothing(self) -> bool:
        """True when the figures show no loss: a prompt judged on its size (`sized`) whose static
        text stays below every target's minimum even with the value moved (`below_minimum`), with
        no history after a per-request value and no breakpoint-closed text at stake. A whole
        request then loses nothing (no finding); a prompt string built apart from its request
        loses its text after the value only in a request that sends more."""
        return (self.sized and self.below_minimum and not self.before_lost
                and not (self.history_after and self.rate is Rate.REQUEST))

    @property
    def unsure_minimum(self) -> bool:
        """True for a value of a whole request that changes with each request and is followed by at
        least VALUE_STATIC_AFTER o200k tokens of static text, where the request stays below every
        minimum only on targets assumed for it (`assumed`: the code names no provider or model
        promptlint knows, so the default targets stand in): the application may send it to an
        engine that caches shorter prefixes (vLLM caches every full 16-token block, SGLang any
        prefix), where those tokens are lost on every request. Worth a note (info), not nothing
        and not a warning (Policy 4, 7); not for a value known only by its name (`query`: two
        assumptions, the targets and the volatility, are one too many), nor for one written only
        when an option that is off by default is on (`Segment.gate`: the same)."""
        return (self.assumed and self.complete and self.costs_nothing and self.rate is Rate.REQUEST
                and not self.seg.name_only and not self.seg.gate and self.static_after >= VALUE_STATIC_AFTER)

    @property
    def severity(self) -> Severity | None:
        """The finding's severity from the figures (None: no finding); see the module docstring.
        A prompt `sent_apart` needs `worth_caching` (UNKNOWN_STATIC_AFTER). A value of each pass of
        a loop placed before text that every pass sends the same (`shared`) is info when the
        figures give nothing: that text is lost on every pass but the first, its size not known."""
        judged = self._judged()
        if judged is None and (self.loop_only or self.drawn_only):
            return Severity.INFO
        if judged is Severity.WARNING and self.rests_on_slot:
            return Severity.INFO
        return judged

    @property
    def rests_on_slot(self) -> bool:
        """True when the history after the value is only message placeholders not shown to hold the
        conversation (`slot`) and the figures without it give no warning: no proof of one (Policy 7)."""
        return self.slot is not None and replace(self, history_after=False, slot=None)._judged() is not Severity.WARNING

    @property
    def drawn_only(self) -> bool:
        """True for elements of a collection drawn at random on every request (`drawn`: a few-shot
        block `random.sample(pool, 4)` with more of the prompt after it) in a prompt whose request
        is not known (not `complete`), where the figures give nothing: the drawn text itself, static
        text of the pool in another selection or order, is shared by no two requests, and what
        follows it with it; its size is not known (a pool loaded at run time): a note."""
        return self.drawn and self.first and not self.complete and self.rate is Rate.REQUEST and self._judged() is None

    @property
    def loop_only(self) -> bool:
        """True when the finding rests on the text after the value that is the same in every pass
        of its loop (`shared`) alone: the figures of the static text give nothing."""
        return self.shared is not None and self.first and self.rate is Rate.REQUEST and self._judged() is None

    def _judged(self) -> Severity | None:
        if not self.first:
            return None
        apart = self.sized and not self.complete and not before_conversation(self.placed.part.role)
        if not worth_caching(apart, self.static_after, self.history_after):
            if not (apart and self.static_after >= VALUE_STATIC_AFTER):
                return None
            if self._unknown():  # (one run of one increment after a value that may change: a note, never more)
                return None if self.unsure_end or self.between else Severity.INFO
            if not self._value():
                return None
            return Severity.INFO if self._severity() is not None else None  # (one increment: a note)
        if self.unsure_end:
            return Severity.INFO if self._severity() is not None else None
        return self._severity()

    def _unknown(self) -> bool:
        """True for a value of unknown volatility held to `VALUE_STATIC_AFTER` in prompt text built
        apart from its request (a parameter, an attribute, a call's result: `f"{query_str}\n" + RULES`),
        not a time, an id or a condition, which keep UNKNOWN_STATIC_AFTER (their own rules judge
        them, and their names are the weaker evidence). `severity` asks, besides, that the static
        text after it be one run (`between` 0): with other values inside it, each of which may
        change as well, no increment of it is shown to be lost to this value alone (labelled
        packages call such short one-shot prompts clean: input, then output, then a rubric)."""
        return self.rate is Rate.UNKNOWN and self.seg.kind not in _OWN_CAUSE and self.seg.kind is not Kind.CONDITIONAL \
            and not self.seg.name_only

    def _value(self) -> bool:
        """True for a value held to `VALUE_STATIC_AFTER`: per request or per conversation, PRM101's
        values, and a time or an id (PRM102, PRM103) whose source proves it changes (`uuid4()`,
        `random.choice(...)`, `datetime.now()`: evidence at least as sure as a per-request value
        known by its name); a time or an id known only by its name (`request_id`) is not."""
        if self.rate not in (Rate.REQUEST, Rate.CONVERSATION):
            return False
        return self.seg.kind not in _OWN_CAUSE or not self.seg.name_only

    def _severity(self) -> Severity | None:
        some = self.static_after >= MIN_STATIC_AFTER
        note = self.static_after >= INFO_STATIC_AFTER
        if not self.sized:
            judged = self._fragment_severity(some)
            # the model the code names caches nothing of a request today (a family with no implicit
            # caching): what it costs is at most a note, as for a whole request (`_sized_severity`)
            return Severity.INFO if judged is not None and self.dormant else judged
        judged = self._sized_severity(some, note)
        if self.complete or judged is Severity.WARNING:
            return judged
        # a prompt string with no call found: a warning needs the known text to prove the loss,
        # but what the request may add after it is worth a note (at most info)
        return Severity.INFO if self._fragment_severity(some) is not None else judged

    def _sized_severity(self, some: bool, note: bool) -> Severity | None:
        if not self.targets:
            return None
        if self.dormant:
            potential = any(t.big for t in self.targets) or (self.history_after and self.rate is Rate.REQUEST)
            return Severity.INFO if potential and self.rate in (Rate.REQUEST, Rate.CONVERSATION) else None
        live = self.live
        big = any(t.big for t in live)
        history = self.history_after
        if self.rate is Rate.REQUEST:
            if history or big:
                return Severity.WARNING
            return Severity.INFO if note and (not self.costs_nothing or self.unsure_minimum) else None
        if self.rate is Rate.CONVERSATION:
            return Severity.WARNING if big else Severity.INFO if any(t.lost for t in live) else None
        if self.rate in RARE:
            return Severity.INFO if history or any(t.lost for t in live) else None
        if self.rate is Rate.UNKNOWN:
            return Severity.INFO if (history and self.part_has_static) or big else None
        return Severity.INFO if self.static_after >= UNKNOWN_STATIC_AFTER and (big or history) else None

    def _fragment_severity(self, some: bool) -> Severity | None:
        if self.rate is Rate.REQUEST and self.seg.name_only and self.seg.kind is Kind.USER_INPUT:
            # only a name (`{{ question }}`) says it is the user's text, in a fragment whose request
            # is not known (often the user message itself): a warning needs the loss to be more
            # than a few words or to hold history
            whole = self.placed.static_before + self.static_after
            if self.history_after or (self.static_after >= SMALL_LOSS and whole >= FRAGMENT_MINIMUM):
                return Severity.WARNING
            # before a few labels only (`User message: "{{ user_input }}"\nAnswer Yes or No:`): the
            # user's text is where it belongs, at the end (INFO_STATIC_AFTER, as for a whole request)
            return Severity.INFO if self.static_after >= INFO_STATIC_AFTER else None
        if self.rate is Rate.REQUEST:
            return Severity.WARNING if some or self.history_after else None
        if self.rate is Rate.CONVERSATION:
            return Severity.WARNING if some else None
        if self.rate in RARE:
            return Severity.INFO if self.history_after or self.static_after >= FRAGMENT_DAY_STATIC_AFTER else None
        if self.rate is Rate.UNKNOWN:
            return Severity.INFO if (self.history_after and self.part_has_static) \
                or self.static_after >= UNKNOWN_STATIC_AFTER else None
        return Severity.INFO if self.static_after >= UNKNOWN_STATIC_AFTER else None


def sent_apart(layout: PromptLayout) -> bool:
    """True for prompt text built in Python whose send was not found (a prompt constant, a function
    that returns prompt text): it is judged on its known text (`Impact.sized`), and nothing says
    what its request adds. A whole request (`is_complete`) is not; nor is a prompt file, template
    or config string, or a system prompt a framework sends, which a conversation follows (Policy 5)."""
    return layout.source == "python-constant" and not is_complete(layout)


def assumed_targets(layout: PromptLayout) -> bool:
    """True when the layout's targets are the default ones (`profiles.DEFAULT_TARGETS`) because its
    code names no provider promptlint knows (a LangChain chat model of unknown class, a wrapper's
    client): the minimums its figures rest on are an assumption, not a fact of the code. False
    when the code names a known provider or the run is configured with other targets."""
    if layout.provider is not None:
        try:
            lookup(layout.provider, layout.model)
        except UnknownTargetError:
            pass
        else:
            return False
    pairs = {(e["provider"], e["model"]) for e in layout.estimates}
    return bool(pairs) and pairs == {(t.provider, t.model) for t in DEFAULT_TARGETS}


def before_conversation(role: str) -> bool:
    """True for a system or developer message: every request puts the conversation after it (at
    least the user's message, in a chat the history: Policy 2), so its tail is not all at stake."""
    return role in ("system", "developer")


def worth_caching(apart: bool, static_after: int, history_after: bool) -> bool:
    """True when a value is worth a prefix finding by what follows it: always unless the prompt is
    `sent_apart`, else only before the conversation history or at least UNKNOWN_STATIC_AFTER o200k
    tokens of static text (`static_after`)."""
    return not apart or history_after or static_after >= UNKNOWN_STATIC_AFTER


def _targets(layout: PromptLayout) -> list[tuple[str, Profile, bool]]:
    """(label as in `explain`, profile, True when it is the call's own provider) per target: the
    targets of the layout's estimates, else `estimates.targets_for`."""
    own = canonical_provider(layout.provider)
    return [(f"{profile.provider}:{model}" if model else profile.provider, profile,
             own is not None and own == profile.provider) for profile, model in target_profiles(layout)]


_MEMO: tuple[PromptLayout, list[Impact]] | None = None


def impacts(layout: PromptLayout, remember: bool = True) -> list[Impact]:
    """The impact of every dynamic segment of the layout's shareable prefix, in request order
    (segments of tools parts, but for a time, an id or a tool list chosen by a condition, and of
    PRM201 / PRM202's kinds whose content is not known to change per request or conversation
    (`_order_only`) are left out, but they still end what a move gains). The last
    layout's result is remembered (every prefix rule asks for it), unless not `remember` (a layout
    looked at once, such as one with a value moved: `gains.move_pays`)."""
    global _MEMO
    if _MEMO is not None and _MEMO[0] is layout:
        return _MEMO[1]
    result = _impacts(layout)
    if remember:
        _MEMO = (layout, result)
    return result


_REQUEST_ROLES = ("user", "history", "assistant", "tool")


def is_complete(layout: PromptLayout) -> bool:
    """True when the layout is a whole request: a call that sends its messages (a user message or
    a history, not only a system prompt that a framework completes at run time, such as a
    pydantic-ai `@agent.system_prompt`). Templates, prompt files, config strings and prompt
    constants are fragments."""
    return layout.source == "python-call" and any(p.role in _REQUEST_ROLES for p in layout.parts)


def _impacts(layout: PromptLayout) -> list[Impact]:
    placed = [p for p in placed_segments(layout)
              if (p.part.role != "tools" or p.seg.kind in _OWN_CAUSE or p.seg.kind is Kind.CONDITIONAL)
              and not p.part.is_history]
    rates = [rate_of(p.seg) for p in placed]
    geo = Geometry(layout)
    targets = _targets(layout)
    complete = is_complete(layout)
    sized = complete or layout.source == "python-constant"
    assumed = assumed_targets(layout)
    # a prompt file holding the conversation is followed by none: a value after it has its own figures
    written = None if sized else written_conversation(layout)
    windows = [Cut(pi, si) for pi, si, _part, seg in layout.segments()
               if seg.kind is Kind.HISTORY and seg.window is not None]
    counted: dict[Cut, int] = {}  # cut -> `tokens_before` it (asked for every pair of values: once each)

    def before(cut: Cut) -> int:
        found = counted.get(cut)
        if found is None:
            found = counted[cut] = tokens_before(layout, cut)
        return found

    out = []
    for i, p in enumerate(placed):
        rate = rates[i]
        if rate is None or _order_only(p.seg, rate):
            continue
        blocking = [q for q, r in zip(placed[:i], rates[:i]) if blocks(r, rate) and not _order_only(q.seg, r)]
        behind = None
        if p.seg.kind in _OWN_CAUSE:
            # a timestamp or an id is its own root cause, with its own fix: an earlier value of
            # another kind does not hide it (fixing that one alone would not give the cache back)
            behind = blocking[0] if blocking else None
            blocking = [q for q in blocking if q.seg.kind is p.seg.kind]
        first = not blocking
        if not first:
            behind = None
        merged_into = blocking[0] if blocking else None
        # a later time or id of its own (its own finding, its own fix) does not end what moving
        # this value gains: with it moved, this value is what breaks the prefix
        stop = next((q.cut for q, r in zip(placed[i + 1:], rates[i + 1:]) if stops(r, rate)
                     and (q.seg.kind not in _OWN_CAUSE or p.seg.kind in _OWN_CAUSE)), geo.end)
        # a conversation cut to its newest messages (PRM105's window) changes from its start on
        # every turn once it is full, wherever this value is: moving the value cannot gain it
        stop = min(stop, next((c for c in windows if c > p.cut), geo.end))
        losses = []
        before_lost = 0
        for label, profile, own in targets:
            region, dormant, explicit = geo.region(profile, own)
            if p.cut >= region:
                continue  # nothing this target caches follows the segment (Policy 4)
            end = min(stop, region)
            # In the newest user message only the message's own static text is at stake (Policy 3);
            # a breakpoint placed after a value in the prefix makes its cache entry change with it.
            placed_bp = not p.in_newest
            if explicit and placed_bp:
                before_lost = max(before_lost, geo.unclosed(p.cut))
            fixed = geo.cached(end, profile, explicit, placed_bp)
            now = geo.cached(p.cut, profile, explicit, placed_bp)
            sure = not fixed or is_exact(profile) or \
                token_range(layout, end, profile)[0] >= (profile.min_cacheable_tokens or 0)
            # (an automatic cache's minimum reached past values of unknown length: TargetLoss.sure)
            sure = sure and not (p.values_before and not explicit and fixed and not now and before(end) - before(
                p.cut) < SMALL_LOSS and before(p.cut) < (profile.min_cacheable_tokens or 0))
            losses.append(TargetLoss(label, is_exact(profile), profile.min_cacheable_tokens, now, fixed, dormant, sure))
        if targets and not losses:
            continue
        region_end = max((geo.region(pr, own)[0] for _, pr, own in targets), default=geo.end)
        end = min(stop, region_end)
        after = before(end) - before(p.cut)
        part_static = any(s.is_static and s.text.strip() for s in p.part.segments)
        unsure = layout.history_marker is not None and (not geo.breakpoints or end > geo.breakpoints[-1])
        # values inside the span with static text after them: the count is not one run
        between = sum(1 for q in placed[i + 1:] if q.cut < end and before(q.cut) < before(end))
        history = history_between(layout, p.cut, end) and not p.seg.spares_history  # (prefix.placed_segments)
        slot = slot_after(layout, p.cut, end) if history else None
        own = written is not None and p.cut > written
        shared = loop_shared(p, placed[i + 1:], rates[i + 1:], end) if rate is Rate.REQUEST else None
        # (the first value of the prompt that may change, before text whose size is not known: a value,
        # even a stable one, neither drawn too nor a choice between two texts; before static text only,
        # the figures judge)
        drawn = drawn_at_random(p.seg) and not any(r is not None for r in rates[:i]) \
            and any(not q.seg.is_static and q.seg.kind is not Kind.CONDITIONAL and not drawn_at_random(q.seg)
                    for q in placed[i + 1:])
        out.append(Impact(p, rate, first, max(after, 0), history, complete,
                          losses, part_static, before_lost, sized or own, behind, unsure, between, merged_into,
                          own, assumed, shared, drawn, slot))
    return out



def _order_only(seg, rate: Rate | None) -> bool:
    """True for a serialization or an iteration (PRM201 / PRM202's kinds) whose content is not
    known to change per request or per conversation (`json.dumps(shots)` of a parameter): its rule
    judges its order, not its content, so it is no value of the prefix rules and hides none placed
    after it (Policy 8: it is not their root cause). One of data fetched per request
    (`json.dumps(hits, sort_keys=True)`, `hits = search(question)`) is such a value."""
    return seg.kind in _OWN_KINDS and rate not in (Rate.REQUEST, Rate.CONVERSATION)


def _changes(seg) -> bool:
    """True when `seg`'s text may differ between two requests of the prompt (it ends the part a
    later request shares byte for byte): any rate, or an unsorted serialization / iteration."""
    if seg.is_static or seg.kind is Kind.HISTORY:
        return False
    return rate_of(seg) is not None or (seg.kind in _OWN_KINDS and seg.volatility is not Volatility.STABLE)


def cacheable(layout: PromptLayout) -> dict[str, int]:
    """Tokens per request each target would cache of this prompt, label -> tokens in the target's
    tokenizer: the static text before the first segment that changes between requests, cut at the
    end of the shareable prefix and at the last explicit breakpoint on opt-in APIs, rounded to the
    target's minimum and increments. Dormant caching (an opt-in API without a breakpoint) counts as
    if it were on, so a move that prepares the prefix counts. `promptlint fix` compares these
    before and after a fix that moves content, and `check` before it offers one (`gains`): a move
    that caches nothing more is neither offered nor applied."""
    geo = Geometry(layout)
    stop = next((Cut(pi, si) for pi, si, _part, seg in layout.segments() if _changes(seg)), geo.end)
    out = {}
    for label, profile, own in _targets(layout):
        region, _dormant, explicit = geo.region(profile, own)
        out[label] = geo.cached(min(stop, region), profile, explicit, True)
    return out


def caches_more(before: dict[str, int], after: dict[str, int]) -> bool:
    """True when some target caches more tokens per request `after` than `before` (target label
    -> tokens, as `cacheable` gives them; a target missing `before` cached 0): the test of a move,
    for `check` before it offers one (`gains.move_pays`) and `fix` after it applies one."""
    return any(n > before.get(label, 0) for label, n in after.items())


def uncached_today(layout: PromptLayout) -> str:
    """Why no target caches anything of this request today ("no `cache_control` breakpoint": an
    opt-in API with none, "this model has no prompt caching"), or "" when one does (or no target
    is known)."""
    geo = Geometry(layout)
    reasons = [geo.region(profile, own)[1] for _label, profile, own in _targets(layout)]
    return reasons[0] if reasons and all(reasons) else ""
