"""The data model: prompt layouts, diagnostics, fixes and the report. Depends on nothing.

Positions are 1-based rows and 1-based columns counted in characters, as in the JSON output
contract (`promptlint.report.json`).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import Enum

from promptlint.spans import Anchor, Caret, Position, RawText, Span  # re-exported: places are model types


class Severity(str, Enum):
    """How serious a diagnostic is; ordered info < warning < error."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return {"info": 0, "warning": 1, "error": 2}[self.value]


class Kind(str, Enum):
    """What a dynamic segment is (a part of a `PromptLayout`)."""

    TIMESTAMP = "timestamp"
    UNIQUE_ID = "unique-id"
    SERIALIZED = "serialized"
    UNORDERED_ITERATION = "unordered-iteration"
    CONDITIONAL = "conditional"
    USER_INPUT = "user-input"
    TEMPLATE_VARIABLE = "template-variable"
    HISTORY = "history"
    UNKNOWN = "unknown"


class Volatility(str, Enum):
    """How often a dynamic segment's bytes change."""

    PER_REQUEST = "per-request"
    PER_CONVERSATION = "per-conversation"
    PER_DAY = "per-day"
    PER_PROCESS = "per-process"
    STABLE = "stable"
    UNKNOWN = "unknown"


class Precision(str, Enum):
    """Granularity of a timestamp: how often its text changes."""

    SUB_DAY = "sub-day"
    DAY = "day"
    MONTH = "month"
    YEAR = "year"


class Source(str, Enum):
    """Where the code gets a dynamic segment's value, as the evaluator reads it (`Segment.source`):
    handed in by a caller, or made by a call the code makes."""

    PARAMETER = "parameter"  # a parameter of a function, or a keyword read from its `**kwargs`
    CALL = "call"  # the result of a call promptlint does not follow (a reply, a fetched page)


class Applicability(str, Enum):
    """Fix safety (docs/policies.md "Fix safety")."""

    SAFE = "safe"
    UNSAFE = "unsafe"
    DISPLAY_ONLY = "display-only"


#: Words in the evidence of a per-process segment that is made once per instance of a class (a
#: field's default id of an item built without it), not when its module is imported.
PER_INSTANCE = "a new value for each instance"

#: How the evidence of an attachment segment begins (`Segment.is_attachment`).
ATTACHMENT = "an attachment"


