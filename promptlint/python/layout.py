"""From evaluated request arguments to a PromptLayout: message lists, content blocks with cache
breakpoints, tool lists and request options. Shared by every SDK module (python/sdks/).

A message list becomes request parts in order: a message written in the code is a part of its
role; a list spread into it, a list grown in a loop or a list we cannot read is the replayed
conversation (`history`). The newest user message (the last item, when it is a user message
written at the call, or the user message the model's reply of this turn follows: a tool loop's
follow-up, python/turn_replies.py) ends the cacheable prefix (docs/policies.md, Policy 3).
"""
from __future__ import annotations

from dataclasses import dataclass

from .loop_values import invariant, loop_spans, per_pass
from .fanout import fanouts
from ..model import replace

from ..model import Breakpoint, Kind, Part, PromptLayout, Segment, Span, Volatility
from .flow.merged import merged_list
from .flow.rewrites import marks_of
from .flow.windows import items_cut, window_of
from .flow.values import Alt, Mapping, Obj, Seq, Spread, Text, Value, is_none, most_volatile
from .attachments import attachment, block_list, blocks_of, kind_of, spread_blocks
from .list_heads import head_of, without
from .history_slots import is_placeholder_object, object_slot, tuple_slot
from .layout_values import as_prompt_text, expr_of, newest_input, root_name, grown_evidence, history_seg, marker_keys, present_or_absent, read_whole, sometimes, variants_of
from .markers import clock_tests, conditional_marker
from .placeholder_models import is_foreign_model, is_placeholder_model
from .tool_parts import ToolParts
from . import turn_replies

ROLE_ALIASES = {"human": "user", "ai": "assistant", "model": "assistant", "placeholder": "history"}
MESSAGE_CLASSES = {"SystemMessage": "system", "HumanMessage": "user", "AIMessage": "assistant",
                   "UserMessage": "user", "AssistantMessage": "assistant",
                   "ToolMessage": "tool", "ChatMessage": None, "SystemMessagePromptTemplate": "system",
                   "HumanMessagePromptTemplate": "user", "AIMessagePromptTemplate": "assistant"}


def _given(kwargs: dict, *names: str) -> Value | None:
    """The first of the keyword arguments `names` of a message object that holds a value: not a
    default None (a message class of the tree whose `__init__(self, content=None, **data)` is
    given `blocks=`: its instance holds both, `content` bound to its default)."""
    return next((kwargs[n] for n in names if kwargs.get(n) and not is_none(kwargs[n])), None)


_HEADERS = ("x-grok-conv-id",)  # headers that route requests to a cache (rules/prm306_unstable_cache_key.py)

@dataclass
class Evaluated:
    """A request argument known only as a value (a `**options` dict's entry): where it was
    written (`span`) and its source text (`code`)."""

    value: Value
    span: Span | None
    code: str


def dict_entries(items: dict, key_spans: dict, span: Span | None, code: str) -> dict[str, Evaluated]:
    """The entries of a dict passed as a request's keyword arguments (`**payload`, a request body
    posted or returned): each key's value as an `Evaluated` written where its key is (else at
    `span`, the dict's expression), its code `payload['key']` (`code`: the dict's source text)."""
    return {key: Evaluated(value, key_spans.get(key) or span, f"{code}[{key!r}]") for key, value in items.items()}


