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
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

from jinja2 import Environment, nodes
from jinja2.exceptions import TemplateSyntaxError

from .. import source
from ..model import Kind, Position, Precision, Segment, Span, Volatility
from ..classify import TIMESTAMP_ATTRS, classify_name, strftime_precision

_EXTENSIONS = ("jinja2.ext.loopcontrols", "jinja2.ext.do", "jinja2.ext.i18n")
_MAX_DEPTH = 12
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


@lru_cache(maxsize=1)
def environment() -> Environment:
    """The parse-only environment: default delimiters, loopcontrols, do and i18n extensions.
    It is used for `parse` and `lex` only; nothing is ever compiled or rendered with it."""
    return Environment(extensions=list(_EXTENSIONS))


def has_jinja_syntax(text: str) -> bool:
    """True when `text` contains a Jinja statement, comment or `{{ ... }}` expression tag."""
    return "{%" in text or "{#" in text or ("{{" in text and "}}" in text)


def normalize_newlines(text: str) -> str:
    """`\\r\\n` and `\\r` -> `\\n`, as jinja's lexer does; rows and columns are unchanged."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _read(path: Path) -> str:
    """A template's text as `Path.read_text(encoding="utf-8")` gives it (universal newlines), read
    by `promptlint.source` (regular files only, size-limited, recorded as a dependency of the
    analysis). Raises OSError (UnicodeDecodeError for bytes that are not UTF-8)."""
    try:
        data = source.read_bytes(path)
    except source.SourceError as exc:
        raise OSError(str(exc)) from None
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


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


# --------------------------------------------------------------------------- tokens and positions
@dataclass
class _Tag:
    start: int
    end: int
    first_line: int
    last_line: int
    inner: str
    keyword: str = ""


class _Source:
    """A template's normalized text, its AST, and its tags located by offset."""

    def __init__(self, text: str, tree: nodes.Template):
        self.text = text
        self.tree = tree
        self.line_starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
        self.var_tags: list[_Tag] = []
        self.block_tags: list[_Tag] = []
        self.datas: list[tuple[int, str]] = []  # (offset, text) of each data token
        self._locate_tokens()

    @classmethod
    def parse(cls, text: str) -> "_Source":
        text = normalize_newlines(text)
        tree = environment().parse(text)
        return cls(text, tree)

    def position(self, offset: int) -> Position:
        row = bisect.bisect_right(self.line_starts, offset)
        return Position(row, offset - self.line_starts[row - 1] + 1)

    def span(self, filename: str, start: int, end: int) -> Span:
        return Span(filename, self.position(start), self.position(end))

    def _locate_tokens(self) -> None:
        text, cursor = self.text, 0
        open_tag = None  # (kind, start offset, inner start, first line, keyword)
        for lineno, kind, value in environment().lexer.tokeniter(text, None):
            off = text.find(value, cursor) if value else cursor
            if off < 0:  # never expected: every raw token is a slice of the source
                off = cursor
            cursor = off + len(value)
            if kind == "data":
                if value:
                    self.datas.append((off, value))
            elif kind in ("variable_begin", "block_begin"):
                open_tag = [kind, off, cursor, lineno, ""]
            elif kind == "name" and open_tag is not None and not open_tag[4]:
                open_tag[4] = value
            elif kind in ("variable_end", "block_end") and open_tag is not None:
                tag = _Tag(open_tag[1], cursor, open_tag[3], lineno, text[open_tag[2]:off].strip(),
                           open_tag[4])
                (self.var_tags if kind == "variable_end" else self.block_tags).append(tag)
                open_tag = None


# --------------------------------------------------------------------------- the walker
@dataclass
class _Context:
    bindings: dict[str, Segment]
    search_paths: list[Path]
    display_root: Path | None
    templates: list[str] = field(default_factory=list)
    parsed: dict[Path, "_Source | None"] = field(default_factory=dict)