@dataclass
class Segment:
    """A run of prompt text: static (`kind is None`, `text` set) or dynamic (`kind` set).

    `span` is where the text enters the prompt (the literal, the interpolation, the template
    placeholder); `origin` is where a dynamic value is produced when that is elsewhere (a helper,
    a `render(...)` argument). `anchor` is the source node a fix would edit (see `Anchor`). `evidence` says in words why the segment was classified as it was
    ("call to `datetime.now()`", "name `request_id`"). `precision` is set for timestamps, `ordered`
    for serialized data. `window`, on the conversation history, is where it is cut to its newest
    messages (a sliding window such as `history[-10:]`), `window_stop` where a walk that cuts it
    stops at its bound (the test before its `break`), `window_off` the code of its count when that
    count is an option off by default that the package never sets on (`self.recent_messages` of a
    field `recent_messages: Optional[int] = None`: the cut runs only for users who set it); `older`, that it is a slice ending before
    its newest messages (`history[:cut]`: what a compaction summarises), which a call given it
    does not see change with each new message; `unconfirmed`, on a history segment, that it is a
    list an instance grows across turns that neither its name nor what is added to it says holds
    the conversation's messages (`self.notes.append(note)`): a window of it is no proven cut of
    the conversation. `written_once`, on a dynamic segment, that it is written into the
    conversation once, when the conversation starts (a system message set on the first turn), and
    re-sent unchanged with it afterwards: whatever it holds, the history that follows it is that same
    conversation's, which a change of it never invalidates. `apart`, on a dynamic segment of a
    caller's argument, that the caller sends its request apart from the conversation the callee
    keeps (it turns off, with `False`, each option of the callee that adds the request's messages
    to that list: `get_chat_response(text, system_prompt=p, add_message_to_chat_history=False,
    add_response_to_chat_history=False)`): the history the callee puts after it is not grown by
    that caller's requests, so it is not lost to them. `inner`, on a template's conditional section or loop, holds the placeholders
    of unknown value that its body outputs (in output order, at their own spans): the section
    stands for them in the layout, and their names stay readable. `caret`, when it is set at the
    segment's own `span`, is what the code writes there when `expr` names a value from elsewhere:
    the field `{knowledge_summary}` of text built from `query` (`Caret.built`), or the parameter
    `{search_query}` a caller gives `top["name"]`; at another span it is stale and means nothing.
    `listed`, on an unordered iteration, is where its source was made a list or tuple in its hash
    order (`terms=list(state.terms)`, a caller's argument; of a parameter, every caller's) before
    the place that iterates it into the text: that list keeps the order, and each such call is a
    place to sort it. `others`, on an unordered iteration that orders a request's tools list, are
    the list's other unordered sources (`list(local) + list(remote)`), each at its own span: the
    one sort of the list that fixes the first fixes them too. `stored`, on a dynamic segment, is the
    call that read its value back from a store (a database query's rows, an ORM query, a document or
    JSON read: `flow/store_rows.py`): data the code does not keep between requests but reads again,
    its keys in the order the store gives; on serialized data, the store read of the data serialised.
    `each`, on a value of unknown volatility (or a loop counter), is the `for` statement that binds it
    from data it iterates (`for row in rows:`, not a list of the instance's own, `self.agents`): each
    pass of the loop reads another value; a request sent inside that loop gets a new one each time
    (python/loop_values.py states it, per request, on such a request's segments).
    `same`, on a value of unknown volatility, is the loop (a `for` statement, or a function called
    once per element of one) over whose passes it stays the same while a value bound by that loop
    (`each`, the same span) changes: text computed before the loop, a parameter or an argument that
    does not read the element (`for kp in points: send(f"{kp} {summary}")`): every request of the
    loop shares it (python/loop_values.py).
    `truth`, on static text written from a Python constant `True`, `False` or `None` (`render(include_diff=True)`),
    is its truth value: a template's `{% if include_diff %}` on it takes one branch (a string's text says
    nothing of it: `"False"` is true).
    `source` is where the evaluator read the value (python/flow): `Source.PARAMETER` for a
    parameter of a function (its callers' argument not read) or a keyword read from a `**kwargs`
    dict handed in (`kwargs.pop("schema")`), `source_name` then the parameter's name (`ontology`,
    `kwargs`); `Source.CALL` for the result of a call not followed. A value computed from it alone
    (`"\\n".join(lines)` of lines built from `ontology.entities`) keeps both; None when not known.
    """

    text: str = ""
    span: Span | None = None
    kind: Kind | None = None
    volatility: Volatility = Volatility.STABLE
    expr: str = ""
    evidence: str = ""
    precision: Precision | None = None
    ordered: bool | None = None
    name_only: bool = False
    origin: Span | None = None
    origin_note: str = ""
    fix: "Fix | None" = None
    anchor: Anchor | None = None
    raw: RawText | None = None
    raw_base: int = 0
    window: Span | None = None  # the conversation history cut to its newest messages here (`history[-10:]`)
    window_stop: Span | None = None  # where a newest-first walk that cuts it stops at its bound (`if tokens > max:`)
    window_off: str = ""  # the window's count when it is an option off by default (`self.recent_messages`)
    older: bool = False  # the conversation without its newest messages (`history[:cut]`, `history[a:b]`)
    unconfirmed: bool = False  # a list grown across turns not known to hold the conversation's messages
    written_once: bool = False  # written when the conversation starts, re-sent with it unchanged
    apart: bool = False  # a caller's argument, sent apart from the callee's conversation (see the docstring)
    inner: tuple["Segment", ...] = ()  # a template's conditional section or loop: see the docstring
    caret: "Caret | None" = None  # the expression written at `span`, when `expr` names a value from elsewhere
    listed: tuple[Span, ...] = ()  # of an unordered iteration: where its source was made a list (`list(s)`) elsewhere
    others: tuple["Segment", ...] = ()  # of an unordered iteration ordering a tools list: its other unordered sources
    stored: Span | None = None  # the call that read the value back from a store (`cur.fetchall()`)
    gate: str = ""  # produced only when this option, off by default, is on (`self.add_time`: python/gated_values.py)
    each: Span | None = None  # bound by this `for` statement from data it iterates: a value of each pass (python/loop_values.py)
    same: Span | None = None  # the same on every pass of this loop (or call made once per element): loop_values.py
    truth: bool | None = None  # static text written from a Python constant (`True`, `False`, `None`): its truth value
    source: Source | None = None  # where the value is read: a parameter, a call's result (see the docstring)
    source_name: str = ""  # of a parameter: its name (`ontology`; `kwargs` of `kwargs.pop("schema")`)
    slot: str = ""  # of a history segment: the variable of the message placeholder it is (python/history_slots.py)
    slot_empty: bool = False  # that placeholder is optional and no other code of its module names its variable

    @property
    def is_static(self) -> bool:
        return self.kind is None

    @property
    def spares_history(self) -> bool:
        """True when a change of this value never costs the history after it: written once when the
        conversation starts (`written_once`) or sent apart from it (`apart`)."""
        return self.written_once or self.apart

    @property
    def is_attachment(self) -> bool:
        """An image, document, file or audio block of a message (python/attachments.py): content
        that is not prompt text, in the prefix where it is written."""
        return self.kind is not None and self.evidence.startswith(ATTACHMENT)

    def position_at(self, offset: int) -> Position | None:
        """Where character `offset` of this segment's text sits in its file, assuming the text
        is written verbatim from `span.start` (exact for files and raw-ish literals)."""
        if self.span is None:
            return None
        if self.raw is not None:
            index = min(self.raw_base + offset, len(self.raw.offsets) - 1)
            before = self.raw.raw[: self.raw.offsets[index]]
            newlines = before.count("\n")
            if newlines == 0:
                return Position(self.raw.start.row, self.raw.start.column + len(before))
            return Position(self.raw.start.row + newlines, len(before) - before.rfind("\n"))
        before = self.text[:offset]
        newlines = before.count("\n")
        if newlines == 0:
            return Position(self.span.start.row, self.span.start.column + offset)
        return Position(self.span.start.row + newlines, offset - before.rfind("\n"))

    @property
    def written(self) -> "Caret | None":
        """The source text written at the segment's span when its `expr` names a value from
        elsewhere (`caret`), else None."""
        caret = self.caret
        return caret if caret is not None and caret.at == self.span else None

    @property
    def is_volatile(self) -> bool:
        """True when the segment's text may differ between requests sharing this prompt."""
        return self.kind is not None and self.volatility is not Volatility.STABLE


