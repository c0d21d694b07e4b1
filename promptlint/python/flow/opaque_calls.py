"""Calls we cannot follow (a mixin of the Evaluator through `calls.CallsMixin`): the result
changes as often as its most volatile input. Data fetched with the user's message (or the
conversation) is new on every request (Policy 7); given only the older part of the conversation
it changes when that part is cut again (`values.from_older`); a function named for reshaping a
conversation gives the conversation in another form, not data fetched with it."""
from __future__ import annotations

import re

from ...model import Kind, Source, Volatility, replace
from ..module import callee_name
from . import rewrites
from .budget import SPENT
from .frames import Frame
from .values import Alt, Mapping, Seq, Spread, Text, Value, dynamic, from_older, most_volatile


#: A function named for reshaping a conversation (`_format_messages`, `convert_history`): given the
#: conversation, it gives the conversation in another form, not data fetched with it.
_CONVERTS = re.compile(r"^_*(format|convert|transform|prepare|normali[sz]e|adapt|map|to)(_\w+)?_(messages|history|conversation)$",
                       re.IGNORECASE)


class OpaqueCallsMixin:
    """The reading of calls we cannot follow (module docstring)."""

    def opaque_call(self, node, inputs: list, frame: Frame) -> Value:
        """A call we cannot follow: its result changes as often as its most volatile input
        ("data fetched with the user's message" is per-request)."""
        m = frame.module
        fetched = self.fetched(node, inputs, frame)
        if fetched is not None:
            return fetched
        return dynamic(m.span(node), m.code(node), Kind.UNKNOWN, Volatility.UNKNOWN, f"result of `{m.code(node.func)}(...)`",
                       source=Source.CALL)

    def fetched(self, node, inputs: list, frame: Frame) -> Text | None:
        """The result of a call we cannot follow that takes the user's message (or the
        conversation) as input: "data fetched with it", new on every request (Policy 7). Given only
        the older part of the conversation (`summarise(history[:cut])`: a slice that leaves out its
        newest messages), it is not: it changes when that part is cut again, not with each message
        (`values.from_older`); `retrieve(history[-5:])`, the newest messages, is per-request."""
        flat = []
        for v in inputs:  # a question wrapped in a list or a dict (`query_texts=[question]`) counts too,
            flat.append(v)  # and so does a list made from it (`ids = [r["id"] for r in fetched]`)
            if isinstance(v, Seq):
                flat.extend(v.items)
                for item in v.items:  # and a list of messages that holds it (`messages=[{"role": "user",
                    if isinstance(item, Mapping):  # "content": query}]`: a model's answer to it)
                        flat.extend(item.items.values())
            elif isinstance(v, Mapping):
                flat.extend(v.items.values())
        older = None
        for v in flat:
            if not isinstance(v, (Text, Alt, Spread)):
                continue
            for seg in self.text_of(v, frame):
                if seg.kind is Kind.HISTORY and _CONVERTS.match(callee_name(node)):  # reshaped, not fetched
                    return Text([replace(seg, span=frame.module.span(node), expr=frame.module.code(node),
                                         origin=seg.origin or seg.span)])
                if seg.older:  # older messages only (what a compaction summarises), or text made of them
                    older = older or seg
                    continue
                if seg.kind is Kind.HISTORY and seg.unconfirmed:  # a list grown across calls (`self.tools`),
                    continue  # not known to hold the conversation: nothing is fetched with it
                if seg.kind is Kind.HISTORY or (seg.kind is Kind.USER_INPUT and seg.volatility is Volatility.PER_REQUEST):
                    m = frame.module
                    return dynamic(m.span(node), " ".join(m.code(node).split()), Kind.USER_INPUT, Volatility.PER_REQUEST,
                                   f"data fetched with `{seg.expr}`", origin=m.span(node), source=Source.CALL)
        if older is not None:
            m = frame.module
            return from_older(m.span(node), " ".join(m.code(node).split()), older)
        return None

    def after_call(self, result, node, inputs: list, frame: Frame):
        """A function of the tree whose result we could not read but which takes the user's
        message: its result is fetched with it (not one that returns the conversation it is given,
        with what we cannot read beside it: `initial + history[-50:]`). A text that an input marks as a conversation
        written with its older turns apart (`rewrites.py`) keeps the mark through a function that
        reshapes it (`limit_words(conv, 2500)`), and so does the result that replaces it."""
        if isinstance(result, Text) and len(result.segs) == 1 and result.segs[0].evidence == SPENT:
            return result  # not followed for want of budget: unknown, not "fetched" by its inputs
        if isinstance(result, Text):
            marks = rewrites.marks_of(result.segs) or [m for v in inputs if isinstance(v, (Text, Alt))
                                                        for m in rewrites.marks_of(self.text_of(v, frame))]
            src = most_volatile(result.segs)
            if src is not None and src.volatility is Volatility.UNKNOWN and src.kind is Kind.UNKNOWN \
                    and not any(s.kind is Kind.HISTORY for s in result.segs):
                # (a result that holds the conversation we read, `initial + history[-50:]`, is it)
                fetched = self.fetched(node, inputs, frame)
                if fetched is not None:
                    result = fetched
            if marks and src is not None and not rewrites.marks_of(result.segs):
                return Text(marks + result.segs)
            return _reply_here(result, node, frame)
        return result


def _reply_here(result: Text, node, frame: Frame) -> Text:
    """The reply of a request that a function of the tree sends and returns (`summary =
    self.model.chat(...)`, `ask(messages)`): data fetched where the callee sends it, which enters
    the caller's text at this call (Policy 8: reported where it enters, the send as its origin),
    not in the wrapper every caller shares. Any other result is returned as it is."""
    if len(result.segs) != 1:
        return result
    seg = result.segs[0]
    if seg.kind is not Kind.USER_INPUT or not seg.evidence.startswith("data fetched with") or seg.span is None:
        return result
    m = frame.module
    where = m.span(node)
    if seg.span.filename == where.filename and where.start <= seg.span.start and seg.span.end <= where.end:
        return result  # fetched by this very call
    return Text([replace(seg, span=where, expr=" ".join(m.code(node).split()), origin=seg.origin or seg.span)])
