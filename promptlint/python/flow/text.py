"""Values as prompt text: literals, f-strings, `str.format`, `%`, and the text of any value.

`text_of(value)` is the segments a value becomes when used as text (`str(value)`); `Alt` values
(one of several variants) keep their shared beginning and end and turn the part that differs into
one conditional segment. Dynamic segments that enter text at an interpolation are reported there
(`reenter`), with the place the value was produced as their origin (docs/policies.md, Policy 8).
"""
from __future__ import annotations

import ast
import re
from ...model import replace

from ...model import Anchor, Kind, Segment, Span, Volatility
from ... import classify
from ..strings import Field, Piece
from .values import Alt, Config, Mapping, Obj, PathV, Seq, Spread, Text, Value, most_volatile, vol_rank
from . import rewrites
from .turn_text import named_history
from .chosen_texts import shortest_template, stable_templates
from .segment_text import (align, excerpt, movable, piece_segment, reenter, same, seg_eq, short,
                           slice_segment, sub_span)

FORMAT_FIELD = re.compile(r"\{\{|\}\}|\{([^{}!:]*)(![rsa])?(?::([^{}]*))?\}")
#: A placeholder of `string.Template`: `$$`, `${name}` or `$name` (its default id pattern).
DOLLAR_FIELD = re.compile(r"\$\$|\$\{((?a:[_a-z][_a-z0-9]*))\}|\$((?a:[_a-z][_a-z0-9]*))", re.IGNORECASE)
#: A variable of a mustache (or jinja2) template: `{{name}}`, `{{ name }}`, `{{&name}}`, `{{{name}}}`;
#: section tags (`{{#x}}`, `{{/x}}`, `{{^x}}`), `{{.}}` and filters are not matched.
MUSTACHE_FIELD = re.compile(r"\{\{\{\s*([A-Za-z_][\w.]*)\s*\}\}\}|\{\{\s*&?\s*([A-Za-z_][\w.]*)\s*\}\}")


