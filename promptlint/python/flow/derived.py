"""A value computed from another that the evaluator cannot compute (`obj.attr`, `x[k]`, a method's
result): `derived` gives it the volatility of its most volatile source segment, keeps what the
source proves (a timestamp's field at its own precision, a message of the older conversation, an
unordered listing, a value picked at random), reads names of configuration and of known kinds
(`classify.classify_name`), and is `unknown` otherwise, never a guess. A mixin of the Evaluator
(core.py)."""
from __future__ import annotations

import ast

from ...model import Kind, Volatility, replace
from ... import classify
from .configured import configuration_holder, read_from_configured
from .frames import Frame
from .values import Alt, Obj, Text, Value, dynamic, from_older, grown_name, most_volatile
from .windows import TAKEN, first_message


class DerivedMixin:
    def derived(self, base: Value, node, frame: Frame, expr: str, attr: str | None = None) -> Value:
        """A value computed from `base` that we cannot compute: it changes as often as `base`."""
        if attr is not None and isinstance(base, Alt):
            item = self.item_of_variants(base, attr, node, frame)  # a dict's item, not its other items
            if item is not None:
                return item
        m = frame.module
        span = m.span(node)
        segs = self.text_of(base, frame) if isinstance(base, (Text, Alt)) else []
        src = most_volatile(segs)
        if attr is not None and isinstance(base, Obj) and base.qualname.startswith(("self:", "instance:")):
            found = classify.classify_name(attr)
            if found:
                kind, vol, prec, why = found
                return dynamic(span, expr, kind, vol, why, precision=prec, name_only=True)
            return dynamic(span, expr, Kind.UNKNOWN, Volatility.UNKNOWN,  # `state["email"]`: an item
                           f"{'item' if isinstance(node, ast.Subscript) else 'attribute'} `{expr}`")
        if src is None:
            return self._derived_unknown(segs, span, expr, attr)
        if src.kind is Kind.TIMESTAMP and attr is not None:
            if attr in classify.TIMESTAMP_ZONE:
                return dynamic(span, expr, Kind.UNKNOWN, Volatility.STABLE, "a time zone, not a time")
            if attr in classify.TIMESTAMP_ATTRS:
                return Text([replace(src, span=span, expr=expr, precision=classify.TIMESTAMP_ATTRS[attr],
                                     origin=src.origin or src.span, anchor=None)])
        if src.kind is Kind.UNORDERED_ITERATION and attr is not None:
            return Text([src])  # a part of an unordered listing (`result.tools`) keeps its order problem
        if src.older:  # a message of the older part of the conversation, or text made of them
            return from_older(span, expr, src)
        if src.kind is Kind.HISTORY and src.unconfirmed:
            # `len(self.candidates)`, `self.journal.summary()`: read from a list an instance grows
            # across turns, new whenever its methods add to it; no message of a conversation
            return dynamic(span, expr, Kind.UNKNOWN, Volatility.PER_REQUEST,
                           f"read from `{grown_name(src)}`, a list its methods add to", origin=src.origin or src.span)
        if src.kind is Kind.HISTORY and first_message(node):  # `history.pop(0)["content"]`: read as `history[0]` is
            return dynamic(span, expr, Kind.UNKNOWN, Volatility.UNKNOWN,
                           f"an early message of the conversation `{src.expr}` (often its system message)")
        if src.kind is Kind.HISTORY:
            # an element of the conversation: the newest message changes every request
            return dynamic(span, expr, Kind.USER_INPUT, Volatility.PER_REQUEST,
                           f"{TAKEN} `{src.expr}`", origin=src.span)
        if src.kind is Kind.UNIQUE_ID and attr is not None and src.evidence.endswith(classify.PICKED_AT_RANDOM):
            # `random.choice(nodes).code`: the content of the element picked, per request; no random value
            return dynamic(span, expr, Kind.UNKNOWN, Volatility.PER_REQUEST, f"read from {src.evidence}",
                           origin=src.origin or src.span)
        if src.kind in (Kind.TIMESTAMP, Kind.UNIQUE_ID, Kind.USER_INPUT):
            return Text([replace(src, span=span, expr=expr, origin=src.origin or src.span, anchor=None)])
        if (named := read_from_configured(src, attr, span, expr)) is not None:
            return named  # `self.agent.current_time` of a configured `self.agent`: what the name says
        if attr is not None and src.kind is Kind.UNKNOWN and src.volatility is Volatility.UNKNOWN \
                and (holder := configuration_holder(node)) is not None:  # `self.cfg.max_images`, cfg not read
            return dynamic(span, expr, Kind.UNKNOWN, Volatility.STABLE,
                           f"read from `{holder}` (configuration, fixed for a run)", name_only=True)
        # a part of data whose key order is fixed (parsed from text, a model's dict) keeps that order
        return dynamic(span, expr, src.kind if src.kind is Kind.CONDITIONAL else Kind.UNKNOWN, src.volatility,
                       src.evidence or f"derived from `{src.expr}`", origin=src.origin or src.span,
                       name_only=src.name_only, ordered=src.ordered if src.kind is not Kind.SERIALIZED else None,
                       stored=src.stored, each=src.each, source=src.source, source_name=src.source_name)

    @staticmethod
    def _derived_unknown(segs, span, expr: str, attr: str | None) -> Text:
        if segs and all(s.is_static for s in segs):
            return dynamic(span, expr, Kind.UNKNOWN, Volatility.STABLE, "computed from constants")
        if attr is not None:
            found = classify.classify_name(attr)
            if found:
                kind, vol, prec, why = found
                return dynamic(span, expr, kind, vol, why, precision=prec, name_only=True)
            if attr.lower() in classify.HISTORY_NAMES:
                return dynamic(span, expr, Kind.HISTORY, Volatility.UNKNOWN, f"`{expr}`")
        return dynamic(span, expr, evidence=f"`{expr}` is not resolved")