class LayoutBuilder(ToolParts):
    """Builds the layouts of one module's prompts; `layouts` collects them in order."""

    def __init__(self, module, evaluator, provider_for_model=None):
        self.m = module
        self.ev = evaluator
        #: (model string, default provider) -> (provider, model): the SDK registry's mapping,
        #: passed in so that the SDK modules do not import the registry that lists them
        self.provider_for_model = provider_for_model or (lambda model, default: (default, model))
        self.layouts: list[PromptLayout] = []
        self.sites: list[Span] = []
        #: spans of model constructors (`GenerativeModel(...)`) a recorded request sends: no prompts of their own
        self.sent_models: set[Span] = set()
        self.bindings: dict = {}
        #: spans of `cache_control` keys seen in request values no breakpoint stands for (sites.py)
        self.unplaced: list = []

    # ---------------------------------------------------------------- values
    def value(self, node, frame) -> Value | None:
        """The value of a request argument (an `ast` node or an `Evaluated`)."""
        if node is None:
            return None
        if isinstance(node, Evaluated):
            return node.value
        return self.ev.eval(node, frame)

    def span_of(self, node) -> Span | None:
        return node.span if isinstance(node, Evaluated) else self.m.span(node)

    def code_of(self, node) -> str:
        return node.code if isinstance(node, Evaluated) else self.m.code(node)

    def static_text(self, value, frame) -> str | None:
        """The text of a value made only of static text, else None."""
        if value is None:
            return None
        segs = self.ev.text_of(value, frame)
        if segs and all(s.is_static for s in segs):
            return "".join(s.text for s in segs)
        return None

    def static_model(self, node, frame) -> str | None:
        return self.static_text(self.value(node, frame), frame) if node is not None else None

    # ---------------------------------------------------------------- parts
    def text(self, value, frame, template: bool) -> list[Segment]:
        if template:
            text = Text(self.ev.text_of(value, frame))
            return self.ev.format_text(text, [], self.bindings, frame, None, keep_unbound=True).segs
        return self.ev.text_of(value, frame)

    def part(self, role: str, value: Value, frame, span: Span | None, template: bool = False) -> Part:
        """One request part; a list of content blocks keeps its cache breakpoints (also when the
        list is sent or None by a condition: `system=blocks if text else None`)."""
        segs: list[Segment] = []
        bps: list[Breakpoint] = []
        if isinstance(value, Alt):
            lists = [v for v in variants_of(value) if not is_none(v)]
            if len(lists) == 1 and block_list(lists[0]):
                value = lists[0]
            elif len(lists) > 1 and all(block_list(v) for v in lists):
                parts = [self.part(role, v, frame, span, template) for v in lists]
                marked = [p for p in parts if p.breakpoints]
                # a list or its copy (`if system is not None: system = [dict(s) for s in system]`); of
                # lists that differ, those a breakpoint was set on (the others are drawn as text)
                same = self._same_blocks(parts) or (self._same_blocks(marked) if marked else None)
                if same is not None:
                    return same
        if block_list(value):
            for block, spread in blocks_of(value):
                if isinstance(block, Spread):  # a list of blocks we cannot read (`*image_blocks`)
                    segs.extend(spread_blocks(self.ev, block, frame))
                    continue
                kind = kind_of(block)
                if kind is not None:  # an image, a document: in the prefix where it is written
                    seg = attachment(self.ev, block, kind, frame, spread)
                    segs.extend([seg] if seg is not None else [])
                content = block.items.get("text")
                if content is None:
                    content = block.items.get("content")
                if content is not None:
                    segs.extend(self.text(content, frame, template))
                if "cachePoint" in block.items:  # Bedrock Converse: a marker block after the others
                    bps.append(Breakpoint(after=len(segs) - 1, span=block.key_spans.get("cachePoint")))
                if "cache_control" in block.items:
                    ttl = None
                    cc = block.items["cache_control"]
                    if isinstance(cc, Mapping) and "ttl" in cc.items:
                        ttl = self.static_text(cc.items["ttl"], frame)
                    bps.append(Breakpoint(after=len(segs) - 1, span=block.key_spans.get("cache_control"), ttl=ttl))
            if isinstance(value, Seq) and value.markers:  # set on its blocks by a function that returned it
                bps.extend(Breakpoint.set_by(len(segs) - 1, span, repeated) for span, repeated in value.markers
                           if all(span != b.span for b in bps))
        else:
            segs = self.text(value, frame, template)
            self.unplaced.extend(marker_keys(value))  # a breakpoint somewhere in a value read as text
        return Part(role, segs, bps, span=span)

    @staticmethod
    def _same_blocks(parts: list[Part]) -> Part | None:
        """The part of several variants of a block list that hold the same blocks, some with more
        after them (a list, a copy of it made under a condition, one a condition appends a block
        to): the longest, with the breakpoints any of them carries (each after the same block);
        None when one is not the start of another."""
        def key(p):
            return tuple((s.text, s.expr, s.kind) for s in p.segments)
        longest = max(parts, key=lambda p: len(p.segments))
        if any(key(p) != key(longest)[:len(p.segments)] for p in parts):
            return None
        bps: list[Breakpoint] = []
        for p in [longest, *parts]:
            bps.extend(b for b in p.breakpoints if all((b.span, b.after) != (x.span, x.after) for x in bps))
        return replace(longest, breakpoints=sorted(bps, key=lambda b: b.after))

    def message_parts(self, value: Value, frame, template: bool = False) -> tuple[list[Part], int | None]:
        """Request parts of a message list, in order, and the index of the newest user message
        (the last item when it is a user message written at the call, not replayed history; the
        user message just before the first reply of this turn, `Part.reply`, when there is one)."""
        grown = variants_of(value) if isinstance(value, Alt) else []
        if grown and all(isinstance(v, Seq) and v.repeated for v in grown) and any(v.head for v in grown):
            # a list built in branches before the loop that grows it (`if use_history:
            # messages.extend(history)`, `if not messages: messages.append(system)`, `if
            # system_prompt: messages.append(system)` with no message in the other branch): the
            # messages written before the loop merged (those some branches leave out present or
            # absent), then what the loop appends
            head = merged_list([Seq(v.items[:v.head], v.span) for v in grown])
            if head is not None:
                items = list({id(x): x for v in grown for x in v.items[v.head:]}.values())
                written = [sometimes(i) for i in head.items]
                marks = tuple(dict.fromkeys(mk for v in grown for mk in v.markers))
                return self._looped(replace(head, items=written + items, repeated=True, head=len(written),
                                            markers=marks), frame, template)
        if grown and all(isinstance(v, Seq) for v in grown) and any(v.repeated for v in grown):
            # a list grown in a loop by branches (`if m.role == "tool": out.append(...) else: ...`)
            items = list({id(x): x for v in grown for x in v.items}.values())
            marks = tuple(dict.fromkeys(mk for v in grown for mk in v.markers))
            return [self.history_part(Seq(items, value.span, repeated=True, markers=marks), frame)], None
        merged = present_or_absent(grown)
        if merged is not None:
            return self.message_parts(merged, frame, template)
        if not isinstance(value, Seq):
            if isinstance(value, Text) and template:
                return [self.part("user", value, frame, None, template)], 0
            return [Part("history", [history_seg(value, getattr(value, "span", None), expr_of(value))])], None
        if value.repeated and value.head:
            return self._looped(value, frame, template)
        if value.repeated:
            return [self.history_part(value, frame)], None
        if value.markers:
            parts, newest = self.message_parts(replace(value, markers=()), frame, template)
            target = next((p for p in parts if p.is_history), parts[-1] if parts else None)
            if target is not None:
                target.breakpoints.extend(Breakpoint.set_by(len(target.segments) - 1, span, repeated)
                                          for span, repeated in value.markers)
            return parts, newest
        parts: list[Part] = []
        newest = None
        results: set[int] = set()  # user parts made of tool results (python/turn_replies.py)
        for item in value.items:
            newest = None
            if isinstance(item, Spread):
                parts.extend(self._spread(item, frame, template))
                continue
            role, content, span = self.message(item, frame)
            if role is None:
                parts.append(self._unreadable(item))
                parts[-1].reply = turn_replies.is_reply(item, None, None, self.sites)
                continue
            if role == "history":  # (`("placeholder", "{chat_history}")`: python/history_slots.py)
                written = "".join(s.text for s in content.segs if s.is_static) if isinstance(content, Text) else ""
                slot, empty = tuple_slot(written or expr_of(content), self._module_of(span))
                parts.append(Part("history", [Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN,
                                                      expr=expr_of(content), span=span, slot=slot,
                                                      slot_empty=empty)], span=span))
                continue
            parts.append(self.part(role, content, frame, span, template))
            parts[-1].reply = turn_replies.is_reply(item, role, content, self.sites)
            if role == "user":
                newest = len(parts) - 1
                if turn_replies.holds_tool_results(content):
                    results.add(id(parts[-1]))
        # a tool loop's follow-up: the user message the model's reply answers is the newest
        turn = turn_replies.newest_before_reply(parts, results)
        return parts, newest if turn is None else turn

    def _looped(self, value: Seq, frame, template: bool) -> tuple[list[Part], int | None]:
        """Messages written before a loop that appends to them: those first, then the history;
        the first turn is re-sent on every pass of the loop. When the messages before the loop
        end with the model's reply of this turn after its user message (`Part.reply`: the loop
        appends the results of the reply's tool calls), what the loop appends is this turn's own
        (after the reply: prefix.py, `turn_start`), and that user message is the newest, as
        `message_parts` finds it."""
        head, newest = self.message_parts(Seq(value.items[:value.head], value.span), frame, template)
        tail = Seq(value.items[value.head:], value.span, repeated=True, markers=value.markers)  # set on its items
        if newest is not None and newest + 1 < len(head) and head[newest + 1].reply \
                and all(self._turn_own(item, frame) for item in tail.items):
            return head + [self.history_part(tail, frame)], newest
        _first_turn(head, "the first turn, re-sent on every pass of the loop")
        return head + [self.history_part(tail, frame)], None

    def opening(self, value: Seq, frame, span: Span, steps: str) -> tuple[list[Part], int | None] | None:
        """The messages an agent run starts with, when it is handed a list of them and appends its
        own steps to it (`steps`: what it appends, in words; a LangGraph agent's replies and tool
        results): the start of a conversation, not a one-shot request's newest user message. The
        messages first, their per-request content per conversation (the run's first turn, re-sent
        on every step), then the steps as the history; no newest user message ends the prefix (as
        `_looped` lays out a loop of the code's own). None for a list that holds a conversation
        already (a history part: its last user message is the newest of that conversation) or
        that ends with no user message."""
        parts, newest = self.message_parts(value, frame)
        if newest is None or any(p.is_history for p in parts) or parts[-1].role != "user":
            return None
        _first_turn(parts, "the opening message of an agent run, re-sent on every step it appends", once=True)
        steps_part = Part("history", [Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, expr=steps,
                                              span=span, evidence=f"{steps}, appended after the messages it is run with")],
                          span=span)
        return parts + [steps_part], None

    def _turn_own(self, item, frame) -> bool:
        """True for a message a loop appends after the reply that belongs to the same turn: a tool
        result (a `tool` or `function` message, a user message of tool results) or a reply; not a
        user message (a chat loop's next turn) nor a message we cannot read."""
        role, content, _ = self.message(item, frame) if not isinstance(item, Spread) else (None, None, None)
        if role in ("tool", "function"):
            return True
        if role == "user":
            return turn_replies.holds_tool_results(content)
        return role is not None and turn_replies.is_reply(item, role, content, self.sites)

    def _spread(self, item: Spread, frame, template: bool) -> list[Part]:
        inner = item.value
        variants = [v for v in variants_of(inner) if isinstance(v, Seq)]
        if isinstance(inner, Alt) and variants and (head := self._system_head(inner, frame)) is not None:
            # the list assembled in steps and branches (`if system: msgs.append(system_msg)`, the
            # history extended in others) with a system message at the head of each that writes one
            message, always = head
            rest = without(inner, message)
            first = self.message_parts(Seq([message if always else sometimes(Alt([message, Text([])], item.span))],
                                           item.span), frame, template)[0]
            return first + self._spread(Spread(rest, item.span, item.expr), frame, template)
        if isinstance(inner, Alt) and variants:
            cut = window_of(inner)  # the conversation cut in one branch, a list in another (`else []`)
            merged = Seq([x for v in variants for x in v.items] + ([Spread(Text([cut]), item.span)] if cut else []),
                         item.span, repeated=True)
            return [self.history_part(merged, frame, item.span)]
        if isinstance(inner, Seq) and inner.repeated:
            return [self.history_part(inner, frame, item.span)]
        if isinstance(inner, Seq):
            return self.message_parts(inner, frame, template)[0]
        # (`*response.output`: the items of a reply of this turn, python/turn_replies.py)
        return [Part("history", [history_seg(inner, item.span, item.expr)], span=item.span,
                     reply=turn_replies.reads_reply(inner, self.sites))]

    def _system_head(self, value, frame):
        """(message, always) of the system message that heads every variant of the list `value`
        (list_heads.py), None when there is none."""
        found = head_of(value)
        return found if found is not None and self.message(found[0], frame)[0] in ("system", "developer") else None

    def _unreadable(self, item) -> Part:
        if isinstance(item, Obj) and is_placeholder_object(item):
            slot, empty = object_slot(item.node, self._module_of(item.span))
            return Part("history", [Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN,
                                            expr="MessagesPlaceholder", span=item.span, slot=slot, slot_empty=empty)],
                        span=item.span)
        return Part("history", [history_seg(item, getattr(item, "span", None), expr_of(item))])

    def _module_of(self, span: Span | None):
        """The module that holds `span` (a template built in another module), else this one."""
        if span is not None and span.filename != self.m.filename:
            return self.ev.project.held_named(span.filename) or self.m
        return self.m

    def history_part(self, seq: Seq, frame, span=None) -> Part:
        """The replayed conversation; serialized data in its messages (tool-call arguments) is kept
        so the serialization rules see it."""
        # a conversation cut to its newest messages and grown after the cut keeps the cut
        cut = next((w for i in seq.items if isinstance(i, Spread) and (w := window_of(i.value)) is not None),
                   None) or items_cut(seq.items)  # (or the messages of a cut put in it one by one)
        segs: list[Segment] = [cut or Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN,
                                              expr="conversation history", span=span or seq.span)]
        bps = [Breakpoint.set_by(0, where, repeated) for where, repeated in seq.markers]
        read = bool(seq.items)
        unread = None  # the first message not read (`explain` says what it is)
        once = len(seq.items) - seq.tail  # (the items from here on were added once, after the loop)
        for index, item in enumerate(seq.items):
            role, content, _ = self.message(item, frame) if not isinstance(item, Spread) else (None, None, None)
            if unread is None and (role is None or not read_whole(item)):
                unread = item
            read = read and role is not None and read_whole(item)
            if role is not None and content is not None:
                inner = self.part(role, content, frame, None)
                segs.extend(s for s in inner.segments if s.kind is Kind.SERIALIZED)
                # messages a loop renders one way among the newest, another older (rewrites.py): once
                segs.extend(s for s in marks_of(inner.segments) if all(s.window != x.window for x in segs))
                # a breakpoint on the blocks of the messages it converts (repeated: one per message)
                found = [(b.span, b.ttl) for b in inner.breakpoints] or [(where, None) for where in marker_keys(content)]
                every = seq.repeated and index < once and not conditional_marker(content)  # `if m.last`: not on every message
                bps.extend(Breakpoint(after=0, span=where, ttl=ttl, repeated=every) for where, ttl in found
                           if all(where != x.span for x in bps))
            if isinstance(item, Mapping):
                segs.extend(self._tool_call_args(item, frame))
        return Part("history", segs, bps, span=span or seq.span, read=read,
                    note="" if cut is not None else grown_evidence(seq, unread))

    def _tool_call_args(self, message: Mapping, frame) -> list[Segment]:
        out = []
        for v in message.items.values():
            if not isinstance(v, Seq):
                continue
            for call in v.items:
                if not isinstance(call, Mapping):
                    continue
                for fv in call.items.values():
                    if isinstance(fv, Mapping):
                        for x in fv.items.values():
                            out.extend(s for s in self.ev.text_of(x, frame) if s.kind is Kind.SERIALIZED)
        return out

    def message(self, item, frame) -> tuple[str | None, Value | None, Span | None]:
        """(role, content, span) of one message value, or (None, None, None)."""
        if isinstance(item, Mapping) and "role" in item.items:
            role = self.static_text(item.items["role"], frame)
            content = item.items.get("content") or item.items.get("parts")
            if content is None:
                content = Text([])
            return ROLE_ALIASES.get(role, role) if role else "unknown", content, item.span
        if isinstance(item, Seq) and item.is_tuple and len(item.items) == 2:
            role = self.static_text(item.items[0], frame)
            if role:
                return ROLE_ALIASES.get(role, role), item.items[1], item.span
        if isinstance(item, Obj):
            return self._message_object(item, frame)
        if isinstance(item, Alt):
            # a message chosen by a condition (`UserMessage(text)` or one with an image): one
            # message of that role whose content is one of the variants' contents
            found = [self.message(v, frame) for v in variants_of(item)]
            roles = {role for role, _, _ in found}
            if len(roles) == 1 and None not in roles:
                contents = [content for _, content, _ in found]
                return roles.pop(), contents[0] if len(contents) == 1 else Alt(contents, item.span), item.span
            if None not in roles and found:  # (`{"role": "developer", ...} if as_system else {"role": "user", ...}`)
                contents = list({id(c): c for _, c, _ in found}.values())
                return "unknown", contents[0] if len(contents) == 1 else Alt(contents, item.span), item.span
        return None, None, None

    def _message_object(self, item: Obj, frame):
        cls = item.qualname.rsplit(".", 1)[-1].removeprefix("instance:")
        if cls.startswith(tuple(MESSAGE_CLASSES)):
            base_cls = next(c for c in MESSAGE_CLASSES if cls.startswith(c))
            role = MESSAGE_CLASSES[base_cls]
            content = _given(item.kwargs, "content", "blocks", "template", "prompt") or (item.args[0] if item.args else None)
            if role is None:
                role = self.static_text(item.kwargs.get("role"), frame) or "unknown"
            if item.qualname.endswith(".from_template") and len(item.args) > 1:
                content = item.args[1]
            return role, content if content is not None else Text([]), item.span
        if ".from_template" in item.qualname:
            owner = item.qualname.rsplit(".", 2)[-2]
            role = MESSAGE_CLASSES.get(owner)
            if role:
                return role, item.args[1] if len(item.args) > 1 else Text([]), item.span
        if "role" in item.kwargs:  # a message class of the application (`Message(role=..., content=...)`)
            role = self.static_text(item.kwargs["role"], frame)
            content = _given(item.kwargs, "content", "text") or Text([])
            if role:
                return ROLE_ALIASES.get(role, role), content, item.span
        return None, None, None

    # ---------------------------------------------------------------- options
    def options(self, layout: PromptLayout, kwargs: dict, frame) -> None:
        """Request options the rules read: `prompt_cache_key` (also inside `extra_body`), and the cache-routing
        header `x-grok-conv-id` of `extra_headers` (an SDK's per-request headers) or `headers` (a posted request)."""
        for holder, keys in (("extra_body", ("prompt_cache_key",)), ("extra_headers", _HEADERS), ("headers", _HEADERS)):
            extra = self.value(kwargs[holder], frame) if holder in kwargs else None
            for key in keys:
                if holder == "extra_body" and key in kwargs:
                    layout.options[key] = self.option(kwargs[key], frame)
                elif isinstance(extra, Mapping) and (got := next((k for k in extra.items if isinstance(k, str)
                                                                  and k.lower() == key), None)) is not None:
                    span = extra.key_spans.get(got) or self.span_of(kwargs[holder])
                    layout.options[key] = self.option(Evaluated(extra.items[got], span, f"{holder}[{got!r}]"), frame)

    def option(self, node, frame) -> Segment:
        segs = self.ev.text_of(self.value(node, frame), frame)
        src = most_volatile(segs)
        span = self.span_of(node)
        if src is None:
            return Segment(text="".join(s.text for s in segs), span=span)
        expr = (src.expr or node.code) if isinstance(node, Evaluated) else self.code_of(node)
        return Segment(span=span, kind=src.kind, volatility=src.volatility, expr=expr,
                       evidence=src.evidence, origin=src.origin if src.origin != span else None,
                       source=src.source, source_name=src.source_name)

    # ---------------------------------------------------------------- layouts
    def add(self, node, source: str, provider, api, model, parts: list[Part], newest: int | None = None,
            span: Span | None = None) -> PromptLayout:
        """Record a layout for the prompt at `node` (its site)."""
        span = span or self.m.span(node)
        found_fanouts: list = []  # of a request only (python/fanout.py)
        for part in parts:
            if not part.is_history:
                part.segments = as_prompt_text(part.segments)
        if source == "python-call":
            self.sites.append(span)
            own = [part for part in parts if not part.is_history]
            for part in own:  # a value of each pass of a loop that sends the request (loop_values.py)
                part.segments = per_pass(part.segments, span, loop_spans(self.m))
            eaches = {s.each for part in own for s in part.segments if s.each is not None}
            for part in own:  # and text that stays the same in every pass of that loop
                part.segments = invariant(part.segments, span, self.m, eaches)
            found_fanouts = fanouts(self.ev, parts, self.m, span)  # (python/fanout.py)
        if newest is not None:
            # the newest user message is the request's input: what we cannot read in it is new per
            # request, unless the message holds the conversation or a parameter's known input
            # comes after it, or it is the same in every pass of a loop (layout_values.newest_input,
            # Policy 7)
            parts[newest].segments = newest_input(parts[newest].segments,
                                                  lambda seg: root_name(seg, self.m.filename, self.m.source))
        layout = PromptLayout(id=f"{self.m.filename}:{span.start.row}", site=span, source=source,
                              provider=provider, api=api,
                              model=None if is_placeholder_model(model) or is_foreign_model(provider, model) else model,
                              parts=parts, newest_user=newest)
        layout.fanouts = found_fanouts
        layout.templates = sorted({s.span.filename for p in parts for s in p.segments
                                   if s.span is not None and s.span.filename != self.m.filename and s.is_static})
        if source == "python-call":
            layout.reaches = list(dict.fromkeys(self.ev.reached))
            if any(p.is_history for p in parts):
                layout.clock_tests = clock_tests(self.ev.reached_funcs)
        self.layouts.append(layout)
        return layout

    def covered(self, span: Span) -> bool:
        """True when `span` lies inside a prompt already recorded (its site)."""
        return any(s.start <= span.start and span.end <= s.end for s in self.sites)


def _first_turn(parts: list[Part], evidence: str, once: bool = False) -> None:
    """Mark the per-request content of the messages a loop re-sends on every pass (the first
    turn of its conversation) per conversation, in place; content of unknown volatility keeps it
    (Policy 7: not the newest user message of a one-shot request). `once`: every value of those
    messages is also `written_once` (the history after it is its own conversation's)."""
    for part in parts:
        if part.role in ("user", "assistant", "tool"):
            part.segments = [replace(s, volatility=Volatility.PER_CONVERSATION if s.volatility is Volatility.PER_REQUEST
                                     else s.volatility, evidence=evidence if s.volatility is Volatility.PER_REQUEST
                                     and not s.name_only else s.evidence, written_once=once or s.written_once)
                             if not s.is_static and (once or s.volatility is Volatility.PER_REQUEST) else s
                             for s in part.segments]