class TextMixin:
    """Text operations of the Evaluator."""

    def text_of(self, value: Value | None, frame) -> list[Segment]:
        """The segments of a value used as text (str(value))."""
        if value is None:
            return []
        if isinstance(value, Text):
            return value.segs
        if isinstance(value, Alt):
            cached = value.__dict__.get("_segs")
            if cached is None:  # variants share sub-values: compute each once
                cached = self._alt_text(value, frame)
                if not rewrites.marks_of(cached):  # a conversation written with its older turns apart stays so
                    marks = {m.window: m for o in value.options for m in rewrites.marks_of(self.text_of(o, frame))}
                    cached = list(marks.values()) + cached
                value.__dict__["_segs"] = cached
            return cached
        if isinstance(value, Spread):
            return self.text_of(value.value, frame)
        if isinstance(value, Seq):
            return self._seq_text(value, frame)
        if isinstance(value, Mapping):
            if value.unordered is not None:  # keys in a set's order (`{k: 0 for k in tags}`, `dict.fromkeys(tags)`)
                return [value.unordered]
            out: list[Segment] = []
            for v in value.items.values():
                out.extend(self.text_of(v, frame))
            keep = next((s for s in out if s.kind in (Kind.UNORDERED_ITERATION, Kind.SERIALIZED)), None)
            if keep is not None:
                return [keep]  # reported where it happens (the iteration, the dumps call), as in a list
            src = most_volatile(out)
            if src is None:
                return [Segment(span=value.span, kind=Kind.UNKNOWN, volatility=Volatility.STABLE, expr="dict")]
            return [replace(src, span=value.span or src.span)]
        if isinstance(value, PathV):
            if value.path:
                return [Segment(text=str(value.path), span=None)]
            if value.volatile is not None:
                return [value.volatile]
            return [Segment(kind=Kind.UNKNOWN, volatility=Volatility.STABLE, expr="path")]
        if isinstance(value, Config):
            return self._config_text(value)
        if isinstance(value, Obj):
            if value.qualname.startswith("message:"):
                content = value.kwargs.get("content") or (value.args[0] if value.args else None)
                return self.text_of(content, frame)
            return [Segment(span=value.span, kind=Kind.UNKNOWN, volatility=Volatility.UNKNOWN, expr=value.qualname,
                            evidence="an object")]
        return [Segment(kind=Kind.UNKNOWN, volatility=Volatility.UNKNOWN, expr="an unknown value")]

    def _seq_text(self, value: Seq, frame) -> list[Segment]:
        if value.unordered is not None and not value.ordered:
            return [value.unordered]
        out: list[Segment] = []
        for it in value.items:
            out.extend(self.text_of(it, frame))
        if value.ordered:
            out = [s for s in out if s.kind is not Kind.UNORDERED_ITERATION]
        keep = next((s for s in out if s.kind in (Kind.UNORDERED_ITERATION, Kind.SERIALIZED)), None)
        if keep is not None:
            return [keep]  # reported where it happens (the iteration, the dumps call)
        if value.repeated or not all(s.is_static for s in out):
            src = most_volatile(out)
            if src is None:
                return [Segment(span=value.span, kind=Kind.UNKNOWN, volatility=Volatility.STABLE, expr="list")]
            return [replace(src, span=value.span or src.span, origin=src.origin or src.span)]
        return [Segment(text=str([s.text for s in out]), span=value.span)]

    def _alt_text(self, value: Alt, frame) -> list[Segment]:
        """Text that is one of several variants: the shared beginning and end stay as they are,
        the part that differs becomes one conditional segment (or the variant's own volatile
        segments when a variant holds a clock reading, an id, user input or an iteration in an
        unstable order: where it enters the text is the finding's place; or the most volatile
        one when a variant holds content that can change: only variants of fixed text are a
        choice between a few prefixes; `value.fallback`, a value or its default, is one value per
        deployment or caller, not conditional, and so are `value.per_caller`, the fixed texts the
        callers of a function pass; `value.configured`, variants chosen by
        configuration, are fixed text for a deployment: the shortest present one)."""
        options = [self.text_of(o, frame) for o in value.options]
        if value.fallback:  # a configuration value unread, or its default: the default's text
            from .configured import default_over_configured
            options = default_over_configured(options)
        if all(same(o, options[0]) for o in options[1:]):
            return options[0]
        head, middles, tail = align(options)
        if all(len(mid) == len(middles[0]) and all(map(seg_eq, mid, middles[0])) for mid in middles[1:]):
            # the variants are the same value reached by several paths (`a = None`, then `a = op` in a
            # loop, `None` ruled out later): one value, not text present or absent by a condition
            return head + middles[0] + tail
        volatile = [mid for mid in middles if most_volatile(mid) is not None
                    and most_volatile(mid).kind in (Kind.TIMESTAMP, Kind.UNIQUE_ID, Kind.USER_INPUT)
                    or any(s.kind is Kind.UNORDERED_ITERATION for s in mid)]
        if volatile:
            middle = max(volatile, key=lambda o: vol_rank(most_volatile(o).volatility))
        else:
            span = value.span or next((s.span for mid in middles for s in mid if s.span is not None), None)
            present = [mid for mid in middles if any(s.text or not s.is_static for s in mid)]  # (`""` is absent)
            expr = next((s.expr for mid in present for s in mid if s.expr), "") or \
                excerpt(" ".join(next((s.text for mid in present for s in mid if s.text), "").split()))
            stable = all(s.is_static or s.volatility is Volatility.STABLE for mid in middles for s in mid)
            src = None if stable else max((most_volatile(mid) for mid in middles if most_volatile(mid) is not None),
                                          key=lambda seg: vol_rank(seg.volatility), default=None)
            # a variant holds content that can change (data of the request, a parameter): the text
            # is not one of a few fixed variants, it changes as that content does
            if src is not None:
                middle = [replace(src, span=value.span or src.span, origin=src.origin or src.span,
                                  inner=_other_values(middles, src))]
                if len(present) == 1 and any(x is src for x in present[0]):
                    # a section present or absent (`f"## How you behave\n{g}"`, or a template's text
                    # with several values): its static text and its other values are drawn around
                    # `src`, as the variant that has it writes them (they are no values of other variants)
                    at = next(n for n, x in enumerate(present[0]) if x is src)
                    middle = present[0][:at] + [replace(middle[0], inner=())] + present[0][at + 1:]
            elif value.fallback:
                # a value or its default: one per deployment or caller, not variants chosen per request
                middle = [Segment(span=span, kind=Kind.UNKNOWN, volatility=Volatility.STABLE, expr=expr,
                                  evidence=f"`{expr}` or its default when it is not given")]
            elif value.per_caller or value.configured or self._present_by_configuration(value, frame):
                # one variant per deployment (`if self.markdown: lines.append(...)`): fixed text for
                # a given configuration, the same on every request; or one per caller (the fixed
                # texts the callers of a function pass, `llm_validator("The name must be ...")`: the
                # requests of one caller share its text); the shortest present variant
                # stands for it (what a deployment or caller that has it sends at least)
                shown = [mid for mid in middles if any(s.text or not s.is_static for s in mid)]
                middle = min(shown, key=lambda mid: sum(len(s.text) for s in mid)) if shown else []
            elif stable_templates(middles):
                # each variant a text of its own filled with stable values (one of several templates,
                # `self.choose_prompt(spec).format(prompt=spec)`, spec what the instance is built
                # with): the shortest stands for it, its values keeping the others'
                middle = shortest_template(middles)
            elif any(not s.is_static for mid in middles for s in mid):
                # variants that differ by values not known here (`resolved.name` of paths that
                # different branches make): one value whose text is not known, not a few fixed texts
                middle = [Segment(span=span, kind=Kind.UNKNOWN, volatility=Volatility.STABLE, expr=expr,
                                  evidence=f"`{expr}`, one of several values not known statically")]
            else:  # one of a few fixed texts
                middle = [Segment(span=span, kind=Kind.CONDITIONAL, volatility=Volatility.UNKNOWN,
                                  expr=expr, evidence="present or absent by a condition")]
        return head + middle + tail

    def _present_by_configuration(self, value: Alt, frame) -> bool:
        """An item present or absent (one option no text) made under conditions on configuration
        only (`configured.present_by_configuration`): a list grown in branches of which some
        read other data still has those items fixed per deployment."""
        from .configured import present_by_configuration
        empty = [o for o in value.options if isinstance(o, Text) and not any(s.text or not s.is_static for s in o.segs)]
        if len(value.options) != 2 or len(empty) != 1:
            return False
        item = next(o for o in value.options if o is not empty[0])
        while isinstance(item, Alt) and len(item.options) == 2 and any(  # present or absent again (a merge of merges)
                isinstance(o, Text) and not any(s.text or not s.is_static for s in o.segs) for o in item.options):
            item = next(o for o in item.options if not (isinstance(o, Text) and not any(
                s.text or not s.is_static for s in o.segs)))
        made = self._return_cache.get(("appended at", id(item)))  # where `lines.append(item)` is
        return present_by_configuration(self, made[1] if made and made[0] is item else value.span, frame)

    def _config_text(self, value: Config) -> list[Segment]:
        from ...model import Position
        data = value.data
        where = Span(self.display(value.path), Position(1, 1), Position(1, 1))
        if isinstance(data, str):
            if self.config_hook is not None:
                loc = self.config_hook(value.path, value.text, value.keys)
                if loc is not None:
                    text, pos, _ = loc
                    return [Segment(text=text, span=Span(where.filename, pos, pos))]
            return [Segment(text=data, span=where)]
        return [Segment(kind=Kind.UNKNOWN, volatility=Volatility.STABLE, expr="configuration data", span=where)]

    # ---------------------------------------------------------------- literals
    def string(self, node: ast.Constant, frame) -> Text:
        """A str or bytes literal (implicit concatenations: one segment per token)."""
        m = frame.module
        pieces = m.pieces(node)
        value = node.value.decode("utf-8", "replace") if isinstance(node.value, bytes) else node.value
        if pieces is None or any(isinstance(p, Field) for p in pieces):
            return Text([Segment(text=value, span=m.span(node))])
        return Text([piece_segment(m, p) for p in pieces if p.text or len(pieces) == 1])

    def fstring(self, node: ast.JoinedStr, frame, env) -> Text:
        m = frame.module
        pieces = m.pieces(node)
        if pieces is None:
            return self._fstring_ast(node, frame, env)
        segs: list[Segment] = []
        for p in pieces:
            if isinstance(p, Piece):
                if p.text:
                    segs.append(piece_segment(m, p))
                continue
            where = m.span_of(p.start, p.end)
            expr_text = " ".join(m.source[p.expr_start:p.expr_end].split())
            if p.debug:  # `{x = }` writes "x = " (the expression as written, the "=" and the spaces after it)
                after = p.expr_end + 1
                while m.source[after] in " \t\r\n":
                    after += 1
                segs.append(Segment(text=m.source[p.expr_start:after], span=where))
            expr = m.field_expr(p)
            if expr is None:
                segs.append(Segment(span=where, kind=Kind.UNKNOWN, volatility=Volatility.UNKNOWN, expr=expr_text,
                                    evidence="expression not analysed"))
                continue
            inner = self.text_of(self.eval(expr, frame, env), frame)
            entered = reenter(inner, where, expr_text, p.spec_text(), caret=True)
            if any(movable(seg) for seg in entered):
                anchor = Anchor(where, "fstring-field", digest=m.digest)
                entered = [replace(seg, anchor=anchor) if movable(seg) else seg for seg in entered]
            segs.extend(entered)
        return Text(segs)

    def _fstring_ast(self, node: ast.JoinedStr, frame, env) -> Text:
        """An f-string whose source cannot be scanned: its parts as `ast` gives them."""
        m = frame.module
        segs: list[Segment] = []
        where = m.span(node)
        for part in node.values:
            if isinstance(part, ast.Constant):
                segs.append(Segment(text=str(part.value), span=where))
            elif isinstance(part, ast.FormattedValue):
                inner = self.text_of(self.eval(part.value, frame, env), frame)
                segs.extend(reenter(inner, where, m.code(part.value), None, caret=True))
        return Text(segs)

    def percent(self, tmpl: Text, args: list, mapping, node, frame) -> Text:
        """`tmpl % args` (or `% mapping`): each directive becomes the value's segments."""
        out: list[Segment] = []
        ai = 0
        m = frame.module
        for seg in tmpl.segs:
            if not seg.is_static:
                out.append(seg)
                continue
            pos = 0
            for mt in re.finditer(r"%(\(\w+\))?[-#0 +]*(?:[1-9]\d*)?(?:\.\d+)?[sdrfix%]", seg.text):
                out.append(slice_segment(seg, pos, mt.start()))
                pos = mt.end()
                if mt.group(0) == "%%":
                    out.append(slice_segment(seg, mt.start(), mt.start() + 1))  # "%", at the first of the two
                    continue
                if mt.group(1) and mapping is not None:
                    val = mapping.items.get(mt.group(1)[1:-1])
                elif ai < len(args):
                    val = args[ai]
                    ai += 1
                else:
                    val = None
                inner = self.text_of(val, frame) if val is not None else [
                    Segment(kind=Kind.UNKNOWN, volatility=Volatility.UNKNOWN, span=m.span(node), expr=m.code(node))]
                out.extend(reenter(inner, m.span(node), short(inner), None))
            out.append(slice_segment(seg, pos))
        return Text([s for s in out if not (s.is_static and not s.text)])

    def format_text(self, tmpl: Text, args: list, kwargs: dict, frame, call_span: Span | None,
                    keep_unbound: bool = False, literal_unbound: bool = False, dollar_literal: bool = False) -> Text:
        """`tmpl.format(*args, **kwargs)`: each `{field}` of the static text becomes the bound
        value's segments, reported at the placeholder (origin: the bound value's span). Unbound
        fields stay template variables when `keep_unbound`, else unknown; with `literal_unbound`
        (every argument written out by name: `str.format` would raise, so a safe formatter fills
        the text and leaves a field no argument names as written, `{area:.2f}` in example code),
        a named field no argument binds is static text; with `dollar_literal`, so is a field
        written after a `$` (`${var}`: string.Template's, a shell's or JavaScript's syntax)."""
        auto = 0

        def field(mt):
            nonlocal auto
            if mt.group(0) in ("{{", "}}"):
                return None
            head = re.split(r"[.\[]", mt.group(1).strip(), maxsplit=1)[0]
            if head == "" or head.isdigit():
                idx = auto if head == "" else int(head)
                auto += head == ""
                return head, args[idx] if idx < len(args) else None, mt.group(3)
            if literal_unbound and head not in kwargs or dollar_literal and mt.start() and mt.string[mt.start() - 1] == "$":
                return None, None, None  # left as written
            if not head.isidentifier() and head not in kwargs:
                # `{ "bbox": [x1, y1] }`: JSON written in the text, not a field a keyword names
                # (the text is filled another way, `.replace("{{page}}", ...)`): left as written
                return None, None, None
            return head, kwargs.get(head), mt.group(3)

        return self._fill(tmpl, FORMAT_FIELD, field, frame, keep_unbound)

    def dollar_text(self, tmpl: Text, kwargs: dict, frame, keep_unbound: bool = False) -> Text:
        """`string.Template(tmpl).substitute(**kwargs)`: each `$name` / `${name}` of the static
        text becomes the bound value's segments, reported at the placeholder; `$$` is a `$`.
        Unbound names stay template variables when `keep_unbound`, else unknown."""
        def field(mt):
            if mt.group(0) == "$$":
                return None
            head = mt.group(1) or mt.group(2)
            return head, kwargs.get(head), None

        return self._fill(tmpl, DOLLAR_FIELD, field, frame, keep_unbound)

    def mustache_text(self, tmpl: Text, kwargs: dict, frame, keep_unbound: bool = False) -> Text:
        """A mustache template's `{{name}}` variables filled from `kwargs` (name -> value),
        reported at the placeholder; section tags are left as written. Unbound names stay
        template variables when `keep_unbound`, else unknown."""
        def field(mt):
            return mt.group(1) or mt.group(2), kwargs.get(mt.group(1) or mt.group(2)), None

        return self._fill(tmpl, MUSTACHE_FIELD, field, frame, keep_unbound)

    def _fill(self, tmpl: Text, pattern, field, frame, keep_unbound: bool) -> Text:
        """The placeholders `pattern` finds in the static text of `tmpl`, filled: `field(match)`
        is None for an escape (`{{`, `$$`: its first character is kept), else (name, bound value
        or None, format spec or None)."""
        out: list[Segment] = []
        for seg in tmpl.segs:
            if not seg.is_static:
                out.append(seg)
                continue
            pos = 0
            for mt in pattern.finditer(seg.text):
                got = field(mt)
                if got is not None and got[0] is None:
                    continue  # a field left as written: part of the static text around it
                out.append(slice_segment(seg, pos, mt.start() + (got is None)))
                pos = mt.end()
                if got is None:
                    continue
                head, val, spec = got
                where = sub_span(seg, mt.start(), mt.end())
                if val is None:
                    out.append(self._unbound_field(head, mt.group(0), where, keep_unbound))
                    continue
                out.extend(reenter(named_history(head, self.text_of(val, frame)), where, mt.group(0), spec, caret=True))
            out.append(slice_segment(seg, pos))
        return Text([s for s in out if not (s.is_static and not s.text)])

    @staticmethod
    def _unbound_field(head: str, expr: str, where, keep_unbound: bool) -> Segment:
        found = classify.classify_name(head.rsplit(".", 1)[-1]) if head else None
        if found:
            kind, vol, prec, why = found
            return Segment(span=where, kind=kind, volatility=vol, precision=prec, expr=expr, evidence=why, name_only=True)
        return Segment(span=where, kind=Kind.TEMPLATE_VARIABLE if keep_unbound else Kind.UNKNOWN,
                       volatility=Volatility.UNKNOWN, expr=expr, evidence=f"template variable `{head}`")


