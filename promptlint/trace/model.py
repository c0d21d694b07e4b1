"""The data of `promptlint trace`: request units, requests, divergences and the trace report.

Pure data, no behaviour beyond small derived properties. Offsets into a unit's text count
characters (0-based); rows are 1-based; token numbers are in the tokenizer of the request's
provider profile (exact for OpenAI tokenizers, estimated elsewhere: `tokens_exact`).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field


def digest(*texts: str) -> bytes:
    """A 16-byte blake2b digest of texts (joined with NUL): the identity of a unit's bytes."""
    h = hashlib.blake2b(digest_size=16)
    for text in texts:
        h.update(text.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.digest()


@dataclass(slots=True)
class Unit:
    """One piece of a request in the provider's cache order: a tool definition, the response
    schema, a system text (block), or one message (or content block of a message).

    `kind` is tools, schema, system or message; `role` the message role (tools / schema for
    those kinds); `message` the 0-based index of the conversation message it belongs to (None
    for tools, schema and system); `text` the text as sent (a text block's string, other blocks
    as compact JSON in the body's key order, `cache_control` left out); `breakpoint` marks a
    cache breakpoint right after this unit (Anthropic `cache_control`, OpenAI
    `prompt_cache_breakpoint`).
    """

    label: str
    kind: str
    role: str
    text: str
    message: int | None = None
    breakpoint: bool = False
    key: bytes = b""

    def __post_init__(self) -> None:
        if not self.key:
            self.key = digest(self.kind, self.role, self.text)


@dataclass(slots=True)
class Request:
    """One request body, normalised. `line` is its 1-based line in the log; `time` seconds since
    the epoch (None when the record has none); `api` one of chat.completions, responses,
    messages, generateContent; `head` the number of leading units before the first conversation
    message (tools, schema, system); `auto_cache` marks Anthropic's top-level `cache_control`;
    `conversation` an explicit conversation id given by the record."""

    line: int
    time: float | None
    provider: str | None
    api: str
    model: str | None
    units: list[Unit]
    head: int = 0
    auto_cache: bool = False
    conversation: str | None = None

    @property
    def messages(self) -> int:
        """Number of conversation messages (distinct `message` indexes)."""
        return len({u.message for u in self.units if u.message is not None})


@dataclass(slots=True)
class SourceRef:
    """Where a divergence comes from in the code: a segment of a static layout.

    `segment` is "dynamic" (a value: `expr`, `kind`, `volatility`) or "static" (literal text whose
    bytes changed). `row`/`column` are 1-based; `prompt` the layout id; `origin` where the value
    is produced when that is elsewhere, as "file:row:column"."""

    filename: str
    row: int
    column: int
    end_row: int
    end_column: int
    segment: str
    prompt: str
    expr: str = ""
    kind: str | None = None
    volatility: str | None = None
    origin: str | None = None


@dataclass(slots=True)
class Example:
    """One pair of requests that shows a divergence: the lines of both, and the text around
    the divergence (redacted unless --show-text): `before` (shared), `previous` and `current`
    (from the divergence on). `previous_changed` / `current_changed` count the characters that
    differ before the two texts agree again (to the end of the unit when they never do)."""

    line: int
    previous_line: int
    before: str
    previous: str
    current: str
    previous_changed: int = 0
    current_changed: int = 0


@dataclass(slots=True)
class Divergence:
    """One cause of prefix divergence, aggregated over every request pair it affects.

    `comparisons` counts the occurrences per comparison: "conversation" (a request against the
    previous request of its conversation, append-only expected) and "across conversations" (a
    conversation's first request against the group's previous request, sharing the head
    expected). `part` names the request part (tools[2], system, messages[3], ...) and `role` its
    role. Offsets are those of the first occurrence; tokens
    are summed over the `requests` occurrences: `prefix_tokens_lost` counts the tokens of the
    previous request's reusable prefix after the divergence, `cached_tokens_lost` the tokens the
    provider would have billed at the cached rate (its minimum, rounding and breakpoints
    applied). `missed` is True when the static analysis did not report this place at warning
    level or above (`static_finding` names the rule when it did).
    """

    severity: str
    group: str
    provider: str | None
    model: str | None
    api: str
    comparisons: dict
    part: str
    role: str
    char_offset: int
    byte_offset: int
    token_offset: int
    tokens_exact: bool
    example: Example
    requests: int = 0
    prefix_tokens_lost: int = 0
    cached_tokens_lost: int = 0
    read_price_multiplier: float | None = None
    source: SourceRef | None = None
    missed: bool = False
    static_finding: str | None = None
    explanation: str = ""
    message: str = ""

    @property
    def cached_tokens_lost_per_request(self) -> int:
        return round(self.cached_tokens_lost / self.requests) if self.requests else 0

    @property
    def prefix_tokens_lost_per_request(self) -> int:
        return round(self.prefix_tokens_lost / self.requests) if self.requests else 0


@dataclass(slots=True)
class Group:
    """Requests that share a prompt: `id` is the matched layout's id (plus provider and model)
    or a signature of the request head when no layout matched."""

    id: str
    provider: str | None
    model: str | None
    api: str
    prompt: str | None
    requests: int = 0
    conversations: int = 0
    first_line: int = 0


@dataclass
class TraceReport:
    """The result of one `promptlint trace` run. `errors` are (line, message) pairs of skipped
    lines (line 0 for problems with the file or the run itself, kept to the first
    `MAX_ERRORS`; `skipped` counts them all)."""

    requests_file: str
    divergences: list[Divergence] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)
    errors: list[tuple[int, str]] = field(default_factory=list)
    lines: int = 0
    requests: int = 0
    skipped: int = 0
    prompts: int = 0
