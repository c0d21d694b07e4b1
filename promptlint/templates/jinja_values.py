"""The values of Jinja2 expressions (`{{ expr }}`, `{% set x = expr %}`, call and filter
arguments) as prompt segments: bound Python values, clock and id calls, date and serializing
filters, names that hint at a time or an id (docs/policies.md, Policy 7). Templates are never rendered.

`_Values` is the expression half of the template walker (`jinja._Walker`): it reads the walker's
`ctx.bindings`, `vars`, `opaque`, `macros`, `namespaces` and `current_block`.
"""
from __future__ import annotations

from ..model import replace

from jinja2 import nodes

from ..model import Kind, Precision, Segment, Span, Volatility
from ..classify import TIMESTAMP_ATTRS, classify_name, strftime_precision
from .jinja_source import _Tag

_VOLATILE = (Volatility.PER_REQUEST, Volatility.PER_CONVERSATION, Volatility.PER_DAY,
             Volatility.PER_PROCESS)
_CLOCK_CALLS = {"now": Precision.SUB_DAY, "utcnow": Precision.SUB_DAY, "today": Precision.DAY,
                "time": Precision.SUB_DAY, "time_ns": Precision.SUB_DAY, "localtime": Precision.SUB_DAY,
                "gmtime": Precision.SUB_DAY, "ctime": Precision.SUB_DAY, "current_time": Precision.SUB_DAY,
                "current_date": Precision.DAY, "current_datetime": Precision.SUB_DAY,
                "timestamp": Precision.SUB_DAY}
_ID_CALLS = {"uuid", "uuid1", "uuid4", "uuid7", "random", "randint", "token_hex", "token_urlsafe",
             "nanoid", "ulid", "shortuuid"}
_ID_OWNERS = {"agent", "actor", "session", "conversation", "thread", "run", "request", "trace",
              "chat", "span", "runtime", "sandbox"}
_TIME_WORDS = {"time": Precision.SUB_DAY, "date": Precision.DAY, "datetime": Precision.SUB_DAY}
_SERIALIZING = {"tojson", "pprint"}
_ORDERING = {"sort", "dictsort"}
_SUPER = "the parent template's block (`super()`), not found"
_DATE_FILTERS = {"strftime", "datetimeformat", "datetime_format", "format_datetime", "format_date",
                 "date", "datetime"}