#: Values of the other variants kept on the segment that stands for a choice (`Segment.inner`).
MAX_INNER = 8


def _other_values(middles: list[list[Segment]], src: Segment) -> tuple[Segment, ...]:
    """The values of unknown source (or per request) that the variants other than `src` write where
    they differ, at their own spans (`merged = f"{base}\n\n{additional_instructions}"` in one branch,
    `override` in another): the segment that stands for the choice keeps them, so that their
    names stay readable (`Segment.inner`)."""
    out: list[Segment] = []
    for mid in middles:
        for seg in mid:
            for one in (seg, *seg.inner):
                if one is not src and one.span is not None and not one.is_static and one.kind in _NAMED_KINDS \
                        and one.volatility in (Volatility.UNKNOWN, Volatility.PER_REQUEST) and not _held(one, out):
                    out.append(one)
                    if len(out) == MAX_INNER:  # (the first ones are kept: no later one changes them)
                        return tuple(replace(s, inner=()) for s in out)
    return tuple(replace(s, inner=()) for s in out)


_NAMED_KINDS = (Kind.UNKNOWN, Kind.USER_INPUT, Kind.TEMPLATE_VARIABLE)


def _held(seg: Segment, out: list[Segment]) -> bool:
    """`seg in out`, comparing whole segments (every field) only with those of the same span
    and expression: two equal segments have both equal."""
    span, expr = seg.span, seg.expr
    return any(o is seg or o.span == span and o.expr == expr and o == seg for o in out)
