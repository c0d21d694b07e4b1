"""POML files (`.poml`: Microsoft's Prompt Orchestration Markup Language, read by the `poml`
package, `pomljs` and the POML VS Code extension) -> one PromptLayout with a Part per message.
Never rendered, never run; no file a POML file names is read.

A POML file is HTML-like markup (https://microsoft.github.io/poml/stable/): components such as
`<role>`, `<task>`, `<example>`, `<p>` whose text is prompt text; `{{ expr }}` expressions
(JavaScript) in text and in attributes; `<let>` definitions; `for="item in items"` and
`if="cond"` attributes on any element; data components that embed a file, a URL or a value
(`<document src>`, `<img src>`, `<table src|records>`, `<include src>`, `<webpage url>`,
`<conversation messages>`); and speakers. The speakers follow POML's writer (`writer.ts`
`assignSpeakers`): a `speaker` attribute or a message component (`<system-msg>`, `<human-msg>`
/ `<user-msg>`, `<ai-msg>`, `<tool-request>` (ai), `<tool-response>` (tool); in an `<example>`
in chat form, `<input>` is human and `<output>` ai) sets the speaker of an element, its children
and the sibling elements after it; an element with none takes the default speaker, system until
a human speaker has appeared, human after; a prompt that comes out as one system message with no
system speaker named is one human message.

Here the markup is translated into a Jinja2 source of the same rows (a tag becomes blanks, or
the statement its `for` / `if` / `<let>` means, written where the tag was; a data component's
value where its attribute's value was; `{{ expr }}` as `poml_js.translate` writes it), which
`jinja.template_segments` reads as it reads any template. What a data component embeds is one
dynamic segment: a file or folder named literally is stable text of unknown length
(`Kind.UNKNOWN`, `Volatility.STABLE`), a webpage fetched at each render is of unknown volatility,
data written in the attribute is its text, and an expression is the value it names. A JavaScript
clock, random number or id (`new Date()`, `Math.random()`, `crypto.randomUUID()`) is a timestamp
or a unique id. `<stylesheet>`, `<runtime>`, `<meta>`, `<output-schema>`, tool definitions, a
`<let>` without a name and the XML declaration are not message text; CDATA is text. Columns past
a tag may be off by the few characters a statement is longer than its tag; rows are exact. The
blanks a tag leaves are counted as text: a few tokens more than POML's own rendering, which also
writes captions (`# Task`) that are not counted here.
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

from ..model import Kind, Part, Position, Precision, PromptLayout, Segment, Span, Volatility
from .poml_js import translate

#: A comment, CDATA, a declaration (`<?xml ...?>`, `<!DOCTYPE ...>`), or a start / end /
#: self-closing tag with its attributes (quoted values may hold `>`; names and bare values no `<`).
_TOKEN = re.compile(r"<!--.*?-->|<!\[CDATA\[.*?\]\]>|<\?.*?\?>|<![A-Za-z][^<>]*>"
                    r"|<(/?)([A-Za-z][\w\-:.]*)((?:\s+[^\s=/<>\"']+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s<>\"']+))?)*)"
                    r"\s*(/?)>", re.S)
_ATTR = re.compile(r"([^\s=/<>\"']+)(?:\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s<>\"']+))?")
_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_FOR = re.compile(r"\s*([A-Za-z_$][\w$]*)\s+in\s+(.+?)\s*$", re.S)

_SPEAKERS = {"system": "system", "human": "user", "user": "user", "ai": "assistant", "assistant": "assistant",
             "tool": "tool"}
_MESSAGES = {"system-msg": "system", "systemmessage": "system", "user-msg": "user", "human-msg": "user",
             "humanmessage": "user", "ai-msg": "assistant", "aimessage": "assistant",
             "tool-request": "assistant", "toolrequest": "assistant", "tool-response": "tool",
             "toolresponse": "tool", "tool-result": "tool"}
#: Components whose content is not message text (styles, runtime options, schemas, tool schemas).
_NOT_TEXT = {"stylesheet", "runtime", "meta", "output-schema", "outputschema", "tool-definition", "tool",
             "tooldefinition"}
#: Data components and the attributes that say what they embed, in the order they are read.
_EMBEDS = {"document": ("src", "buffer", "base64"), "doc": ("src", "buffer", "base64"), "img": ("src", "base64"),
           "image": ("src", "base64"), "table": ("src", "records"), "include": ("src",), "audio": ("src", "base64"),
           "folder": ("src", "data"), "tree": ("items",), "webpage": ("url", "src", "buffer"), "obj": ("data",),
           "object": ("data",), "dataobj": ("data",), "conversation": ("messages",), "msg-content": ("content",),
           "tool-request": ("parameters",), "toolrequest": ("parameters",)}
#: Elements that never hold content, whether or not their tag is written self-closing.
_VOID = {"meta", "runtime", "img", "image", "br", "include", "document", "doc", "audio", "webpage", "object", "obj",
         "dataobj", "folder", "tree", "msg-content", "conversation", "table"}
#: Attributes naming a file or a page (a literal is content kept elsewhere, not text).
_FILE_ATTRS = {"src", "url"}
_PLACE = "_poml"
_KEPT = "a file kept with the prompt, the same on each render"


@dataclass
class _Open:
    """An element being read: its tag, the statements its end tag writes, its speaker (None: the
    default), the speaker its later child elements inherit (`carry`), whether its content is
    hidden, whether it is an example in chat form, and its 1-based row."""

    tag: str
    closes: str
    speaker: str | None
    carry: str | None
    hidden: bool
    chat: bool
    row: int


def poml_layouts(path: Path, filename: str, text: str) -> list[PromptLayout]:
    """The layout of one POML file ([] when it holds no prompt text): `id` "filename:1", source
    "template", a Part per message in order (role "system", "user", "assistant" or "tool"),
    `newest_user` the last user message. Raises `PromptFileError` for an element with a `for` or
    `if` attribute (or a `<let>` with content) that is never closed or closed by another's end
    tag, at its row, and when the translated markup is not a template jinja2 can parse."""
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
    segments = [_embedded(s, embeds, translator.windows) for s in result.segments]
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
    (start offset in the source, speaker, named): `speaker` None where the default speaker holds,
    `named` whether a human speaker has been named before it (POML's default turns human there)
    and a system speaker anywhere. An embed maps a placeholder name of the source to (kind,
    volatility, precision, expr, evidence)."""

    def __init__(self, text: str):
        self.text = text
        self.out: list[str] = []
        self.size = 0
        self.regions: list[tuple[int, str | None]] = [(0, None)]
        self.stack: list[_Open] = []
        self.embeds: dict[str, tuple] = {}
        self.unclosed: tuple[int, str] | None = None  # (row, message) of the first element left open
        self.root_carry: str | None = None  # the speaker top-level elements inherit from an earlier sibling
        self.files: dict[str, tuple] = {}  # a name `<let src>` gives a file -> that file's embed
        self.windows: set[str] = set()  # the embeds of conversations cut to their newest messages

    def run(self) -> tuple[str, list[tuple[int, str | None]], dict]:
        pos = 0
        for m in _TOKEN.finditer(self.text):
            self._text(self.text[pos:m.start()])
            token = m.group(0)
            if token.startswith("<![CDATA["):
                self._emit(" " * 9)
                self._text(token[9:-3], literal=True)
                self._emit(" " * 3)
            elif token.startswith(("<!", "<?")):
                self._emit(_blank(token))
            else:
                self._tag(m)
            pos = m.end()
        self._text(self.text[pos:])
        for entry in self.stack:
            if entry.closes and self.unclosed is None:
                self.unclosed = (entry.row, f"`<{entry.tag}>` with `for`, `if` or `<let>` content is never closed")
        return "".join(self.out), self.regions, self.embeds

    # ------------------------------------------------------------ output
    def _emit(self, s: str) -> None:
        self.out.append(s)
        self.size += len(s)

    def _top(self) -> _Open | None:
        return self.stack[-1] if self.stack else None

    def _mark(self, speaker: str | None) -> None:
        if self.regions[-1][1] != speaker:
            self.regions.append((self.size, speaker))

    def _text(self, s: str, literal: bool = False) -> None:
        if not s:
            return
        top = self._top()
        if top is not None and top.hidden:
            self._emit(_blank(s))
            return
        self._mark(top.speaker if top else None)
        if literal:
            self._emit(_literal(s))
            return
        pos = 0
        for start, end, inner in _expressions(s):
            self._emit(_literal(s[pos:start]))
            self._emit(_fit(self._value(inner), s[start:end]))
            pos = end
        self._emit(_literal(s[pos:]))

    def _value(self, js: str) -> str:
        """`{{ ... }}` for one POML expression (a placeholder of its own when it is known)."""
        expr, known = translate(js)
        if known is not None:
            return "{{" + self._place(known[0], known[1], js.strip(), known[3], known[2]) + "}}"
        root = _NAME.match(expr)
        if root is not None and root.group(0) in self.files:  # a file `<let src>` read: its (stable) contents
            return "{{" + self._place(*self.files[root.group(0)]) + "}}"
        return "{{ " + expr + " }}"

    # ------------------------------------------------------------ tags
    def _tag(self, m: re.Match) -> None:
        closing, name, attrs, empty = m.group(1) == "/", m.group(2).lower(), m.group(3) or "", m.group(4) == "/"
        if closing:
            self._close(name, m.group(0), self.text.count("\n", 0, m.start()) + 1)
            return
        # attribute -> its value; attribute -> where its value's text (or its first `{{`) starts in the tag
        values, offsets = {}, {}
        for a in _ATTR.finditer(attrs):
            key, raw = a.group(1).lower(), a.group(2) or ""
            values[key] = _unquote(raw)
            inner = max(raw.find("{{"), 1 if raw[:1] in "\"'" else 0)
            offsets[key] = m.start(3) - m.start() + (a.start(2) + inner if raw else a.start(1))
        parent = self._top()
        hidden = (parent is not None and parent.hidden) or name in _NOT_TEXT or (name == "let" and "name" not in values)
        chat = _chat(name, values, parent)
        speaker, named = self._speaker(name, values, parent)
        opened, closes = [], []
        if "for" in values and (loop := _FOR.match(values["for"])):
            opened.append(f"{{%for {_identifier(loop.group(1))} in {translate(loop.group(2))[0]}%}}")
            closes.append("{%endfor%}")
        if "if" in values:
            opened.append(f"{{%if {translate(_unbrace(values['if']))[0]}%}}")
            closes.append("{%endif%}")
        body, at = "", 0
        if name == "let" and not hidden:
            body, set_block = self._let(values, empty)
            if set_block:
                closes.insert(0, "{%endset%}")
        elif name in _EMBEDS and not hidden:
            body, at = self._embed(name, values, offsets)
        elif not hidden:
            captions = [(offsets[k], v) for k, v in values.items() if "caption" in k and "{{" in v]
            if captions:
                at = captions[0][0]
                body = "".join(self._value(inner) for _, v in captions for _, _, inner in _expressions(v))
        statement = "".join(opened)
        if body:  # at its attribute's value, or as near as the tag leaves room for (columns after it stay)
            at = min(at, max(len(statement), len(m.group(0).split("\n", 1)[0]) - len(body)))
            statement += " " * max(0, at - len(statement)) + body
        if not hidden and (body or named is not None):
            self._mark(speaker)
        self._emit(_fit(statement, m.group(0)) if not hidden else _blank(m.group(0)))
        end = "".join(reversed(closes)) if not hidden else ""
        if empty or name in _VOID:
            self._emit(end)
            return
        self.stack.append(_Open(name, end, speaker, speaker, hidden, chat, self.text.count("\n", 0, m.start()) + 1))

    def _speaker(self, name: str, values: dict[str, str], parent: _Open | None) -> tuple[str | None, str | None]:
        """(the element's speaker, the one it names or None), as POML's writer assigns them: a named
        speaker (a `speaker` attribute, a message component, an example's input or output in chat
        form) also holds for the sibling elements after it (`inheritedSpeaker` in writer.ts)."""
        in_chat_example = parent is not None and parent.tag == "example" and parent.chat
        named = (_SPEAKERS.get(values.get("speaker", "").lower()) or _MESSAGES.get(name)
                 or ({"input": "user", "output": "assistant"}.get(name) if in_chat_example else None))
        inherited = parent.carry if parent else self.root_carry
        if named is not None:
            if parent is not None:
                parent.carry = named
            else:
                self.root_carry = named
        return named or inherited, named

    def _close(self, name: str, tag: str, row: int) -> None:
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i].tag == name:
                skipped = [e for e in self.stack[i + 1:] if e.closes]
                if skipped and self.unclosed is None:
                    self.unclosed = (skipped[0].row, f"`<{skipped[0].tag}>` with `for`, `if` or `<let>` content is "
                                                     f"closed by `</{name}>` at line {row}, not by its own end tag")
                ends = "".join(entry.closes for entry in reversed(self.stack[i:]))
                del self.stack[i:]
                self._emit(_fit(ends, tag))
                return
        self._emit(_blank(tag))  # a stray end tag

    def _let(self, values: dict[str, str], empty: bool) -> tuple[str, bool]:
        name = values.get("name", "")
        if not _NAME.fullmatch(name):
            return "", False
        name = _identifier(name)
        if "src" in values:
            src = values["src"]
            evidence = f"the contents of `{src}`, which `<let>` reads: {_KEPT}"
            self.files[name] = (Kind.UNKNOWN, Volatility.STABLE, src, evidence)
            return "", False
        if "value" in values:
            return f"{{%set {name}={translate(_unbrace(values['value']))[0]}%}}", False
        return ("", False) if empty else (f"{{%set {name}%}}", True)

    def _embed(self, name: str, values: dict[str, str], offsets: dict[str, int]) -> tuple[str, int]:
        """(the source text for what the component embeds, its offset in the tag)."""
        attr = next((a for a in _EMBEDS[name] if values.get(a)), None)
        if attr is None:
            return "", 0
        value, at = values[attr], offsets[attr]
        if "{{" in value and name == "conversation":
            inner = next((e[2] for e in _expressions(value)), "")
            evidence = f"`<conversation messages=\"{value}\">`: the messages of a conversation"
            selected = values.get("selectedmessages", "").strip()
            if selected:
                evidence += f", those `selectedMessages=\"{selected}\"` selects"
            key = self._place(Kind.HISTORY, Volatility.UNKNOWN, translate(inner)[0], evidence)
            if selected.startswith("-"):  # its newest messages only (`-6:`): a sliding window
                self.windows.add(key)
            return "{{" + key + "}}", at
        if "{{" in value:
            inner = next((e[2] for e in _expressions(value)), "")
            body = self._value(inner)
            return body, at
        if attr in _FILE_ATTRS and (name == "webpage" or value.startswith(("http://", "https://"))):
            evidence = f"the page `{value}` that `<{name}>` fetches each time the prompt is rendered"
            return "{{" + self._place(Kind.UNKNOWN, Volatility.UNKNOWN, value, evidence) + "}}", at
        if attr in _FILE_ATTRS:
            evidence = f"the contents of `{value}`, which `<{name}>` embeds: {_KEPT}"
            return "{{" + self._place(Kind.UNKNOWN, Volatility.STABLE, value, evidence) + "}}", at
        return _literal(value), at  # data written in the attribute: its text

    def _place(self, kind: Kind, volatility: Volatility, expr: str, evidence: str,
               precision: Precision | None = None) -> str:
        key = f"{_PLACE}{len(self.embeds)}"
        self.embeds[key] = (kind, volatility, precision, expr, evidence)
        return key


