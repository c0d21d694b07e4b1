"""POML files (`.poml`: Microsoft's Prompt Orchestration Markup Language, read by the `poml`
package, `pomljs` and the POML VS Code extension) -> one PromptLayout with a Part per message.
Never rendered, never run; no file a POML file names is read.

A POML file is HTML-like markup (https://microsoft.github.io/poml/stable/): components such as
`<role>`, `<task>`, `<example>`, `<p>` whose text is prompt text; `{{ expr }}` expressions in text
and in attributes; `<let>` definitions; `for="item in items"` and `if="cond"` attributes on any
element; data components that embed a file, a URL or a value (`<document src>`, `<img src>`,
`<table src>`, `<include src>`, `<webpage url>`, `<conversation messages>`); and message
components (`<system-msg>`, `<user-msg>` / `<human-msg>`, `<ai-msg>`) or a `speaker` attribute,
inherited by children, that say who says what (docs/language/speakers.md: the default speaker is
system until a human speaker appears, after which unlabelled text is human; a file with no speaker
at all is one human message).

Here the markup is translated into a Jinja2 source of the same rows (a tag becomes blanks, or the
statement its `for` / `if` / `<let>` means: `{% for %}`, `{% if %}`, `{% set %}`; an expression
jinja2 cannot parse, such as JavaScript's `a ? b : c`, becomes its first name), which
`jinja.template_segments` reads as it reads any template. What a data component embeds is one
dynamic segment at the component: a file or folder named literally is stable text of unknown
length (`Kind.UNKNOWN`, `Volatility.STABLE`), a webpage fetched at each render is of unknown
volatility, and a name or expression is the template variable it names. `<stylesheet>`,
`<runtime>`, `<meta>`, `<output-schema>` and tool definitions are not message text: their content
is left out. Columns past a translated tag may be off by the few characters a statement is longer
than its tag; rows are exact. The blanks a tag leaves are counted as text: a few tokens more than
POML's own rendering, which also writes captions (`# Task`) that are not counted here.
"""
from __future__ import annotations

import html
import re
from pathlib import Path

from ..model import Kind, Part, Position, PromptLayout, Segment, Span, Volatility

#: A comment, or a start / end / self-closing tag with its attributes (quoted values may hold `>`).
_TOKEN = re.compile(r"<!--.*?-->|<(/?)([A-Za-z][\w\-:.]*)((?:\s+[^\s=/>]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s>]+))?)*)"
                    r"\s*(/?)>", re.S)
_ATTR = re.compile(r"([^\s=/>]+)(?:\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s>]+))?")
_EXPR = re.compile(r"\{\{(.*?)\}\}", re.S)
_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_FOR = re.compile(r"\s*([A-Za-z_$][\w$]*)\s+in\s+(.+?)\s*$", re.S)

_SPEAKERS = {"system": "system", "human": "user", "user": "user", "ai": "assistant", "assistant": "assistant",
             "tool": "tool"}
_MESSAGES = {"system-msg": "system", "systemmessage": "system", "user-msg": "user", "human-msg": "user",
             "humanmessage": "user", "ai-msg": "assistant", "aimessage": "assistant"}
#: Components whose content is not message text (styles, runtime options, schemas, tool schemas).
_NOT_TEXT = {"stylesheet", "runtime", "meta", "output-schema", "outputschema", "tool-definition", "tool",
             "tooldefinition", "tool-request", "tool-response"}
#: Data components and the attribute that names what they embed.
_EMBEDS = {"document": "src", "img": "src", "image": "src", "table": "src", "include": "src", "audio": "src",
           "folder": "src", "tree": "items", "webpage": "url", "obj": "data", "object": "data", "dataobj": "data",
           "conversation": "messages", "msg-content": "content"}
_PLACE = "__poml_embed_"