_SEGMENT_FIELDS = frozenset(f.name for f in dataclasses.fields(Segment))


def replace(obj, **changes):
    """`dataclasses.replace(obj, **changes)`, four times faster for a `Segment` (the evaluator
    copies segments hundreds of thousands of times a run): its fields copied as they are, then
    `changes` set, as `replace` would pass them to `__init__` (a `Segment` has no `__post_init__`
    and no field outside `__init__`). Another object, one holding attributes besides its fields,
    or an unknown field name: `dataclasses.replace` itself."""
    if type(obj) is Segment:
        held = obj.__dict__
        if len(held) == len(_SEGMENT_FIELDS) and _SEGMENT_FIELDS.issuperset(changes):
            new = object.__new__(Segment)
            fresh = new.__dict__
            fresh.update(held)
            fresh.update(changes)
            return new
    return dataclasses.replace(obj, **changes)


@dataclass
class Breakpoint:
    """A cache breakpoint placed after segment `after` (an index into the part's segments,
    -1 for before the first) of its part; `ttl` as written ("5m", "1h") or None. `repeated`: set
    once per message by a loop over a growing conversation (one more on every turn). `count`: the
    breakpoints it stands for (a loop over a fixed number of items, `for m in msgs[-2:]`, sets one on
    each: 2)."""

    after: int
    span: Span | None = None
    ttl: str | None = None
    repeated: bool = False
    count: int = 1

    @classmethod
    def set_by(cls, after: int, span: Span | None, repeated, ttl: str | None = None) -> "Breakpoint":
        """The breakpoint of a statement recorded as (span, `repeated`), where `repeated` is True
        (once per item of a list of unknown length), False (once) or a count (n items)."""
        if repeated is True or repeated is False:
            return cls(after, span, ttl, repeated)
        return cls(after, span, ttl, False, max(1, int(repeated)))