class _Values:
    """Segments of the expressions of one template (a mixin of `jinja._Walker`)."""

    def expr(self, node: nodes.Expr, tag: _Tag | None, at: nodes.Node) -> list[Segment]:
        """Segments of an expression output at `tag` (a `{{ }}` or a statement tag)."""
        span = self._tag_span(tag, at)
        src = tag.inner if tag else _dotted(node) or "expression"
        return self._value(node, span, src)

    def _value(self, node: nodes.Expr, span: Span, src: str) -> list[Segment]:
        if isinstance(node, nodes.Filter) and node.node is not None:
            return self._filtered(node, span, src)
        if isinstance(node, nodes.Const):
            return [Segment(text="" if node.value is None else str(node.value), span=span)]
        if isinstance(node, (nodes.Concat,)):
            return [s for n in node.nodes for s in self._value(n, span, src)]
        if isinstance(node, nodes.Add):
            if _number(node.left) or _number(node.right):  # arithmetic (`steps|length + 1`): one number
                return [s for s in self._value(node.left, span, src) + self._value(node.right, span, src)
                        if s.kind is not None][:1] or [_unknown(span, src)]
            return self._value(node.left, span, src) + self._value(node.right, span, src)
        if isinstance(node, nodes.CondExpr):
            branches = self._value(node.expr1, span, src) + (
                self._value(node.expr2, span, src) if node.expr2 is not None else [])
            cond = Segment(span=span, kind=Kind.CONDITIONAL, volatility=Volatility.UNKNOWN, expr=src,
                           evidence=f"`{src}`: a conditional expression")
            return [cond] + [s for s in branches if _keeps(s)]
        if isinstance(node, nodes.Name):
            if node.name in self.vars and node.name not in self.opaque:
                segments, respan = self.vars[node.name]
                return [replace(s, span=span, expr=src) if respan and s.kind is not None else replace(s)
                        for s in segments]
            return [self._named(node.name, span, src)]
        if isinstance(node, (nodes.Getattr, nodes.Getitem)):
            return [self._attribute(node, span, src)]
        if isinstance(node, nodes.Call):
            return self._call(node, span, src)
        children = [c.expr if isinstance(c, nodes.Operand) else c for c in node.iter_child_nodes()]
        found = [s for child in children if isinstance(child, nodes.Expr)
                 for s in self._value(child, span, src) if s.kind in (Kind.TIMESTAMP, Kind.UNIQUE_ID)]
        if found:
            return [found[0]]
        return [_unknown(span, src)]

    def _filtered(self, node: nodes.Filter, span: Span, src: str) -> list[Segment]:
        segs = self._value(node.node, span, src)
        out = []
        for s in segs:
            if s.kind is None or s.kind in (Kind.CONDITIONAL,):
                out.append(s)
            elif node.name in _DATE_FILTERS and s.kind is Kind.TIMESTAMP:
                fmt = _const_arg(node)
                prec = strftime_precision(fmt) if fmt is not None else s.precision
                out.append(_with_precision(s, prec) if prec else replace(s, kind=Kind.UNKNOWN,
                                                                          volatility=Volatility.STABLE))
            elif node.name in _SERIALIZING and s.kind not in (Kind.TIMESTAMP, Kind.UNIQUE_ID):
                out.append(replace(s, kind=Kind.SERIALIZED, ordered=True,
                                   evidence=f"`{node.name}` filter: serialized with sorted keys"))
            elif node.name in _ORDERING and s.kind in (Kind.UNORDERED_ITERATION, Kind.SERIALIZED):
                kind = Kind.TEMPLATE_VARIABLE if s.kind is Kind.UNORDERED_ITERATION else s.kind
                out.append(replace(s, kind=kind, ordered=True))
            else:
                out.append(s)
        return out

    def _call(self, node: nodes.Call, span: Span, src: str) -> list[Segment]:
        callee = node.node
        args_volatile = [s for a in list(node.args) + [k.value for k in node.kwargs]
                         for s in self._value(a, span, src) if _keeps(s)]
        name = _dotted(callee) or ""
        last = callee.attr if isinstance(callee, nodes.Getattr) else name.rsplit(".", 1)[-1]
        if isinstance(callee, nodes.Name) and callee.name in self.macros and callee.name not in self.opaque:
            return [replace(s) for s in self.macros[callee.name]] + args_volatile
        if isinstance(callee, nodes.Getattr) and isinstance(callee.node, nodes.Name) \
                and callee.node.name in self.namespaces and callee.attr in self.namespaces[callee.node.name]:
            return [replace(s) for s in self.namespaces[callee.node.name][callee.attr]] + args_volatile
        if name == "super" and self.current_block:
            return [Segment(span=span, kind=Kind.TEMPLATE_VARIABLE, volatility=Volatility.UNKNOWN,
                            expr=src, evidence=_SUPER)]
        root = name.split(".")[0]
        if root in self.opaque:
            return [_unknown(span, src)] + args_volatile
        if last in _CLOCK_CALLS and name not in self.ctx.bindings:
            prec = _CLOCK_CALLS[last]
            if name.endswith("date.today"):
                prec = Precision.DAY
            elif name.endswith("datetime.today"):
                prec = Precision.SUB_DAY
            return [Segment(span=span, kind=Kind.TIMESTAMP, volatility=_time_volatility(prec), expr=src,
                            precision=prec, name_only=True,
                            evidence=f"call to `{name}()` (the name is the evidence: a template global "
                                     f"that reads the clock)")]
        if isinstance(callee, nodes.Getattr):
            base = self._value(callee.node, span, src)
            if base and base[0].kind is Kind.TIMESTAMP:
                if last == "strftime":
                    fmt = _const_arg(node)
                    prec = strftime_precision(fmt) if fmt is not None else base[0].precision
                    if prec is None:
                        return [replace(base[0], kind=Kind.UNKNOWN, volatility=Volatility.STABLE)]
                    return [_with_precision(base[0], prec)]
                if last in ("date",):
                    return [_with_precision(base[0], Precision.DAY)]
                return base[:1]
        if last in _ID_CALLS:
            return [Segment(span=span, kind=Kind.UNIQUE_ID, volatility=Volatility.PER_REQUEST, expr=src,
                            name_only=True, evidence=f"call to `{name}()` (the name is the evidence: "
                                                     f"a new value on every call)")]
        return [_unknown(span, src)] + args_volatile

    def _attribute(self, node: nodes.Getattr | nodes.Getitem, span: Span, src: str) -> Segment:
        dotted = _dotted(node)
        if dotted is None:
            inner = self._value(node.node, span, src)
            return inner[0] if inner and inner[0].kind in (Kind.TIMESTAMP, Kind.UNIQUE_ID) else _unknown(span, src)
        root, attr = dotted.split(".")[0], dotted.rsplit(".", 1)[-1]
        if root in self.opaque:
            item = f"{self.items_of[root]}[]{dotted[len(root):]}" if root in self.items_of else None
            if item is not None and item in self.ctx.bindings:  # a field of each item of a list bound from Python
                return _bound(self.ctx.bindings[item], dotted, span, src)
            return _unknown(span, src)
        if dotted in self.ctx.bindings:
            return _bound(self.ctx.bindings[dotted], dotted, span, src)
        base = self._value(node.node, span, src)
        if base and base[0].kind is Kind.TIMESTAMP:
            prec = TIMESTAMP_ATTRS.get(attr)
            return _with_precision(base[0], prec) if prec else base[0]
        if base and base[0].kind is Kind.UNIQUE_ID and attr in ("hex", "int", "urn"):
            return base[0]
        if root in self.ctx.bindings and self.ctx.bindings[root].kind in (Kind.TIMESTAMP, Kind.UNIQUE_ID):
            return base[0]
        return _by_name(dotted, span, src) or _unknown(span, src)

    def _named(self, name: str, span: Span, src: str) -> Segment:
        if name in self.opaque:
            return _unknown(span, src)
        if name in self.ctx.bindings:
            return _bound(self.ctx.bindings[name], name, span, src)
        return _by_name(name, span, src) or _unknown(span, src)