def poml_layouts(path: Path, filename: str, text: str) -> list[PromptLayout]:
    """The layout of one POML file ([] when it holds no prompt text): `id` "filename:1", source
    "template", a Part per message in order (role "system", "user", "assistant" or "tool"),
    `newest_user` the last user message. Raises `PromptFileError` for an element with a `for` or
    `if` attribute (or a `<let>` with content) that is never closed, at its row, and when the
    translated markup is not a template jinja2 can parse."""
    from .errors import PromptFileError
    from .fills import link_fills
    from .jinja import normalize_newlines, template_segments
    text = normalize_newlines(text)
    translator = _Translator(text)
    source, regions, embeds = translator.run()
    if translator.unclosed is not None:
        raise PromptFileError(filename, *translator.unclosed)
    result = template_segments(path, filename, source)
    if result.errors:
        row, message = result.errors[0]
        raise PromptFileError(filename, row, message)
    segments = [_embedded(s, embeds) for s in result.segments]
    parts = _split(segments, regions, source, filename)
    if not parts:
        return []
    link_fills(path, [], [s for p in parts for s in p.segments])
    users = [i for i, p in enumerate(parts) if p.role == "user"]
    site = Span(filename, Position(1, 1), Position(1, 1))
    return [PromptLayout(id=f"{filename}:1", site=site, source="template", parts=parts,
                         templates=result.templates, newest_user=users[-1] if users else None)]