@dataclass
class Part:
    """One request part in the provider's cache order: tools, system, developer, user,
    assistant, tool, or `history` (the replayed conversation, append-only). `read`: every
    message of a history part was read where it is built (dicts written in the code), so a cache
    breakpoint in it would be among `breakpoints`; False for a list passed in or returned by
    code we cannot read. `name_only`: only a name says the part has its role (a `tool` result of
    a function listed in a list named for tools, `TOOLS = [search]`: a hint, Policy 7). `reply`:
    the model's reply to an earlier request of this turn, written back into the list that is sent
    again (`messages.append(response.choices[0].message)`: python/turn_replies.py), whatever its
    role here (a message we cannot read is a `history` part). `definition`: a `tools` part that is one
    tool's (or structured output's) schema or description built in the code, sent by a call not found
    (python/schema_orders.py). `note`: for `promptlint explain`,
    why a history part is one (a list grown across turns) and which of its messages are not read;
    no rule reads it."""

    role: str
    segments: list[Segment] = field(default_factory=list)
    breakpoints: list[Breakpoint] = field(default_factory=list)
    span: Span | None = None
    read: bool = False
    name_only: bool = False
    reply: bool = False
    note: str = field(default="", compare=False)
    definition: bool = False  # a `tools` part: one tool's (or output's) schema or description, not a list of tools

    @property
    def is_history(self) -> bool:
        return self.role == "history"


@dataclass(frozen=True)
class Fanout:
    """Two values a function writes into a prompt's text from its parameters, the first of which
    differs between the calls of that function (`builder`) that share the second
    (python/fanout.py): `varying` and `shared` are where each enters the text, `varying_name` and
    `shared_name` the parameters; `how` is "loop" (a call made once per element of a loop whose
    element the first argument reads and the second does not) or "calls" (`calls` calls of one
    function that pass the same name for the second and different arguments for the first);
    `evidence` is that call (the first of them); `shared_expr` what it passes for the second;
    `shared_tokens` the o200k tokens of that value when its whole text is known, else None;
    `part` and `at` the first segment of the request that the text holding them writes."""

    varying: Span
    shared: Span
    builder: str
    varying_name: str
    shared_name: str
    how: str
    evidence: Span
    shared_expr: str = ""
    calls: int = 0
    shared_tokens: int | None = None
    part: int = 0
    at: int = 0


