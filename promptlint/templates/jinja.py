"""Jinja2 templates -> prompt segments, with exact rows and columns. Templates are never rendered.

The template is parsed with jinja2's own parser (`Environment.parse`) and lexed with its own lexer
(`Lexer.tokeniter`). Jinja nodes carry a line number only, so every raw token is located in the
source text (each token's value is a verbatim slice of the source, whitespace control included),
and the nodes, visited in source order, are matched to their tokens: `{{ ... }}` tags to expression
nodes, `{% kw ... %}` tags to statements, `data` tokens to `TemplateData`.

What comes out, in output order (the segments of a `PromptLayout`):
- literal text: a static Segment whose `text` is written verbatim from `span.start`;
- `{{ expr }}`: dynamic Segments at the placeholder's span (from `{{` to after `}}`), classified by
  the value bound from Python (`bindings`), else by what the expression calls and by its name
  (a hint, `name_only=True`: docs/policies.md, Policy 7);
- `{% if %}`: one CONDITIONAL segment at the tag, plus the volatile segments of its branches;
- `{% for %}`: one segment for the loop's output at the tag (template-variable, or
  unordered-iteration over `set(...)`), plus the volatile segments of its body;
- `{% set x %}...{% endset %}`, `{% set x = a + b %}` and macros are inlined where they are output;
  `{% include %}`, `{% extends %}` / `{% block %}` and `{% import %}` resolve within the search paths.

Here: the layout of a template (statements in output order). Reading and locating the source is
`jinja_source`, the values of expressions and filters `jinja_values`, other template files
`jinja_includes`.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from jinja2 import nodes
from jinja2.exceptions import TemplateSyntaxError

from ..model import Kind, Position, Segment, Span, Volatility
from .jinja_includes import _Context, _display_root, _Includes
from .jinja_source import (_read, _Source, _Tag, attribute_paths, environment, has_jinja_syntax, item_paths,
                           normalize_newlines)
from .jinja_values import (_ORDERING, _SUPER, _Values, _dotted, _keeps, _set_value, _unknown,
                           classify_template_name)

__all__ = ["TemplateResult", "attribute_paths", "classify_template_name", "environment", "has_jinja_syntax",
           "item_paths", "normalize_newlines", "read_template", "template_segments"]


def read_template(path: Path) -> str | None:
    """A template file's text (as `template_segments` reads it), or None when it cannot be read."""
    try:
        return _read(Path(path))
    except (OSError, ValueError):
        return None


@dataclass
class TemplateResult:
    """What a template contributes to a prompt.

    `segments`: in output order. `templates`: display filenames of every template file whose text
    is included (the template itself first). `errors`: (1-based row, message) syntax errors of
    this template file; when there is one, `segments` is empty.
    """

    segments: list[Segment] = field(default_factory=list)
    templates: list[str] = field(default_factory=list)
    errors: list[tuple[int, str]] = field(default_factory=list)


def template_segments(path: Path, filename: str, text: str | None = None,
                      bindings: dict[str, Segment] | None = None,
                      search_paths: list[Path] | None = None) -> TemplateResult:
    """Parse one Jinja2 template (never render it) into prompt segments.

    `path`: the template file (read when `text` is None). `filename`: its display name, used in
    every Span of this file. `bindings`: template variable name (or dotted name such as
    "agent.id") -> the Segment of the value Python passes for it (`render(name=...)`); a bound
    placeholder takes that segment's kind/volatility/precision/evidence, its span becomes the
    placeholder's span and its `origin` the binding's span. `search_paths`: the loader's folders
    for `{% include %}` / `{% extends %}` / `{% import %}` (the template's folder and its
    ancestors are tried after them). Rows and columns are 1-based; spans end exclusive.
    Raises OSError when `text` is None and the file cannot be read.
    """
    if text is None:
        text = _read(Path(path))
    root = _display_root(Path(path), filename)
    ctx = _Context(bindings or {}, [Path(p) for p in search_paths or []], root)
    ctx.templates.append(filename)
    try:
        source = _Source.parse(text)
    except TemplateSyntaxError as exc:
        return TemplateResult([], [filename], [(exc.lineno or 1, exc.message or str(exc))])
    walker = _Walker(ctx, source, Path(path), filename, [Path(path).resolve()])
    segments = walker.run()
    return TemplateResult(segments, list(dict.fromkeys(ctx.templates)), [])