class _Translator:
    """POML markup -> (Jinja2 source of the same rows, speaker regions, embeds). A region is
    (start offset in the source, speaker or None where no speaker is said); an embed maps a
    placeholder name of the source to the Segment it stands for (span left to the walker)."""

    def __init__(self, text: str):
        self.text = text
        self.out: list[str] = []
        self.size = 0
        self.regions: list[tuple[int, str | None]] = [(0, None)]
        self.stack: list[tuple[str, str, str | None, bool]] = []  # (tag, closing statements, speaker, hidden)
        self.embeds: dict[str, tuple[Kind, Volatility, str, str]] = {}
        self.opened: dict[int, int] = {}  # id of a stack entry with statements to close -> its 1-based row
        self.unclosed: tuple[int, str] | None = None  # (row, message) of the first such element never closed

    def run(self) -> tuple[str, list[tuple[int, str | None]], dict]:
        pos = 0
        for m in _TOKEN.finditer(self.text):
            self._text(self.text[pos:m.start()])
            if m.group(0).startswith("<!--"):
                self._emit(_blank(m.group(0)))
            else:
                self._tag(m)
            pos = m.end()
        self._text(self.text[pos:])
        for entry in self.stack:
            if entry[1] and id(entry) in self.opened:
                self.unclosed = (self.opened[id(entry)],
                                 f"`<{entry[0]}>` with `for`, `if` or `<let>` content is never closed")
                break
        return "".join(self.out), self.regions, self.embeds

    # ------------------------------------------------------------ output
    def _emit(self, s: str) -> None:
        self.out.append(s)
        self.size += len(s)

    def _hidden(self) -> bool:
        return bool(self.stack) and self.stack[-1][3]

    def _speaker(self) -> str | None:
        return self.stack[-1][2] if self.stack else None

    def _mark(self) -> None:
        speaker = self._speaker()
        if self.regions[-1][1] != speaker:
            self.regions.append((self.size, speaker))

    def _text(self, s: str) -> None:
        if not s:
            return
        if self._hidden():
            self._emit(_blank(s))
            return
        self._mark()
        pos = 0
        for m in _EXPR.finditer(s):
            self._emit(_literal(s[pos:m.start()]))
            self._emit(_fit("{{ " + _expression(m.group(1)) + " }}", m.group(0)))
            pos = m.end()
        self._emit(_literal(s[pos:]))

    # ------------------------------------------------------------ tags
    def _tag(self, m: re.Match) -> None:
        closing, name, attrs, empty = m.group(1) == "/", m.group(2).lower(), m.group(3) or "", m.group(4) == "/"
        if closing:
            self._close(name, m.group(0))
            return
        values = {a.lower(): _unquote(v) for a, v in _ATTR.findall(attrs) if a}
        opened, closes = [], []
        if "for" in values and (loop := _FOR.match(values["for"])):
            opened.append(f"{{% for {_identifier(loop.group(1))} in {_expression(loop.group(2))} %}}")
            closes.append("{% endfor %}")
        if "if" in values:
            opened.append(f"{{% if {_expression(_unbrace(values['if']))} %}}")
            closes.append("{% endif %}")
        hidden = self._hidden() or name in _NOT_TEXT
        speaker = _SPEAKERS.get(values.get("speaker", "").lower()) or _MESSAGES.get(name) or self._speaker()
        body = ""
        if name == "let" and not hidden:
            body, set_block = self._let(values, empty)
            if set_block:
                closes.insert(0, "{% endset %}")
        elif name in _EMBEDS and not hidden:
            body = self._embed(name, values)
        elif not hidden:
            body = "".join(self._caption(v) for k, v in values.items() if "caption" in k and "{{" in v)
        statement = "".join(opened) + body
        if speaker != self._speaker() or body:
            self.stack.append((name, "", speaker, hidden))  # the body's speaker holds while it is written
            self._mark()
            self.stack.pop()
        self._emit(_fit(statement, m.group(0)) if not hidden or not statement else _blank(m.group(0)))
        end = "".join(reversed(closes)) if not hidden else ""
        if empty:
            self._emit(end)
        else:
            entry = (name, end, speaker, hidden)
            self.stack.append(entry)
            if end:
                self.opened[id(entry)] = self.text.count("\n", 0, m.start()) + 1

    def _close(self, name: str, tag: str) -> None:
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == name:
                ends = "".join(entry[1] for entry in reversed(self.stack[i:]))
                del self.stack[i:]
                self._emit(_fit(ends, tag))
                return
        self._emit(_blank(tag))  # a stray end tag

    def _let(self, values: dict[str, str], empty: bool) -> tuple[str, bool]:
        name = values.get("name")
        if not name or not _NAME.fullmatch(name):
            return "", False
        if "src" in values:
            src = values["src"]
            return f"{{% set {name} = {self._place(Kind.UNKNOWN, Volatility.STABLE, src, _file_evidence('let', src))} %}}", False
        if "value" in values:
            return f"{{% set {name} = {_expression(_unbrace(values['value']))} %}}", False
        return ("", False) if empty else (f"{{% set {name} %}}", True)

    def _embed(self, name: str, values: dict[str, str]) -> str:
        attr = _EMBEDS[name]
        value = values.get(attr) or values.get("src") or values.get("url")
        if value is None:
            return ""
        if "{{" in value:
            return "{{ " + _expression(_unbrace(value)) + " }}"
        if name == "webpage" and attr == "url" or value.startswith(("http://", "https://")):
            evidence = f"the page `{value}` that `<{name}>` fetches each time the prompt is rendered"
            return "{{ " + self._place(Kind.UNKNOWN, Volatility.UNKNOWN, value, evidence) + " }}"
        return "{{ " + self._place(Kind.UNKNOWN, Volatility.STABLE, value, _file_evidence(name, value)) + " }}"

    def _caption(self, value: str) -> str:
        return "".join("{{ " + _expression(m.group(1)) + " }}" for m in _EXPR.finditer(value))

    def _place(self, kind: Kind, volatility: Volatility, expr: str, evidence: str) -> str:
        key = f"{_PLACE}{len(self.embeds)}"
        self.embeds[key] = (kind, volatility, expr, evidence)
        return key


def _file_evidence(name: str, value: str) -> str:
    return f"the contents of `{value}`, which `<{name}>` embeds: a file kept with the prompt, the same on each render"


def _embedded(seg: Segment, embeds: dict) -> Segment:
    """A placeholder the translation made for an embed, as the Segment it stands for."""
    if seg.kind is None or not seg.expr or _PLACE not in seg.expr:
        return seg
    key = re.search(_PLACE + r"\d+", seg.expr)
    if key is None or key.group(0) not in embeds:
        return seg
    kind, volatility, expr, evidence = embeds[key.group(0)]
    return Segment(span=seg.span, kind=kind, volatility=volatility, expr=expr, evidence=evidence)