def _chat(name: str, values: dict[str, str], parent: _Open | None) -> bool:
    """Whether an element is in an example set or example in chat form (`chat="false"` turns it off;
    an `<example>` takes its `<examples>`' setting)."""
    if name == "examples":
        return values.get("chat", "true").lower() != "false"
    if name == "example":
        default = "true" if parent is None or parent.tag != "examples" or parent.chat else "false"
        return values.get("chat", default).lower() != "false"
    return parent.chat if parent else False


def _expressions(s: str):
    """(start, end, inner) of each `{{ ... }}` of `s`, braces of object literals and quoted
    strings inside it skipped (`{{ {a: {b: 1}} }}` is one expression)."""
    i = 0
    while True:
        start = s.find("{{", i)
        if start < 0:
            return
        j, depth = start + 2, 0
        while j < len(s):
            ch = s[j]
            if ch in "'\"`":
                close = j + 1
                while close < len(s) and s[close] != ch:
                    close += 2 if s[close] == "\\" else 1
                j = close + 1
                continue
            if ch == "{":
                depth += 1
            elif ch == "}":
                if depth == 0 and s.startswith("}}", j):
                    break
                depth -= 1
            j += 1
        if j >= len(s):
            return
        yield start, j + 2, s[start + 2:j]
        i = j + 2