# --------------------------------------------------------------------------- helpers
def classify_template_name(dotted: str) -> tuple[Kind, Volatility, Precision | None, str] | None:
    """Classify a template variable by its name alone (a hint, not proof: Policy 7).

    `dotted` is a name or attribute path ("current_date_time", "agent.id", "state.session_id").
    The last part goes through the Python name rules (`classify.classify_name`), plus the bare
    `time`, `date`, `datetime`; an `id` attribute of an agent, actor, session, conversation,
    thread, run, request, trace, chat, span, runtime or sandbox is a unique id that differs per
    instance. Returns (kind, volatility, precision, evidence) or None. Day, month and year
    precision timestamps are PER_DAY, finer ones PER_REQUEST.
    """
    parts = dotted.split(".")
    name = parts[-1]
    found = classify_name(name)
    if found is None and name.lower() in _TIME_WORDS:
        prec = _TIME_WORDS[name.lower()]
        found = (Kind.TIMESTAMP, _time_volatility(prec), prec, f"the name `{name}` (a current date or time)")
    if found is None and name == "id" and len(parts) > 1 and parts[-2].lower() in _ID_OWNERS:
        found = (Kind.UNIQUE_ID, Volatility.PER_CONVERSATION, None,
                 f"the name `{name}` (the id of a {parts[-2].lower()}, different per instance)")
    if found is None:
        return None
    kind, vol, prec, evidence = found
    if kind is Kind.TIMESTAMP and prec in (Precision.DAY, Precision.MONTH, Precision.YEAR):
        vol = Volatility.PER_DAY
    evidence = evidence.replace(f"`{name}`", f"`{dotted}`", 1) + " (the name is the only evidence)"
    return kind, vol, prec, evidence