def _split(segments: list[Segment], regions: list[tuple[int, str | None]], source: str,
           filename: str) -> list[Part]:
    """Cut `segments` (of `source`) into Parts at the speaker regions (the module docstring's
    default speakers: system, then human after the first human; all human when none is said)."""
    said = {s for _, s in regions if s is not None}
    starts = [0]
    for line in source.split("\n")[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def offset(pos: Position) -> int:
        return starts[min(pos.row, len(starts)) - 1] + pos.column - 1

    bounds = [start for start, _ in regions[1:]]
    pieces: list[tuple[int, Segment]] = []
    for seg in segments:
        if seg.kind is not None or seg.span is None:
            pieces.append((offset(seg.span.start) if seg.span else 0, seg))
            continue
        a = offset(seg.span.start)
        cuts = [b - a for b in bounds if a < b < a + len(seg.text)]
        for lo, hi in zip([0, *cuts], [*cuts, len(seg.text)]):
            if hi > lo:
                piece = seg if (lo, hi) == (0, len(seg.text)) else Segment(
                    text=seg.text[lo:hi], span=Span(filename, seg.position_at(lo), seg.position_at(hi)))
                pieces.append((a + lo, piece))
    parts: list[Part] = []
    human_seen = False
    index = 0
    for at, seg in pieces:
        while index + 1 < len(regions) and regions[index + 1][0] <= at:
            index += 1
        speaker = regions[index][1]
        if speaker == "user":
            human_seen = True
        role = speaker or ("user" if human_seen or not said else "system")
        if not parts or parts[-1].role != role:
            parts.append(Part(role, []))
        parts[-1].segments.append(seg)
    kept = [p for p in parts if any(s.kind is not None or s.text.strip() for s in p.segments)]
    merged: list[Part] = []
    for p in kept:
        if merged and merged[-1].role == p.role:
            merged[-1].segments.extend(p.segments)
        else:
            merged.append(p)
    for p in merged:
        spans = [s.span for s in p.segments if s.span is not None and s.span.filename == filename]
        p.span = Span(filename, spans[0].start, spans[-1].end) if spans else None
    return merged


# ------------------------------------------------------------------ text helpers
def _blank(s: str) -> str:
    """`s` as blanks of the same rows and columns."""
    return re.sub(r"[^\n]", " ", s)


def _fit(statement: str, original: str) -> str:
    """`statement` in the room of `original`: padded with blanks, and followed by its newlines
    so that the rows after it stay the file's."""
    newlines = original.count("\n")
    width = len(original) - newlines if newlines == 0 else len(original.rsplit("\n", 1)[-1])
    return statement + "\n" * newlines + " " * max(0, width - (len(statement) if newlines == 0 else 0))


def _literal(s: str) -> str:
    """Text where a Jinja2 delimiter that POML does not read as one is written as text."""
    return s.replace("{%", "{ %").replace("{#", "{ #").replace("{{", "{ {")


def _unquote(value: str | None) -> str:
    """An attribute's value without its quotes, its character references decoded (`&amp;&amp;`)."""
    if not value:
        return ""
    return html.unescape(value[1:-1] if value[:1] in "\"'" and value[-1:] == value[:1] and len(value) > 1 else value)


def _unbrace(value: str) -> str:
    m = re.fullmatch(r"\s*\{\{(.*)\}\}\s*", value, re.S)
    return m.group(1) if m else value


def _identifier(name: str) -> str:
    return name.replace("$", "_")


def _expression(expr: str) -> str:
    """A POML (JavaScript) expression as one jinja2 parses: kept when it parses (with `!`, `&&`,
    `||`, `===` and `null` written as jinja2 writes them), else its first name (`a ? b : c` ->
    `a`), else `none`."""
    from jinja2 import Environment, TemplateSyntaxError
    expr = expr.strip()
    js = re.sub(r"===?", "==", re.sub(r"!==?", "!=", expr))
    js = re.sub(r"!(?!=)", " not ", js).replace("&&", " and ").replace("||", " or ")
    js = re.sub(r"\bnull\b|\bundefined\b", "none", js).replace("$", "_")
    try:
        Environment().parse("{{ " + js + " }}")
        return " ".join(js.split())
    except TemplateSyntaxError:
        name = _NAME.search(expr)
        return _identifier(name.group(0)) if name else "none"
