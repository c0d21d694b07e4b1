"""`promptlint trace`: stream a request log, group it, find each first divergence, map it back.

Requests are read one line at a time and put back in time order through a small reorder window
(`window` records). Each request joins a group: the static layout its text matches (same site),
or, when none does, a signature of its head (provider, model, tool names and the start of the
system text with digits and hex runs masked). Within a group, a request continues a
conversation when an earlier request with fewer messages shares more leading messages with it
than the group's conversations share with each other (an explicit `conversation` id in the
record decides instead); it is compared with the previous request of that conversation
(append-only expected). A request that starts a conversation is compared with the group's
previous request on the head only (tools, schema, system). Divergences are aggregated per
group and cause (the source segment, or the request part when no layout matched).

Memory is bounded: the reorder window, at most `max_conversations` open conversations and
`max_groups` groups (least recently used dropped first), bounded token-count caches, and
aggregates per cause. Nothing is sent anywhere.
"""
from __future__ import annotations

import heapq
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from itertools import count

from ..judged import prompts_analysed
from ..model import Diagnostic, PromptLayout, Severity
from ..profiles import Profile, UnknownTargetError, lookup
from .counting import Tokenizer
from .describe import describe, example, missed_reason, source_ref, static_finding
from .diverge import Point, cost, first_divergence, message_lcp
from .model import Divergence, Group, Request, TraceReport, digest
from .reader import BadLine, read_requests
from .sourcemap import Matcher

__all__ = ["TraceOptions", "Tracer", "trace", "trace_requests"]

_MASK = re.compile(r"[0-9a-fA-F]{8,}|[0-9a-fA-F-]{36}|\d+")


@dataclass
class TraceOptions:
    """Bounds and display choices; the defaults suit logs of millions of requests."""

    show_text: bool = False
    window: int = 256               # records held to restore time order
    max_conversations: int = 1024   # open conversations kept (least recently used dropped)
    max_groups: int = 1024          # groups kept with their state
    max_errors: int = 1000          # skipped lines listed (all are counted)
    max_findings: int = 10000       # causes itemised; later ones are summed per part kind
    max_group_summaries: int = 10000


@dataclass
class _Conversation:
    last: Request
    group: str
    explicit: tuple[str, str] | None = None  # (group id, the record's conversation id)


@dataclass
class _GroupState:
    info: Group
    layout: PromptLayout | None
    last: Request | None = None
    common: int | None = None       # leading message units all conversations share
    open: list = field(default_factory=list)  # conversation ids, most recent last


