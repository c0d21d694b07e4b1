"""Prompty files (`.prompty`: Microsoft's prompt format, read by promptflow, Azure AI Foundry and
the `prompty` package) -> one PromptLayout with a Part per message. Never rendered, never run.

A prompty file is YAML front matter between two `---` lines (name, description, `model` with its
configuration and parameters, `inputs` / `inputSchema`, `sample`: configuration, not prompt
text), then a body: a Jinja2 template (Mustache when the front matter says `template: mustache`)
whose rendered text the runtime splits into messages at role-marker lines: `system:`, `user:`,
`assistant:`, `function:`, `tool:`, `tools:` alone on a line, any case, optionally after `#` and
with `[key=value]` arguments before the colon. Text before the first marker is a system message;
a line `![thread]` stands for the conversation's messages.

Here, from the facts the body's template gives (`jinja.template_segments`, the front matter
blanked so rows and columns stay the file's): the front matter is split off
(`split_front_matter`), the body's static text is cut at its marker lines, and each message
becomes a Part with its role. A `{% for %}` loop whose body writes marker lines outputs messages:
a `history` Part when its iterated value is named as the conversation (`chat_history`: a name,
Policy 7) or the front matter declares it a thread input, else a Part of role "unknown" (messages
such as few-shot examples, whose roles the loop decides). A placeholder that the front matter
declares a `kind: thread` input is the conversation (a `history` Part). Markers inside `{% if %}`
sections are not read (the section stays in the message where it stands).

From the front matter only facts the rules use: the provider and the model (`model.provider`,
`model.configuration.type`; `model.id`, `model.configuration.model` / `name`, or `model: NAME`; an
Azure deployment name is not a model name and `${env:...}` references are unknown) and the
names of thread inputs.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..model import Kind, Part, Position, PromptLayout, Segment, Span, Volatility

#: A role-marker line (as the prompty and promptflow parsers match it).
_MARKER = re.compile(r"(?im)^[ \t]*#?[ \t]*(system|user|assistant|function|tools?)(\[[^\]\n]*\])?[ \t]*:[ \t]*$")
#: A marker line whose role a placeholder writes (`{{ item.role }}:`), in a loop's body.
_DYNAMIC_MARKER = re.compile(r"(?m)^[ \t]*\{\{[^{}\n]*\}\}[ \t]*:[ \t]*$")
_THREAD = re.compile(r"(?m)^[ \t]*!\[thread\][ \t]*$")
_ROLES = {"system": "system", "user": "user", "assistant": "assistant", "function": "tool", "tool": "tool",
          "tools": "tools"}
_FENCE = re.compile(r"[ \t]*---[ \t]*\r?$")
_LOOP_TAG = re.compile(r"\{%[-+]?\s*(for|endfor)\b")


class FrontMatterError(ValueError):
    """Front matter that the prompty runtime cannot load: `row` (1-based) and a one-line
    `message`. Reported as the file's PRM001."""

    def __init__(self, row: int, message: str):
        super().__init__(message)
        self.row, self.message = row, message


@dataclass
class FrontMatter:
    """The front matter of a prompty file: `data` (the YAML mapping, {} when there is none) and
    `body_row`, the 1-based row where the body starts (1 without front matter)."""

    data: dict = field(default_factory=dict)
    body_row: int = 1