_KEY = re.compile(_PLACE + r"\d+")


def _embedded(seg: Segment, embeds: dict, windows: set[str] = frozenset()) -> Segment:
    """A placeholder the translation made for an embed or a known JavaScript value, as the
    Segment it stands for (also inside a loop's or a section's `inner`); a conversation of
    `windows` is cut to its newest messages at its placeholder (`Segment.window`)."""
    if seg.inner:
        inner = tuple(_embedded(s, embeds, windows) for s in seg.inner)
        if inner != seg.inner:
            from dataclasses import replace
            seg = replace(seg, inner=inner)
    if seg.kind is None or not seg.expr:
        return seg
    key = _KEY.search(seg.expr)
    if key is None or key.group(0) not in embeds:
        return seg
    kind, volatility, precision, expr, evidence = embeds[key.group(0)]
    return Segment(span=seg.span, kind=kind, volatility=volatility, precision=precision, expr=expr, evidence=evidence,
                   window=seg.span if key.group(0) in windows else None)


def _split(segments: list[Segment], regions: list[tuple[int, str | None]], source: str,
           filename: str) -> list[Part]:
    """Cut `segments` (of `source`) into Parts at the speaker regions (the module docstring's
    default speaker: system, human after a human speaker; one unnamed system message is human)."""
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
    human_seen, index = False, 0
    for at, seg in pieces:
        while index + 1 < len(regions) and regions[index + 1][0] <= at:
            index += 1
            human_seen = human_seen or regions[index][1] == "user"
        role = "history" if seg.kind is Kind.HISTORY else regions[index][1] or ("user" if human_seen else "system")
        if not parts or parts[-1].role != role or role == "history":
            parts.append(Part(role, []))
        parts[-1].segments.append(seg)
    merged: list[Part] = []
    for p in parts:
        if not any(s.kind is not None or s.text.strip() for s in p.segments):
            if merged and merged[-1].role != "history":  # (a history part is the history alone)
                merged[-1].segments.extend(p.segments)
            continue
        if merged and merged[-1].role == p.role:
            merged[-1].segments.extend(p.segments)
        else:
            merged.append(p)
    if len(merged) == 1 and merged[0].role == "system" and not any(s == "system" for _, s in regions):
        merged[0].role = "user"  # one message, no system speaker named: POML makes it the human's
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
    width = len(original) if newlines == 0 else len(original.rsplit("\n", 1)[-1])
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