# --------------------------------------------------------------------------- the walker
class _Walker(_Values, _Includes):
    """Visits one template's AST in source order, producing segments."""

    def __init__(self, ctx: _Context, source: _Source, path: Path, filename: str, stack: list[Path],
                 local_vars: dict | None = None, block_overrides: dict | None = None):
        self.ctx, self.src, self.path, self.filename, self.stack = ctx, source, path, filename, stack
        # name -> (segments, re-span): `{% set x = expr %}` values enter the prompt where `x` is
        # output (re-span), `{% set x %}...{% endset %}` text stays where it is written
        self.vars: dict[str, tuple[list[Segment], bool]] = dict(local_vars or {})
        self.opaque: set[str] = set()  # loop targets and macro parameters: never classified by name
        self.items_of: dict[str, str] = {}  # a loop target -> the variable it iterates (`ruleset` -> `rulesets`)
        self.macros: dict[str, list[Segment]] = {}
        self.namespaces: dict[str, dict[str, list[Segment]]] = {}
        self.blocks: dict[str, list[Segment]] = {}
        self.overrides = block_overrides or {}
        self.current_block: str | None = None
        self._vi = self._bi = self._di = 0

    # ---- entry points
    def run(self) -> list[Segment]:
        body = self.src.tree.body
        segs = self.stmts(body)
        extends = next((n for n in body if isinstance(n, nodes.Extends)), None)
        if extends is None:
            return segs
        overrides = {**self.overrides, **self.blocks}
        parent = self._subtemplate(extends.template, local_vars=self.vars, overrides=overrides)
        if parent is None:
            return segs + [self._unresolved(extends, "extends")]
        return parent

    # ---- matching nodes to tags
    def _var_tag(self, node: nodes.Node) -> _Tag | None:
        if node.lineno is None:  # a node the parser made without a line: no tag to match it to
            return None
        tags = self.src.var_tags
        for i in range(self._vi, len(tags)):
            if tags[i].first_line <= node.lineno <= tags[i].last_line:
                self._vi = i + 1
                return tags[i]
        return None

    def _block_tag(self, node: nodes.Node, *keywords: str) -> _Tag | None:
        if node.lineno is None:  # a node the parser made without a line: no tag to match it to
            return None
        tags = self.src.block_tags
        for i in range(self._bi, len(tags)):
            t = tags[i]
            if t.keyword in keywords and t.first_line <= node.lineno <= t.last_line:
                self._bi = i + 1
                return t
        return None

    def _data(self, node: nodes.TemplateData) -> int | None:
        datas = self.src.datas
        for i in range(self._di, len(datas)):
            off, value = datas[i]
            if value == node.data:
                self._di = i + 1
                return off
        return None

    def _tag_span(self, tag: _Tag | None, node: nodes.Node) -> Span:
        if tag is None:
            pos = Position(node.lineno, 1)
            return Span(self.filename, pos, pos)
        return self.src.span(self.filename, tag.start, tag.end)

    # ---- statements
    def stmts(self, body: list[nodes.Node]) -> list[Segment]:
        out: list[Segment] = []
        for node in body:
            out.extend(self.stmt(node))
        return out

    def stmt(self, node: nodes.Node) -> list[Segment]:
        if isinstance(node, nodes.Output):
            return self._output(node)
        if isinstance(node, nodes.If):
            return self._if(node)
        if isinstance(node, nodes.For):
            return self._for(node)
        if isinstance(node, nodes.Assign):
            tag = self._block_tag(node, "set")
            value = _set_value(self.expr(node.node, tag, node))
            for name in _target_names(node.target):
                self.vars[name] = (value if isinstance(node.target, nodes.Name) else [
                    _unknown(self._tag_span(tag, node), tag.inner if tag else name)], True)
            return []
        if isinstance(node, nodes.AssignBlock):
            self._block_tag(node, "set")
            body = self.stmts(node.body)
            for name in _target_names(node.target):
                self.vars[name] = (body, False)
            return []
        if isinstance(node, nodes.Macro):
            self._block_tag(node, "macro")
            self.macros[node.name] = self._scoped(node.body, [a.name for a in node.args] + ["varargs", "kwargs"])
            return []
        if isinstance(node, nodes.CallBlock):
            tag = self._block_tag(node, "call")
            call = self.expr(node.call, tag, node)
            body = self._scoped(node.body, [a.name for a in node.args])
            return call + [s for s in body if _keeps(s)]
        if isinstance(node, nodes.Block):
            return self._block(node)
        if isinstance(node, nodes.Include):
            return self._include(node)
        if isinstance(node, nodes.Extends):
            self._block_tag(node, "extends")
            return []
        if isinstance(node, (nodes.Import, nodes.FromImport)):
            self._import(node)
            return []
        if isinstance(node, nodes.With):
            tag = self._block_tag(node, "with")
            saved = dict(self.vars)
            for target, value in zip(node.targets, node.values):
                for name in _target_names(target):
                    self.vars[name] = (_set_value(self.expr(value, tag, node)), True)
            out = self.stmts(node.body)
            self.vars = saved
            return out
        if isinstance(node, nodes.FilterBlock):
            self._block_tag(node, "filter")
            return self.stmts(node.body)
        if isinstance(node, nodes.Scope):  # the wrapper of `{% autoescape %}`: no line of its own
            return self.stmts(node.body)
        if isinstance(node, (nodes.ScopedEvalContextModifier, nodes.EvalContextModifier)):
            self._block_tag(node, "autoescape")
            return self.stmts(getattr(node, "body", []))
        if isinstance(node, nodes.ExprStmt):
            self._block_tag(node, "do")
            return []
        return []

    def _output(self, node: nodes.Output) -> list[Segment]:
        out: list[Segment] = []
        for child in node.nodes:
            if isinstance(child, nodes.TemplateData):
                off = self._data(child)
                if off is None:
                    pos = Position(child.lineno, 1)
                    span = Span(self.filename, pos, pos)
                else:
                    span = self.src.span(self.filename, off, off + len(child.data))
                out.append(Segment(text=child.data, span=span))
            else:
                out.extend(self.expr(child, self._var_tag(child), child))
        return out

    def _if(self, node: nodes.If) -> list[Segment]:
        tag = self._block_tag(node, "if")
        known = self._truth(node.test)
        if known is True:  # `{% if include_diff %}` rendered with `include_diff=True`: its body, as written
            return self.stmts(node.body)
        if known is False and not node.elif_:
            return self.stmts(node.else_)
        span = self._tag_span(tag, node)
        test = tag.inner if tag else "if ..."
        test_segs = self.expr(node.test, tag, node)
        inner = self.stmts(node.body)
        for elif_ in node.elif_:
            inner += self._if_branch(elif_)
        inner += self.stmts(node.else_)
        cond = Segment(span=span, kind=Kind.CONDITIONAL, volatility=Volatility.UNKNOWN, expr=test,
                       evidence=f"`{{% {test} %}}`: the text inside is present or absent by a condition",
                       inner=_dropped(inner))
        return [cond] + [s for s in test_segs if _keeps(s) and s.kind is not Kind.HISTORY] + [s for s in inner if _keeps(s)]

    def _truth(self, test: nodes.Expr) -> bool | None:
        """The truth value of an `{% if %}` test that is a variable (or `not` one) bound by the render
        call to a Python constant (`Segment.truth`: `True`, `False`, `None`), else None (not known)."""
        if isinstance(test, nodes.Not):
            inner = self._truth(test.node)
            return None if inner is None else not inner
        if isinstance(test, nodes.Name) and test.name not in self.vars and test.name not in self.opaque:
            bound = self.ctx.bindings.get(test.name)
            return bound.truth if bound is not None and bound.is_static else None
        return None

    def _if_branch(self, node: nodes.If) -> list[Segment]:
        tag = self._block_tag(node, "elif")
        return self.expr(node.test, tag, node) + self.stmts(node.body)

    def _for(self, node: nodes.For) -> list[Segment]:
        tag = self._block_tag(node, "for")
        span = self._tag_span(tag, node)
        loop_src = tag.inner if tag else "for ..."
        loop = self._loop_segment(node.iter, span, loop_src)
        saved = dict(self.items_of)
        iterable = node.iter
        while isinstance(iterable, nodes.Filter) and iterable.node is not None:
            iterable = iterable.node
        name = _dotted(iterable)
        if isinstance(node.target, nodes.Name) and name is not None and name.split(".")[0] not in self.opaque:
            self.items_of[node.target.name] = name  # `{% for r in rulesets %}`: `r.name` is `rulesets[].name`
        try:
            body = self._scoped(node.body, _target_names(node.target) + ["loop"])
        finally:
            self.items_of = saved
        body += self.stmts(node.else_)
        loop.inner = _dropped(body)
        return [loop] + [s for s in body if _keeps(s)]

    def _loop_segment(self, iterable: nodes.Expr, span: Span, src: str) -> Segment:
        ordered = False
        while isinstance(iterable, nodes.Filter) and iterable.node is not None:
            ordered = ordered or iterable.name in _ORDERING
            iterable = iterable.node
        name = _dotted(iterable)
        evidence = f"`{{% {src} %}}`: its output depends on the iterated value"
        if not ordered and isinstance(iterable, nodes.Call) and _dotted(iterable.node) in ("set", "frozenset"):
            return Segment(span=span, kind=Kind.UNORDERED_ITERATION, volatility=Volatility.PER_PROCESS,
                           expr=src, evidence=f"iteration over `{_dotted(iterable.node)}(...)`: set order")
        bound = self.ctx.bindings.get(name) if name and name.split(".")[0] not in self.opaque else None
        if bound is not None:
            unordered = bound.kind is Kind.UNORDERED_ITERATION and not ordered
            kind = Kind.UNORDERED_ITERATION if unordered else Kind.TEMPLATE_VARIABLE
            vol = Volatility.STABLE if bound.kind is None else bound.volatility
            return Segment(span=span, kind=kind, volatility=vol, expr=src,
                           evidence=bound.evidence or evidence, origin=bound.span or bound.origin,
                           source=bound.source, source_name=bound.source_name,
                           origin_note=bound.origin_note or f"value of `{name}` bound here")
        if isinstance(iterable, (nodes.List, nodes.Tuple)) and all(
                isinstance(i, nodes.Const) for i in iterable.items):
            return Segment(span=span, kind=Kind.TEMPLATE_VARIABLE, volatility=Volatility.STABLE, expr=src,
                           evidence="loop over a literal list")
        return Segment(span=span, kind=Kind.TEMPLATE_VARIABLE, volatility=Volatility.UNKNOWN, expr=src,
                       evidence=evidence)

    def _scoped(self, body: list[nodes.Node], opaque_names: list[str]) -> list[Segment]:
        saved_vars, saved_opaque = dict(self.vars), set(self.opaque)
        for name in opaque_names:
            self.vars.pop(name, None)
        self.opaque |= set(opaque_names)
        try:
            return self.stmts(body)
        finally:
            self.vars, self.opaque = saved_vars, saved_opaque

    def _block(self, node: nodes.Block) -> list[Segment]:
        self._block_tag(node, "block")
        outer, self.current_block = self.current_block, node.name
        try:
            own = self.stmts(node.body)
        finally:
            self.current_block = outer
        effective = own
        if node.name in self.overrides:
            effective = [t for s in self.overrides[node.name]
                         for t in (own if s.evidence == _SUPER else [s])]
        self.blocks.setdefault(node.name, effective)
        return effective


def _dropped(body: list[Segment]) -> tuple[Segment, ...]:
    """The placeholders of a conditional section's or a loop's body that the layout leaves out
    (values not known to change: the section stands for them), in output order, with those of
    the sections nested in it (`Segment.inner`)."""
    out: list[Segment] = []
    for s in body:
        if s.kind is None or _keeps(s):
            continue
        out.append(replace(s, inner=()) if s.inner else s)
        out.extend(s.inner)
    return tuple(out)


def _target_names(target: nodes.Node) -> list[str]:
    if isinstance(target, nodes.Name):
        return [target.name]
    if isinstance(target, (nodes.Tuple, nodes.List)):
        return [n for item in target.items for n in _target_names(item)]
    return []