class Tracer:
    """The state of one trace: groups, open conversations, aggregated divergences. Feed it
    requests in time order with `add`, then call `finish` to fill the report."""

    def __init__(self, layouts: list[PromptLayout], diagnostics: list[Diagnostic], options: TraceOptions,
                 report: TraceReport):
        self.options = options
        self.report = report
        self.matcher = Matcher(layouts)
        self.diagnostics = diagnostics
        self.groups: OrderedDict[str, _GroupState] = OrderedDict()
        self.summaries: dict[str, Group] = {}
        self.conversations: OrderedDict[int, _Conversation] = OrderedDict()
        self.explicit: dict[tuple[str, str], int] = {}
        self.signatures: OrderedDict[bytes, PromptLayout | None] = OrderedDict()
        self.profiles: dict[tuple, tuple[Profile | None, Tokenizer]] = {}
        self.found: dict[tuple, Divergence] = {}
        self.ids = count(1)

    # ------------------------------------------------------------------ grouping
    def _signature(self, req: Request) -> bytes:
        head = req.units[:req.head] or req.units[:1]
        tools = sorted(u.text[:80] for u in head if u.kind == "tools")
        texts = [_MASK.sub("#", u.text[:256]) for u in head if u.kind != "tools"]
        return digest(req.api, req.provider or "", req.model or "", *tools, "|", *texts)

    def _layout(self, req: Request, key: bytes) -> PromptLayout | None:
        if key in self.signatures:
            self.signatures.move_to_end(key)
            return self.signatures[key]
        layout = self.matcher.match(req)
        self.signatures[key] = layout
        if len(self.signatures) > 4096:
            self.signatures.popitem(last=False)
        return layout

    def _group(self, req: Request) -> _GroupState:
        signature = self._signature(req)
        layout = self._layout(req, signature)
        if layout is not None:
            gid = f"{layout.id} {req.provider or '?'}:{req.model or '?'}"
        else:
            gid = f"{req.api} {req.provider or '?'}:{req.model or '?'} #{signature.hex()[:8]}"
        state = self.groups.get(gid)
        if state is None:
            info = self.summaries.get(gid) or Group(gid, req.provider, req.model, req.api,
                                                    layout.id if layout else None, first_line=req.line)
            if len(self.summaries) < self.options.max_group_summaries:
                self.summaries[gid] = info
            state = self.groups[gid] = _GroupState(info, layout)
            if len(self.groups) > self.options.max_groups:
                _, dropped = self.groups.popitem(last=False)
                for cid in dropped.open:
                    self._drop(cid)
        self.groups.move_to_end(gid)
        state.info.requests += 1
        return state

    def _profile(self, req: Request) -> tuple[Profile | None, Tokenizer]:
        key = (req.provider, req.model)
        if key not in self.profiles:
            try:
                profile = lookup(req.provider, req.model)[0]
            except UnknownTargetError:
                profile = None
            self.profiles[key] = (profile, Tokenizer(profile))
        return self.profiles[key]

    # ------------------------------------------------------------------ conversations
    def _continues(self, state: _GroupState, req: Request) -> int | None:
        if req.conversation is not None:
            return self.explicit.get((state.info.id, req.conversation))
        best, best_lcp = None, 0
        for cid in reversed(state.open[-64:]):
            conv = self.conversations.get(cid)
            if conv is None or conv.last.messages >= req.messages:
                continue
            lcp = message_lcp(conv.last, req)
            if lcp > best_lcp:
                best, best_lcp = cid, lcp
        if best is None or (state.common is not None and best_lcp <= state.common):
            return None
        return best

    def _open(self, state: _GroupState, req: Request) -> int:
        cid = next(self.ids)
        explicit = (state.info.id, req.conversation) if req.conversation is not None else None
        self.conversations[cid] = _Conversation(req, state.info.id, explicit)
        state.open.append(cid)
        state.info.conversations += 1
        if explicit is not None:
            self.explicit[explicit] = cid
        while len(self.conversations) > self.options.max_conversations:
            old = next(iter(self.conversations))
            owner = self.groups.get(self.conversations[old].group)
            self._drop(old)
            if owner is not None and old in owner.open:
                owner.open.remove(old)
        if len(state.open) > 4 * 64:
            state.open = [c for c in state.open if c in self.conversations][-64:]
        return cid

    def _drop(self, cid: int) -> None:
        conv = self.conversations.pop(cid, None)
        if conv is not None and conv.explicit is not None:
            self.explicit.pop(conv.explicit, None)

    # ------------------------------------------------------------------ one request
    def add(self, req: Request) -> None:
        self.report.requests += 1
        state = self._group(req)
        cid = self._continues(state, req)
        if cid is not None:
            conv = self.conversations[cid]
            point = first_divergence(conv.last, req)
            if point is not None:
                self._diverged(state, conv.last, req, point, len(conv.last.units), "conversation")
            conv.last = req
            self.conversations.move_to_end(cid)
        else:
            prev = state.last
            if prev is not None:
                lcp = message_lcp(prev, req)
                state.common = lcp if state.common is None else min(state.common, lcp)
                point = first_divergence(prev, req, prev.head)
                if point is not None:
                    self._diverged(state, prev, req, point, prev.head, "across conversations")
            self._open(state, req)
        state.last = req

    def _diverged(self, state: _GroupState, prev: Request, req: Request, point: Point, region: int,
                  comparison: str) -> None:
        profile, tok = self._profile(req)
        spent = cost(prev, point, region, tok, profile)
        located = (self.matcher.locate(state.layout, prev, point.unit, point.offset)
                   if state.layout is not None else None)  # prev: its text up to the point is the shared one
        unit = prev.units[point.unit] if point.unit < len(prev.units) else req.units[point.unit]
        part = re.sub(r"\[\d+\]", "[]", unit.label) if unit.kind == "tools" else unit.label
        where = ("segment", id(located.segment)) if located is not None else ("part", part)
        key = (state.info.id, where)
        if key not in self.found and len(self.found) >= self.options.max_findings:
            key = ("", ("overflow", unit.kind))  # one more cause past the cap: counted, not itemised
        found = self.found.get(key)
        if found is None:
            if not key[0]:
                located = None
            ref = source_ref(located, state.layout) if located is not None else None
            finding = static_finding(located, self.diagnostics) if located is not None else None
            text = prev.units[point.unit].text if point.unit < len(prev.units) else ""
            found = self.found[key] = Divergence(
                severity=Severity.INFO.value, group=key[0] or "(other causes, past the itemised limit)",
                provider=req.provider, model=req.model,
                api=req.api, comparisons={}, part=unit.label, role=unit.role, char_offset=point.offset,
                byte_offset=len(text[:point.offset].encode("utf-8", "surrogatepass")),
                token_offset=tok.scale(spent.offset), tokens_exact=tok.exact,
                example=example(prev, req, point, self.options.show_text),
                read_price_multiplier=profile.read_price_multiplier if profile else None,
                source=ref, missed=located is not None and (finding is None or finding[1] == Severity.INFO.value),
                static_finding=finding[0] if finding else None)
            found.explanation = missed_reason(located, finding)
        found.requests += 1
        found.comparisons[comparison] = found.comparisons.get(comparison, 0) + 1
        found.prefix_tokens_lost += spent.prefix_lost
        found.cached_tokens_lost += spent.cached_lost
        if found.cached_tokens_lost > 0:
            found.severity = Severity.WARNING.value

    def finish(self) -> None:
        self.report.groups = list(self.summaries.values())
        for d in self.found.values():
            group = self.summaries.get(d.group)
            d.message = describe(d, group.requests if group else d.requests)
        self.report.divergences = sorted(self.found.values(),
                                         key=lambda d: (-d.cached_tokens_lost, -d.prefix_tokens_lost, d.group, d.part))