@dataclass
class PromptLayout:
    """A prompt as the provider receives it, in request order (docs/architecture.md "The flow of data").

    `source` is python-call, python-constant, template, prompt-text or config-string.
    `parts` follow the provider's cache order. `newest_user` is the index of the part that holds
    the newest user message (the end of the prefix), or None. `options` keeps request options that
    rules read (e.g. `prompt_cache_key` as a Segment); `auto_cache` marks Anthropic's top-level
    automatic `cache_control`; `unread_options`: the call passes a `**mapping` whose keys are not
    known (it may hold any option, `cache_control` included), and `options_forwarded` when each such
    mapping is the sending function's own `**kwargs` or the options its instance is built with
    (its callers' keyword arguments, which hold a `cache_control` only when a caller writes one); `open_options`: a `**mapping` the call passes
    is read but was merged with data whose keys are not known (`{**settings, "system": text}`),
    which may hold a top-level `cache_control`; `unplaced_markers`: a statement sets
    `cache_control` (in the sending function, a helper it calls or a function read to build the
    request) on a block none of `parts`' breakpoints stands for; `history_marker`: where such a
    statement, in the function that sends or another method of its class, marks a block that may be
    a message of the conversation (not tools, not the system prompt), when no breakpoint the layout
    places closes the history part: the history may end at a breakpoint there; `tree_markers`: a file of the
    package tree names a cache breakpoint key, so a breakpoint may be set where the layout does not
    show it (True unless the site finder looked and found none); `others_markers`: for an adapter's
    request (`passes_prompt`, `converted`) in such a tree, every file that names one only reads it
    or writes it on requests it sends itself (a sibling adapter of another SDK), and the sending
    module writes none: no code writes a breakpoint on what its callers pass; `takes_conversation`: the function
    that sends takes or reads a list named as a conversation (a parameter `history`, an attribute
    `self.chat_history`); `claude_checked`: where the function that sends a request of a model not
    known statically tests that model for a Claude name (`if "claude" in model:`), so it may be
    one, or (`claude_picked`) the table of Claude names the model is picked from; `claude_named`:
    a LiteLLM request of a model not known statically in a package tree where a file writes a
    Claude model name (it sends to Claude somewhere, maybe through this call), or in a module that
    gives or compares a provider setting as `"anthropic"` or `"bedrock"`, unless
    `other_models`: the model names the code writes for the call are known and none is Claude's. `tool_turns`:
    the module that sends, or a function read to build the request (a formatter of another
    module), converts the tool turns of a conversation (`tool_result` blocks, a `tool_call_id`):
    the history it sends holds a tool loop's steps. `loop_sent`: the send call
    sits in a loop of its function that grows a list the call sends (`markers.grown_in_loop`:
    `while True: create(messages=messages) ... messages.append(reply)`), so each pass re-sends it. `reply_kept`: where the sending
    function, after the call, appends an assistant message to a parameter the call sends
    (`messages.append({"role": "assistant", ...})`: python/kept_replies.py), so its callers' list is
    a conversation each later call re-sends. `passes_prompt`: the
    request's only message is a parameter of the function that sends it, sent whole (`def
    basic_request(self, prompt): ... messages=[{"role": "user", "content": prompt}]`): an adapter
    every prompt of its callers goes through; `converted`: `((request key, parameter), ...)`, the
    keys of the prompt (tools, system, messages) whose values the sending function computes from
    its own parameters (`messages, system = self._build_messages(prompt)`: an adapter converting its
    callers' prompt, `python/converted_prompts.py`), in request order; `helper_built`: the call sends
    only a `**mapping` a helper returns (`kwargs = self._build_kwargs(messages)`): the request is
    built there; `caller_built`: for a request the sending function takes whole as its `**parameter`
    (`converted` "request": a retry helper, `create_retrying(client.messages.create, **kwargs)`),
    where its caller writes it (the span of its first part, not the tools, when that is outside the
    sending function); `configured_system`: the segment of a system prompt that
    is configuration set elsewhere, whole, named as a prompt (`system=self.config.prompt_preamble`),
    re-sent the same on every request, its size not known (`markers.configured_system`); `clock_tests`: where a function read to build a
    request that replays a conversation chooses what to send by comparing the clock (`if
    time.time() < meta["expires_at"]:`), so a message is sent one way and later another.
    `openai_compat`: the request is sent with the OpenAI SDK to Anthropic's OpenAI-compatible
    endpoint (`OpenAI(base_url="https://api.anthropic.com/v1/")`), which does no prompt caching at
    all (https://docs.claude.com/en/api/openai-sdk: the native API is needed for it).
    `sdk`: how the README names the SDK or framework whose call shape was read at the site
    ('OpenAI', 'LangChain', 'pydantic-ai'; python/sdks/), None for a prompt no call shape built.
    `variant`: which of several requests one send call makes is this one (a call sent with
    `**payload` where the callers build different request dicts: one layout each, same `id`).
    `supersedes` lists ids of layouts this one makes redundant (the
    unbound prompt template it fills in); `reaches` the spans of the functions whose bodies were
    read to build it (a prompt candidate inside one of them is part of this request).
    `set_retrieved`: the placeholder names of the prompts of its prompt set (the prompts of one
    config file) that are named like content retrieved for the turn (`turn_names.turn_content`),
    sorted: evidence that the set fills its few-shot `examples` per turn as well.
    `fanouts`: values of a function's parameters written into the text in an order that puts a
    value differing between its calls before one those calls share (`Fanout`).
    """

    id: str
    site: Span
    source: str
    provider: str | None = None
    api: str | None = None
    model: str | None = None
    parts: list[Part] = field(default_factory=list)
    templates: list[str] = field(default_factory=list)
    newest_user: int | None = None
    options: dict[str, Segment] = field(default_factory=dict)
    auto_cache: Span | None = None
    unread_options: bool = False
    options_forwarded: bool = False
    open_options: bool = False
    unplaced_markers: bool = False
    history_marker: Span | None = None
    tree_markers: bool = True
    others_markers: bool = False
    takes_conversation: bool = False
    claude_checked: Span | None = None
    claude_picked: bool = False
    claude_named: bool = False
    other_models: bool = False
    tool_turns: bool = False
    loop_sent: bool = False
    reply_kept: Span | None = None
    passes_prompt: bool = False
    converted: tuple[tuple[str, str], ...] = ()
    helper_built: bool = False
    caller_built: Span | None = None
    configured_system: Segment | None = None
    openai_compat: bool = False
    clock_tests: list[Span] = field(default_factory=list)
    static_prefix_tokens: int = 0
    static_tokens: int = 0
    variant: int = 0
    sdk: str | None = None
    estimates: list[dict] = field(default_factory=list)
    supersedes: list[str] = field(default_factory=list)
    reaches: list[Span] = field(default_factory=list)
    set_retrieved: list[str] = field(default_factory=list)
    fanouts: list[Fanout] = field(default_factory=list)

    def segments(self):
        """Yield (part index, segment index, part, segment) in request order."""
        for pi, part in enumerate(self.parts):
            for si, seg in enumerate(part.segments):
                yield pi, si, part, seg

    @property
    def has_history(self) -> bool:
        return any(p.is_history for p in self.parts)