def _by_name(dotted: str, span: Span, src: str) -> Segment | None:
    found = classify_template_name(dotted)
    if found is None:
        return None
    kind, vol, prec, evidence = found
    return Segment(span=span, kind=kind, volatility=vol, expr=src, precision=prec, name_only=True,
                   evidence=evidence)


def _bound(binding: Segment, name: str, span: Span, src: str) -> Segment:
    """A placeholder takes the classification of the value bound to it from Python; a value of
    unknown kind and volatility leaves the name as the only evidence (Policy 7)."""
    origin = binding.span or binding.origin
    note = binding.origin_note or f"value of `{name}` bound here"
    if binding.kind is None:
        return Segment(text=binding.text, span=span, origin=origin, origin_note=note)
    if binding.kind in (Kind.UNKNOWN, Kind.TEMPLATE_VARIABLE) and binding.volatility is Volatility.UNKNOWN:
        by_name = _by_name(name, span, src)
        if by_name is not None:
            return replace(by_name, origin=origin, origin_note=note)
    return replace(binding, span=span, expr=src, origin=origin, origin_note=note)


_SET_NOTE = "value set here"


def _set_value(segments: list[Segment]) -> list[Segment]:
    """A `{% set x = ... %}` / `{% with %}` value: its dynamic parts enter the prompt where `x`
    is output, and were produced at the tag (their origin)."""
    return [replace(s, origin=s.origin or s.span, origin_note=s.origin_note or _SET_NOTE)
            if s.kind is not None else s for s in segments]


def _unknown(span: Span, src: str) -> Segment:
    return Segment(span=span, kind=Kind.TEMPLATE_VARIABLE, volatility=Volatility.UNKNOWN, expr=src,
                   evidence=f"template variable `{src}`")


def _keeps(seg: Segment) -> bool:
    """Segments of a conditional or loop body that still matter: volatile values, and the
    conversation (its place decides what is cached before it)."""
    return seg.kind is not None and (seg.volatility in _VOLATILE or seg.kind in (Kind.UNORDERED_ITERATION, Kind.HISTORY))


def _time_volatility(prec: Precision | None) -> Volatility:
    coarse = prec in (Precision.DAY, Precision.MONTH, Precision.YEAR)
    return Volatility.PER_DAY if coarse else Volatility.PER_REQUEST


def _with_precision(seg: Segment, prec: Precision) -> Segment:
    return replace(seg, precision=prec, volatility=_time_volatility(prec))


def _const_arg(call: nodes.Call | nodes.Filter) -> str | None:
    if call.args and isinstance(call.args[0], nodes.Const) and isinstance(call.args[0].value, str):
        return call.args[0].value
    return None


def _dotted(node: nodes.Node | None) -> str | None:
    """`agent.id`, `ext["name"]` -> "ext.name"; None for anything else."""
    if isinstance(node, nodes.Name):
        return node.name
    if isinstance(node, nodes.Getattr):
        base = _dotted(node.node)
        return f"{base}.{node.attr}" if base else None
    if isinstance(node, nodes.Getitem) and isinstance(node.arg, nodes.Const):
        base = _dotted(node.node)
        return f"{base}.{node.arg.value}" if base else None
    return None


def _number(node) -> bool:
    """A numeric literal of an expression (`1`, `0.5`; not a string, not a boolean)."""
    return isinstance(node, nodes.Const) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