class _Walker:
    """Visits one template's AST in source order, producing segments."""

    def __init__(self, ctx: _Context, source: _Source, path: Path, filename: str, stack: list[Path],
                 local_vars: dict | None = None, block_overrides: dict | None = None):
        self.ctx, self.src, self.path, self.filename, self.stack = ctx, source, path, filename, stack
        # name -> (segments, re-span): `{% set x = expr %}` values enter the prompt where `x` is
        # output (re-span), `{% set x %}...{% endset %}` text stays where it is written
        self.vars: dict[str, tuple[list[Segment], bool]] = dict(local_vars or {})
        self.opaque: set[str] = set()  # loop targets and macro parameters: never classified by name
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
        tags = self.src.var_tags
        for i in range(self._vi, len(tags)):
            if tags[i].first_line <= node.lineno <= tags[i].last_line:
                self._vi = i + 1
                return tags[i]
        return None

    def _block_tag(self, node: nodes.Node, *keywords: str) -> _Tag | None:
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
        if isinstance(node, (nodes.Scope, nodes.ScopedEvalContextModifier, nodes.EvalContextModifier)):
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
        span = self._tag_span(tag, node)
        test = tag.inner if tag else "if ..."
        test_segs = self.expr(node.test, tag, node)
        inner = self.stmts(node.body)
        for elif_ in node.elif_:
            inner += self._if_branch(elif_)
        inner += self.stmts(node.else_)
        cond = Segment(span=span, kind=Kind.CONDITIONAL, volatility=Volatility.UNKNOWN, expr=test,
                       evidence=f"`{{% {test} %}}`: the text inside is present or absent by a condition")
        return [cond] + [s for s in test_segs + inner if _keeps(s)]

    def _if_branch(self, node: nodes.If) -> list[Segment]:
        tag = self._block_tag(node, "elif")
        return self.expr(node.test, tag, node) + self.stmts(node.body)

    def _for(self, node: nodes.For) -> list[Segment]:
        tag = self._block_tag(node, "for")
        span = self._tag_span(tag, node)
        loop_src = tag.inner if tag else "for ..."
        loop = self._loop_segment(node.iter, span, loop_src)
        body = self._scoped(node.body, _target_names(node.target) + ["loop"])
        body += self.stmts(node.else_)
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

    # ---- other template files
    def _include(self, node: nodes.Include) -> list[Segment]:
        tag = self._block_tag(node, "include")
        segs = self._subtemplate(node.template, local_vars=self.vars if node.with_context else {})
        if segs is not None:
            return segs
        if node.ignore_missing:
            return []
        return [self._unresolved(node, "include", tag)]

    def _import(self, node: nodes.Import | nodes.FromImport) -> None:
        self._block_tag(node, "import", "from")
        walker = self._sub_walker(node.template, definitions_only=True)
        if walker is None:
            return
        exported = {**walker.macros, **{k: v[0] for k, v in walker.vars.items()}}
        if isinstance(node, nodes.Import):
            self.namespaces[node.target] = exported
            return
        for item in node.names:
            name, alias = item if isinstance(item, tuple) else (item, item)
            if name in exported:
                self.macros[alias] = exported[name]

    def _subtemplate(self, template: nodes.Expr, local_vars: dict | None = None,
                     overrides: dict | None = None) -> list[Segment] | None:
        walker = self._sub_walker(template, local_vars, overrides)
        return walker.run() if walker is not None else None

    def _sub_walker(self, template: nodes.Expr, local_vars: dict | None = None,
                    overrides: dict | None = None, definitions_only: bool = False) -> "_Walker | None":
        names = [template.value] if isinstance(template, nodes.Const) else (
            [i.value for i in template.items if isinstance(i, nodes.Const)]
            if isinstance(template, (nodes.List, nodes.Tuple)) else [])
        for name in names:
            found = self._resolve(name) if isinstance(name, str) else None
            if found is None or found in self.stack or len(self.stack) >= _MAX_DEPTH:
                continue
            source = self._load(found)
            if source is None:
                continue
            display = _display(found, self.ctx.display_root)
            self.ctx.templates.append(display)
            walker = _Walker(self.ctx, source, found, display, self.stack + [found], local_vars, overrides)
            if definitions_only:  # an import: only its macros and top-level variables matter
                walker.stmts(source.tree.body)
            return walker
        return None

    def _resolve(self, name: str) -> Path | None:
        parts = [p for p in name.replace("\\", "/").split("/") if p and p != "."]
        if not parts or ".." in parts:
            return None
        here = self.path.resolve().parent
        roots = list(self.ctx.search_paths) + [here] + list(here.parents)[:4]
        for root in roots:
            candidate = Path(root).joinpath(*parts)
            if source.is_file(candidate):  # a dependency of the analysis, found or not
                return candidate.resolve()
        return None

    def _load(self, path: Path) -> _Source | None:
        if path not in self.ctx.parsed:
            try:
                self.ctx.parsed[path] = _Source.parse(_read(path))
            except (OSError, UnicodeDecodeError, TemplateSyntaxError):
                self.ctx.parsed[path] = None
        return self.ctx.parsed[path]

    def _unresolved(self, node: nodes.Node, what: str, tag: _Tag | None = None) -> Segment:
        src = tag.inner if tag else what
        return Segment(span=self._tag_span(tag, node), kind=Kind.UNKNOWN, volatility=Volatility.UNKNOWN,
                       expr=src,
                       evidence=f"`{{% {src} %}}`: template not found in the search paths (or not parsable)")

    # ---- expressions
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
    """Segments of a conditional or loop body that still matter: volatile values."""
    return seg.kind is not None and (seg.volatility in _VOLATILE or seg.kind is Kind.UNORDERED_ITERATION)


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


def _target_names(target: nodes.Node) -> list[str]:
    if isinstance(target, nodes.Name):
        return [target.name]
    if isinstance(target, (nodes.Tuple, nodes.List)):
        return [n for item in target.items for n in _target_names(item)]
    return []


def _display_root(path: Path, filename: str) -> Path | None:
    """The folder that display filenames are relative to, from a path and its display name."""
    shown = Path(filename)
    if shown.is_absolute():
        return None
    resolved = path.resolve()
    n = len(shown.parts)
    if n and resolved.parts[-n:] == shown.parts:
        return Path(*resolved.parts[:-n]) if len(resolved.parts) > n else Path(resolved.anchor)
    return None


def _display(path: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return path.resolve().relative_to(root).as_posix()
        except ValueError:
            pass
    from ..paths import display_name
    return display_name(path)
