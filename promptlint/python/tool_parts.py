"""The tools part of a request: tool lists written in the code, chosen by a condition, built at run
time or iterated from a set, and a structured-output schema (`response_format`). A mixin of
python/layout.py's LayoutBuilder (it reads `self.value`, `self.span_of`, `self.code_of`, `self.ev`,
`self.m` and records unplaced breakpoints in `self.unplaced`).
"""
from __future__ import annotations

from ..model import Anchor, Breakpoint, Kind, Part, Segment, Span, Volatility, replace
from .flow.variants import list_variants
from .flow.segment_text import const_str
from .flow.values import Alt, Func, Mapping, Seq, Text, most_volatile
from .layout_values import marker_keys
from .tool_defs import find_stamped, is_stamp
from .tool_values import all_unordered, static_json, tool_schema, tool_shape


class ToolParts:
    """Tool-definition and schema parts of a LayoutBuilder."""

    def tools(self, node, frame, api_shape: str | None = None) -> list[Part]:
        """The tools part of a request (empty when there are none). `api_shape` is the tool shape
        the API requires ("nested" for OpenAI chat, "flat" for Anthropic and Responses)."""
        if node is None:
            return []
        value = self.value(node, frame)
        span = self.span_of(node)
        sources = all_unordered(value)
        if sources:  # (several: one finding that names each, fixed by one sort of the whole list)
            unordered = sources[0]
            return [Part("tools", [replace(unordered, anchor=self._tools_anchor(value, span, sources, api_shape),
                                           others=tuple(sources[1:]))], span=span)]
        static = self._static_tools(value, span)
        if static is not None:
            return [static]
        variants = list_variants(value) if isinstance(value, Alt) else None
        known = [self._static_tools(v, span) for v in variants or ()]
        if known and all(k is not None for k in known):
            # one tool list or another by a condition (`DONE if last_step else TOOLS`): the text they
            # share stays, where they differ is conditional (a request with the other list misses there)
            segs = [replace(s, expr=self.code_of(node), evidence="one tool list or another by a condition")
                    if s.kind is Kind.CONDITIONAL else s
                    for s in self.ev.text_of(Alt([Text(k.segments) for k in known], span), frame)]
            bps = list({bp.span or id(bp): bp for k in known for bp in k.breakpoints}.values())  # one per marker
            return [Part("tools", segs, bps, span=span)]
        src = most_volatile(self.ev.text_of(value, frame))
        stamped = src if is_stamp(src) else find_stamped(value)
        if stamped is not None:
            return [Part("tools", [stamped], span=span)]  # an id or a time in a tool's name or description
        self.unplaced.extend(marker_keys(value))  # a breakpoint on tools built at run time
        sources = all_unordered(value, fields=True) if src is not None and src.kind is Kind.UNORDERED_ITERATION else []
        if sources:  # tools made from unordered sources (`[{"name": n} for n in local]`): each where it is iterated
            first = sources[0]
            return [Part("tools", [replace(first, span=span, volatility=Volatility.UNKNOWN, anchor=None,
                                           listed=(*first.listed, first.span), others=tuple(sources[1:]))], span=span)]
        seg = Segment(span=span, kind=Kind.UNORDERED_ITERATION if src is not None and src.kind is Kind.UNORDERED_ITERATION
                      else Kind.UNKNOWN, volatility=Volatility.UNKNOWN, expr=self.code_of(node),
                      evidence="tool definitions not known statically")
        return [Part("tools", [seg], span=span)]

    @staticmethod
    def _static_tools(value, span: Span) -> Part | None:
        """The tools part of a list of tool dicts (or functions) written in the code, with the
        cache breakpoints set on them, or None for any other value."""
        if not (isinstance(value, Seq) and not value.repeated and all(isinstance(i, (Mapping, Func)) for i in value.items)):
            return None
        rendered = static_json(Seq([tool_schema(i) if isinstance(i, Func) else i for i in value.items]))
        if rendered is None:
            return None
        bps = [Breakpoint(after=0, span=i.key_spans.get(key))
               for i in value.items if isinstance(i, Mapping)
               for key in ("cache_control", "cachePoint") if key in i.items]
        return Part("tools", [Segment(text=rendered, span=span)], bps, span=span)

    def _tools_anchor(self, value, span: Span, sources: list[Segment], api_shape: str | None) -> Anchor | None:
        """Where the fix for a tools list in unstable order edits: the listing it iterates when
        that yields paths or names (sortable) and is its only unordered source (`sources`); else
        the tools expression (every source sorted at once), sorted with the key the
        elements' shape needs, as seen in the code: tool dicts or objects by name, strings (tool
        names) by themselves ("str": `sorted(x)`). When the elements are not seen, the shape the
        API requires gives a display-only fix ("display" detail): a key that assumes a shape would
        raise on elements of another (`t.get` on a str). None without either."""
        unordered = sources[0]
        if unordered.anchor is not None and unordered.evidence == "directory listing order" and len(sources) == 1:
            return unordered.anchor
        if any(s.span is None or s.span.filename != self.m.filename for s in sources):
            return None
        names = all(self._set_elements(s) for s in sources)
        if unordered.anchor is not None and unordered.anchor.place == "iterable" and names and len(sources) == 1:
            return unordered.anchor  # `for name in sorted(NAMES)` where the order enters, not a second sort at the send
        shape = tool_shape(value) or (self._set_elements(unordered) if names else None)
        if shape is not None:
            return Anchor(span, "tools", (("shape", shape),), self.m.digest)
        if api_shape is None:
            return None
        return Anchor(span, "tools", (("shape", api_shape), ("display", "the tools' shape is not seen in the code")), self.m.digest)

    def _set_elements(self, unordered: Segment) -> str | None:
        """"str" when the set that orders the tools is seen to hold strings (`hashing`)."""
        from .flow.hashing import STR, element_type, node_at
        where = unordered.origin or unordered.span
        if where is None or where.filename != self.m.filename:
            return None
        node = node_at(self.m.tree, self.m.span, where)
        return STR if node is not None and element_type(node) == STR else None

    def schema_part(self, node, frame) -> list[Part]:
        """A structured-output schema (`response_format`): static when written as a literal. JSON
        mode or plain text (`{"type": "json_object"}`, `{"type": "text"}`) is a request option with
        no schema: nothing of it is in the prompt (no part)."""
        span = self.m.span(node)
        value = self.ev.eval(node, frame)
        if isinstance(value, Mapping) and list(value.items) == ["type"] and not value.repeated \
                and const_str(value.items["type"]) in ("json_object", "text"):
            return []
        if isinstance(value, Mapping):
            rendered = static_json(Seq([value]))
            if rendered is not None:
                return [Part("tools", [Segment(text=rendered, span=span)], span=span)]
        return [Part("tools", [Segment(span=span, kind=Kind.UNKNOWN, volatility=Volatility.STABLE,
                                       expr=self.code_of(node), evidence="response schema")], span=span)]