def split_front_matter(text: str) -> FrontMatter:
    """The front matter of `text`: when its first non-blank line is `---`, the YAML up to the
    next `---` line. Raises FrontMatterError for one that is not closed, not YAML (or too large
    once its aliases are expanded: `safe_yaml`) or not a mapping."""
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None or not _FENCE.fullmatch(lines[first]):
        return FrontMatter()
    close = next((i for i in range(first + 1, len(lines)) if _FENCE.fullmatch(lines[i])), None)
    if close is None:
        raise FrontMatterError(first + 1, f"front matter opened by `---` at line {first + 1} is never closed by a `---` line")
    import yaml

    from .safe_yaml import YamlBombError, safe_load
    try:
        data = safe_load("\n".join(lines[first + 1:close]))
    except YamlBombError as exc:
        raise FrontMatterError(first + 1, f"front matter: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        row = first + 2 + mark.line if mark is not None else first + 1
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise FrontMatterError(row, f"front matter is not valid YAML: {problem}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise FrontMatterError(first + 1, f"front matter is not a YAML mapping (a {type(data).__name__})")
    return FrontMatter(data, close + 2)


def prompty_layouts(path: Path, filename: str, text: str) -> list[PromptLayout]:
    """The layout of one prompty file ([] when its body holds no prompt text): `id`
    "filename:1", source "template", a Part per message in order, `newest_user` the last user
    message, `provider` / `model` from the front matter when it names them; placeholders linked
    to the Python values that fill them as a prompt text file's are (`fills`). Raises
    FrontMatterError (see `split_front_matter`) and `PromptFileError` for a body jinja2 cannot
    parse."""
    from .errors import PromptFileError
    from .fills import link_fills
    from .jinja import normalize_newlines, template_segments
    from .prompt_files import placeholder_segments
    text = normalize_newlines(text)
    front = split_front_matter(text)
    lines = text.split("\n")
    blanked = "\n" * (front.body_row - 1) + "\n".join(lines[front.body_row - 1:])
    templates = [filename]
    if _mustache(front.data):
        segments = placeholder_segments(blanked, filename)
    else:
        result = template_segments(path, filename, blanked)
        if result.errors:
            row, message = result.errors[0]
            raise PromptFileError(filename, row, message)
        segments, templates = result.segments, result.templates
    skip = front.body_row - 1  # the blanked front matter's rows: no text of the prompt
    if skip and segments and segments[0].kind is None and segments[0].text.startswith("\n" * skip):
        first = segments[0]
        segments = ([Segment(text=first.text[skip:], span=Span(filename, Position(front.body_row, 1), first.span.end))]
                     if len(first.text) > skip and first.span is not None else []) + segments[1:]
    parts = _Splitter(filename, blanked, _thread_inputs(front.data)).split(segments)
    if not parts:
        return []
    link_fills(path, [], [s for p in parts for s in p.segments])
    provider, model = model_facts(front.data)
    users = [i for i, p in enumerate(parts) if p.role == "user"]
    site = Span(filename, Position(1, 1), Position(1, 1))
    return [PromptLayout(id=f"{filename}:1", site=site, source="template", provider=provider, model=model,
                         parts=parts, templates=templates, newest_user=users[-1] if users else None)]


def model_facts(data: dict) -> tuple[str | None, str | None]:
    """(provider, model) the front matter names, each None when it names none promptlint knows
    (an unknown provider, a `${env:...}` reference, an Azure deployment name)."""
    from ..profiles import canonical_provider, known_providers
    model = data.get("model")
    if isinstance(model, str):
        return None, _known_text(model)
    if not isinstance(model, dict):
        return None, None
    config = model.get("configuration")
    config = config if isinstance(config, dict) else {}
    kind = _known_text(model.get("provider")) or _known_text(config.get("type"))
    provider = canonical_provider(kind) if kind else None
    if provider not in known_providers():
        provider = None
    name = _known_text(model.get("id")) or _known_text(config.get("model")) or _known_text(config.get("name"))
    return provider, name


def _known_text(value) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() and "${" not in value else None


def _mustache(data: dict) -> bool:
    template = data.get("template")
    if isinstance(template, dict):
        template = template.get("format", template.get("type"))
        if isinstance(template, dict):
            template = template.get("kind")
    return isinstance(template, str) and template.strip().lower() == "mustache"


def _thread_inputs(data: dict) -> frozenset[str]:
    """The names of the inputs the front matter declares as threads (`kind: thread` under
    `inputs` or `inputSchema.properties`): the conversation's messages."""
    out = set()
    inputs = data.get("inputs")
    if isinstance(inputs, dict):
        out.update(k for k, v in inputs.items() if isinstance(v, dict) and str(v.get("kind", "")).lower() == "thread")
    schema = data.get("inputSchema")
    props = schema.get("properties") if isinstance(schema, dict) else None
    for prop in props if isinstance(props, list) else []:
        if isinstance(prop, dict) and str(prop.get("kind", "")).lower() == "thread" and isinstance(prop.get("name"), str):
            out.add(prop["name"])
    return frozenset(out)


class _Splitter:
    """Cuts a body's segments into messages at role-marker lines (see the module docstring)."""

    def __init__(self, filename: str, text: str, threads: frozenset[str]):
        self.filename, self.text, self.threads = filename, text, threads
        self.starts = [0]
        for line in text.split("\n")[:-1]:
            self.starts.append(self.starts[-1] + len(line) + 1)
        self.parts: list[Part] = []
        self.role, self.current = "system", []

    def split(self, segments: list[Segment]) -> list[Part]:
        loop_end: Position | None = None
        for i, seg in enumerate(segments):
            if loop_end is not None and seg.kind is not None and seg.span is not None and seg.span.start < loop_end:
                self.parts[-1].segments.append(seg)  # a placeholder of the loop's body, kept by the walker
                continue
            loop_end = None
            if seg.kind is None:
                following = segments[i + 1].span if i + 1 < len(segments) else None
                self._text(seg, following)
            elif self._thread(seg):
                self._close()
                self.parts.append(Part("history", [_history(seg, f"the placeholder `{seg.expr}` of an input the front "
                                                                 "matter declares a thread (the conversation's messages)",
                                                            name_only=False)], span=seg.span))
            elif seg.expr.startswith("for ") and seg.span is not None:
                body, end = self._loop_body(seg.span.end)
                if body is None or not (_MARKER.search(body) or _DYNAMIC_MARKER.search(body)):
                    self.current.append(seg)
                    continue
                self._close()
                self.parts.append(self._loop_part(seg))
                loop_end = end
                markers = list(_MARKER.finditer(body)) + list(_DYNAMIC_MARKER.finditer(body))
                last = max(markers, key=lambda m: m.start())
                self.role = _ROLES[last.group(1).lower()] if last.re is _MARKER else "unknown"
            else:
                self.current.append(seg)
        self._close()
        return self.parts

    def _loop_part(self, seg: Segment) -> Part:
        from ..turn_names import conversation_named, placeholder_name
        name = placeholder_name(seg.expr)
        if name in self.threads:
            return Part("history", [_history(seg, f"`{{% {seg.expr} %}}` writes a message per item of `{name}`, "
                                                  "an input the front matter declares a thread", name_only=False)],
                        span=seg.span)
        if conversation_named(name):
            return Part("history", [_history(seg, f"`{{% {seg.expr} %}}` writes a message per item of `{name}`, "
                                                  "named as the conversation (the name is the only evidence)",
                                             name_only=True)], span=seg.span)
        return Part("unknown", [seg], span=seg.span)

    def _thread(self, seg: Segment) -> bool:
        from ..turn_names import placeholder_name
        return bool(self.threads) and not seg.expr.startswith("for ") and placeholder_name(seg.expr) in self.threads

    def _text(self, seg: Segment, following: Span | None) -> None:
        text, pos = seg.text, 0
        cuts = sorted([(m, "marker") for m in _MARKER.finditer(text)] + [(m, "thread") for m in _THREAD.finditer(text)],
                      key=lambda c: c[0].start())
        for m, what in cuts:
            if not self._whole_line(seg, m, following):
                continue
            self._piece(seg, pos, m.start())
            self._close()
            if what == "thread":
                at = Span(self.filename, seg.position_at(m.start()), seg.position_at(m.end()))
                self.parts.append(Part("history", [Segment(span=at, kind=Kind.HISTORY, volatility=Volatility.UNKNOWN,
                                                           expr="![thread]", evidence="the thread marker `![thread]`: "
                                                           "the conversation's messages")], span=at))
            else:
                self.role = _ROLES[m.group(1).lower()]
            pos = m.end() + (1 if text[m.end():m.end() + 1] == "\n" else 0)
        self._piece(seg, pos, len(text))

    def _whole_line(self, seg: Segment, m: re.Match, following: Span | None) -> bool:
        """True when the match is a whole line of the rendered text: nothing written before it
        on its row (a placeholder ending there) nor after it (one starting there)."""
        start = seg.position_at(m.start())
        if m.start() == 0 and start is not None and start.column != 1:
            return False
        if m.end() == len(seg.text) and following is not None:
            end = seg.position_at(m.end())
            return end is None or following.start.row != end.row
        return True

    def _piece(self, seg: Segment, a: int, b: int) -> None:
        if b <= a:
            return
        if a == 0 and b == len(seg.text):
            self.current.append(seg)
            return
        span = Span(self.filename, seg.position_at(a), seg.position_at(b)) if seg.span is not None else None
        self.current.append(Segment(text=seg.text[a:b], span=span))

    def _close(self) -> None:
        segs = self.current
        if any(s.kind is not None or s.text.strip() for s in segs):
            spans = [s.span for s in segs if s.span is not None and s.span.filename == self.filename]
            span = Span(self.filename, spans[0].start, spans[-1].end) if spans else None
            self.parts.append(Part(self.role, segs, span=span))
        self.current = []

    def _offset(self, pos: Position) -> int:
        return self.starts[min(pos.row, len(self.starts)) - 1] + pos.column - 1

    def _loop_body(self, after: Position) -> tuple[str | None, Position | None]:
        """The text of a loop's body from the end of its `{% for %}` tag to its `{% endfor %}`
        (nested loops counted), and where that tag starts; (None, None) when it is not found."""
        start = self._offset(after)
        depth = 1
        for m in _LOOP_TAG.finditer(self.text, start):
            depth += 1 if m.group(1) == "for" else -1
            if depth == 0:
                end = m.start()
                row = self.text.count("\n", 0, end) + 1
                return self.text[start:end], Position(row, end - self.text.rfind("\n", 0, end))
        return None, None


def _history(seg: Segment, evidence: str, name_only: bool) -> Segment:
    return Segment(span=seg.span, kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, expr=seg.expr,
                   evidence=evidence, name_only=name_only, inner=seg.inner)