@dataclass(frozen=True)
class Edit:
    """Replace the text between `start` and `end` (1-based, end exclusive) of one file."""

    content: str
    start: Position
    end: Position


@dataclass
class Fix:
    """A change that resolves a diagnostic: text edits of one file with an applicability.
    `digest` is the sha256 (hex) of the decoded file text the edits were computed from ("" when
    not known): `promptlint fix` applies them to that text only. `moves` is True for a fix that
    moves prompt content to lengthen the cached prefix: `promptlint fix` keeps it only when the
    fixed text caches more of its prompt (`impact.cacheable`). `filename` is the file the edits
    are for ("" when built for the diagnostic's own file): a diagnostic in another file carries no
    such fix."""

    applicability: Applicability
    message: str
    edits: list[Edit] = field(default_factory=list)
    digest: str = ""
    moves: bool = False
    filename: str = ""


#: The message of the related location where a method slices the kept conversation that a call
#: reads as its newest items (PRM105 reports the cut at the call, which chooses the count; the
#: dedupe drops a finding at the slice itself: one cut).
SLICED = "the kept sequence sliced here"


@dataclass
class Related:
    """Another place that explains a diagnostic (e.g. where the volatile value is produced).
    `evidence` is False for a place the finding only names (a later value it stands for, PRM101):
    it says nothing about the finding's own value, so deduplication does not count it."""

    span: Span
    message: str
    evidence: bool = True


@dataclass
class Diagnostic:
    """One finding of one rule at one place. `name_only` is True when the finding's only evidence
    is a name (`request_id`, `now`: docs/policies.md, Policy 7); deduplication prefers other evidence."""

    code: str
    name: str
    severity: Severity
    message: str
    span: Span
    fix: Fix | None = None
    prompt: str | None = None
    related: list[Related] = field(default_factory=list)
    advice: str | None = None
    name_only: bool = False

    @property
    def sort_key(self):
        return (self.span.filename, self.span.start, self.code)


@dataclass
class Report:
    """The result of one run: diagnostics, the prompts found and the files that failed.

    `errors` are one-line messages about the run itself (not findings); unreadable or unparsable
    input is a PRM001 diagnostic instead.
    """

    diagnostics: list[Diagnostic] = field(default_factory=list)
    prompts: list[PromptLayout] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    files: int = 0