def trace_requests(requests, layouts: list[PromptLayout], diagnostics: list[Diagnostic],
                   options: TraceOptions | None = None, report: TraceReport | None = None) -> TraceReport:
    """Trace an iterable of Request / BadLine items (as `read_requests` yields them)."""
    options = options or TraceOptions()
    report = report or TraceReport("")
    tracer = Tracer(layouts, diagnostics, options, report)
    window: list = []
    order = count()
    last_time = float("-inf")
    for item in requests:
        report.lines = max(report.lines, item.line)
        if isinstance(item, BadLine):
            report.skipped += 1
            if len(report.errors) < options.max_errors:
                report.errors.append((item.line, item.message))
            continue
        when = item.time if item.time is not None else last_time
        last_time = max(last_time, when)
        heapq.heappush(window, (when, next(order), item))
        if len(window) > options.window:
            tracer.add(heapq.heappop(window)[2])
    while window:
        tracer.add(heapq.heappop(window)[2])
    tracer.finish()
    report.prompts = len(prompts_analysed(layouts))  # the count `check` gives (requests match any layout)
    return report


def trace(requests_file, layouts: list[PromptLayout], diagnostics: list[Diagnostic],
          options: TraceOptions | None = None) -> TraceReport:
    """Trace the JSONL log `requests_file` ("-": standard input) against the layouts and
    diagnostics of a static analysis run. Raises SourceError when the file cannot be opened."""
    report = TraceReport(str(requests_file))
    return trace_requests(read_requests(requests_file), layouts, diagnostics, options, report)
