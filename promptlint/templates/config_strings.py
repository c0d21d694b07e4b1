"""Prompt strings in YAML and TOML files, located at their exact rows and columns.

YAML positions come from PyYAML's node marks (`yaml.compose`; a str node's value is the loaded
string itself); TOML has no positions in tomllib,
so a small scanner walks the TOML text and records, for every string value, the source offset of
each of its characters (basic, literal and multi-line strings, escapes and line-ending
backslashes; the newline right after an opening `\"\"\"` / `'''` is trimmed, as TOML does). JSON
(for `json.load` in Python) is scanned the same way. Values are checked against tomllib / PyYAML /
json: a value the scanner reads differently is kept at its first character only (`verbatim`
False).
"""
from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from ..model import Part, Position, Segment, Span
from .jinja import has_jinja_syntax, template_segments
from .prompt_files import is_prompt_named, placeholder_segments

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

_VIRTUAL = "\0config-value"
_PROMPT_KEY = re.compile(
    r"^(system|system_prompt|system_message|system_instructions?|instructions?|prompts?|templates?|"
    r"messages?|content|preamble|persona|user|human|assistant|developer|user_prompt|human_prompt|"
    r".*_(prompt|prompts|template|templates|instructions?|message|messages))$")
# prompt-like keys whose *children* are prompts too (`template` and `content` are too generic)
_PROMPT_PARENT = re.compile(r"^(prompts?|messages|.*_(prompts|messages|templates)|system|instructions)$")
_NOT_PROMPT_LEAF = {"model", "name", "role", "type", "id", "provider", "api_key", "base_url", "url",
                    "version", "engine", "format", "language", "lang", "path", "file", "filename",
                    "encoding", "tokenizer", "stop", "author", "license"}
# prompt-like keys that are also ordinary config words: their strings must read like prose
_WEAK_KEYS = {"user", "human", "assistant", "developer", "system", "content", "template", "templates",
              "message", "messages", "prompt", "prompts"}
_ROLES = {"human": "user", "user": "user", "ai": "assistant", "assistant": "assistant",
          "system": "system", "developer": "developer", "tool": "tool"}


@dataclass
class ConfigPrompt:
    """One prompt found in a config file.

    `keys`: the key path in the parsed data (`["assistant", "system_prompt"]`, list indexes as
    ints). `span`: the value, from its first character. `key_span`: the key (or list item) that
    holds it. `parts`: one Part per message (a single-string prompt has one Part, role "system"
    unless the key says user/human/assistant/developer).
    """

    keys: list[str | int]
    span: Span
    key_span: Span
    parts: list[Part] = field(default_factory=list)

    @property
    def segments(self) -> list[Segment]:
        return [s for p in self.parts for s in p.segments]

    @property
    def key(self) -> str:
        return ".".join(str(k) for k in self.keys)


class LocatedValue(tuple):
    """`(text, start, verbatim)`: a string value of a config file and where it is.

    `start` is the 1-based Position of its first character; `verbatim` is True when the text is
    written contiguously and unescaped from `start` (then `Segment.position_at` is exact).
    `position_at(offset)` is exact in every case.
    """

    def __new__(cls, text: str, start: Position, verbatim: bool, positions: list[Position]):
        self = super().__new__(cls, (text, start, verbatim))
        self.positions = positions
        return self

    text = property(lambda self: self[0])
    start = property(lambda self: self[1])
    verbatim = property(lambda self: self[2])

    def position_at(self, offset: int) -> Position:
        """Where character `offset` of the value (0-based; `len(text)` is just after it) is."""
        return self.positions[max(0, min(offset, len(self.positions) - 1))]


def locate_value(path: Path, text: str, keys: list[str | int]) -> LocatedValue | None:
    """Find the string at `keys` (as in `tomllib.loads(text)["a"]["b"]`, `yaml.safe_load`,
    `json.load`) in a `.toml`, `.yaml` / `.yml` or `.json` file's text. Returns None when the file
    does not parse or the value is not a string."""
    tree = located_tree(path, text)
    if tree is None:
        return None
    node = tree[0]
    for key in keys:
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            return None
    if not isinstance(node, _Str):
        return None
    lines = _Lines(text)
    positions = [lines.position(o) for o in node.offsets]
    return LocatedValue(node.value, positions[0], node.verbatim(text), positions)


def config_prompts(path: Path, filename: str, text: str) -> list[ConfigPrompt]:
    """The prompt strings of a YAML or TOML file, each with its segments at exact rows/columns.

    A string is a prompt when its key is a specific prompt key (`system_prompt`, `instructions`,
    `preamble`, `*_prompt`, `*_template`, `*_instructions`, ...), or when it is prose (a line break,
    or three words or more) under a generic one (`system`, `prompt`, `template`, `content`,
    `user`, ...), under a prompt-like parent key (`prompts`, `messages`, ...) or in a file whose
    name or folder says "prompt". A list of `{role, content}` mappings (or
    `[role, content]` pairs) under a prompt-like key is one prompt with a Part per message.
    Strings with Jinja syntax are parsed as Jinja (never rendered); others get `{var}` /
    `{{var}}` / `$var` placeholders. Files that do not parse give [].
    """
    located = located_tree(path, text)
    if located is None:
        return []
    tree, key_offsets = located
    lines = _Lines(text)
    promptish = _promptish(path)
    out: list[ConfigPrompt] = []

    def walk(node: Any, keys: list[str | int], parent_prompt: bool) -> None:
        last = _last_key(keys)
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, keys + [k], parent_prompt or bool(_PROMPT_PARENT.match(_norm(str(k)))))
        elif isinstance(node, list):
            messages = _messages(node) if last and _PROMPT_KEY.match(_norm(last)) else None
            if messages:
                out.append(_prompt(path, filename, text, lines, keys, messages, key_offsets))
                return
            for i, v in enumerate(node):
                walk(v, keys + [i], parent_prompt)
        elif isinstance(node, _Str) and node.value.strip():
            leaf = _norm(last or "")
            if leaf in _NOT_PROMPT_LEAF:
                return
            strong = bool(last) and bool(_PROMPT_KEY.match(leaf)) and leaf not in _WEAK_KEYS
            weak = leaf in _WEAK_KEYS or parent_prompt or promptish
            if strong or (weak and _prose(node.value)):
                out.append(_prompt(path, filename, text, lines, keys, [(_role_of(keys), node)], key_offsets))

    walk(tree, [], False)
    return out


def located_segments(path: Path, filename: str, text: str, keys: list[str | int]) -> list[Segment] | None:
    """The segments of the string at `keys` of a config file (as `config_prompts` reads it:
    Jinja when it has Jinja syntax, else `{var}` placeholders), with exact spans in `filename`;
    None when the file does not parse or the value is not a string."""
    located = located_tree(path, text)
    if located is None:
        return None
    node = located[0]
    for key in keys:
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            return None
    return value_segments(path, filename, text, node) if isinstance(node, _Str) else None


# --------------------------------------------------------------------------- prompts from strings
def value_segments(path: Path, filename: str, text: str, value: "_Str", lines: "_Lines | None" = None
                   ) -> list[Segment]:
    """Segments of one located string value, with spans in the config file."""
    lines = lines or _Lines(text)
    if has_jinja_syntax(value.value):
        result = template_segments(path, _VIRTUAL, value.value)
        segs = result.segments if not result.errors else None
    else:
        segs = None
    if segs is None:
        segs = placeholder_segments(value.value, _VIRTUAL)
    value_lines = _Lines(value.value)
    positions = [lines.position(o) for o in value.offsets]

    def remap(span: Span | None) -> Span | None:
        if span is None or span.filename != _VIRTUAL:
            return span
        start = positions[min(value_lines.offset(span.start), len(positions) - 1)]
        end = positions[min(value_lines.offset(span.end), len(positions) - 1)]
        return Span(filename, start, end)

    for seg in segs:
        seg.span = remap(seg.span)
        seg.origin = remap(seg.origin)
    return segs


def _prompt(path, filename, text, lines, keys, messages, key_offsets) -> ConfigPrompt:
    parts = []
    for role, value in messages:
        start = lines.position(value.offsets[0])
        end = lines.position(value.offsets[-1])
        parts.append(Part(role=role, segments=value_segments(path, filename, text, value, lines),
                          span=Span(filename, start, end)))
    first = messages[0][1]
    key_off = key_offsets.get(tuple(keys), first.offsets[0])
    key_pos = lines.position(key_off)
    return ConfigPrompt(keys=list(keys), span=Span(filename, parts[0].span.start, parts[-1].span.end),
                        key_span=Span(filename, key_pos, key_pos), parts=parts)


def _messages(items: list) -> list[tuple[str, "_Str"]] | None:
    """[(role, content)] for a list of {role, content} mappings or [role, content] pairs."""
    out = []
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("role"), _Str):
            role, content = item["role"].value, item.get("content", item.get("text"))
            if isinstance(content, list):  # content blocks: the first text block
                content = next((b.get("text") for b in content if isinstance(b, dict)
                                and isinstance(b.get("text"), _Str)), None)
        elif isinstance(item, list) and len(item) == 2 and all(isinstance(x, _Str) for x in item):
            role, content = item[0].value, item[1]
        else:
            return None
        if not isinstance(content, _Str):
            return None
        out.append((_ROLES.get(role.lower(), role.lower()), content))
    return out or None


def _role_of(keys: list) -> str:
    for key in reversed(keys):
        if isinstance(key, str):
            words = set(_norm(key).split("_"))
            if words & {"user", "human"}:
                return "user"
            if words & {"assistant", "ai"}:
                return "assistant"
            if "developer" in words:
                return "developer"
            return "system"
    return "system"


def _last_key(keys: list) -> str | None:
    return next((k for k in reversed(keys) if isinstance(k, str)), None)


def _norm(key: str) -> str:
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", key).replace("-", "_").lower()


def _prose(value: str) -> bool:
    """A line break, or at least three words."""
    return "\n" in value.strip() or len(value.split()) >= 3


def _promptish(path: Path) -> bool:
    """A config file named for prompts, or in one of 3 nearest folders named for prompts."""
    posix = PurePosixPath(Path(path).as_posix())
    return is_prompt_named(posix.stem) or any(is_prompt_named(p) for p in posix.parent.parts[-3:])


# --------------------------------------------------------------------------- located values
class _Str:
    """A string value and the source offset of each character (`offsets[len(value)]` is the
    offset just after the last character)."""

    __slots__ = ("value", "offsets")

    def __init__(self, value: str, offsets: list[int]):
        self.value, self.offsets = value, offsets

    def verbatim(self, source: str) -> bool:
        start = self.offsets[0]
        return source[start:start + len(self.value)] == self.value and \
            all(b - a == 1 for a, b in zip(self.offsets, self.offsets[1:]))


class _Lines:
    def __init__(self, text: str):
        self.starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]

    def position(self, offset: int) -> Position:
        row = bisect.bisect_right(self.starts, offset)
        return Position(row, offset - self.starts[row - 1] + 1)

    def offset(self, pos: Position) -> int:
        return self.starts[min(pos.row, len(self.starts)) - 1] + pos.column - 1


def located_tree(path: Path, text: str) -> tuple[Any, dict[tuple, int]] | None:
    """(data with every string replaced by a `_Str`, {key path: offset of its key}) for a TOML,
    YAML or JSON file, chosen by suffix; None when it does not parse. Raises
    `safe_yaml.YamlBombError` for YAML whose aliases expand past the limits."""
    from .safe_yaml import YamlBombError
    suffix = Path(path).suffix.lower()
    try:
        if suffix == ".toml":
            return _toml_tree(text)
        if suffix in (".yaml", ".yml"):
            return _yaml_tree(text)
        if suffix == ".json":
            return _json_tree(text)
    except YamlBombError:
        raise
    except (ValueError, RecursionError):
        return None
    return None


# ---- YAML
def _yaml_tree(text: str):
    import yaml

    from .safe_yaml import compose_all
    try:
        docs = compose_all(text)  # aliases bounded: a bomb raises YamlBombError (the file's PRM001)
    except yaml.YAMLError as exc:
        raise ValueError(str(exc)) from exc
    key_offsets: dict[tuple, int] = {}

    def build(node, keys: tuple):
        if isinstance(node, yaml.MappingNode):
            out = {}
            for k, v in node.value:
                if isinstance(k, yaml.ScalarNode) and k.value != "<<":
                    key = _yaml_key(k)
                    key_offsets[keys + (key,)] = k.start_mark.index
                    out[key] = build(v, keys + (key,))
            return out
        if isinstance(node, yaml.SequenceNode):
            out = []
            for i, v in enumerate(node.value):
                key_offsets[keys + (i,)] = v.start_mark.index
                out.append(build(v, keys + (i,)))
            return out
        if isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:str":
            return _Str(node.value, _yaml_offsets(text, node))
        return None

    trees = [build(d, ()) for d in docs if d is not None]
    if len(trees) != 1:  # several documents: index them like a list
        return trees, key_offsets
    return trees[0], key_offsets  # a str node's `value` is the loaded string: nothing to check


def _yaml_key(node) -> Any:
    import yaml

    if node.tag == "tag:yaml.org,2002:int":
        try:
            return yaml.safe_load(node.value)
        except yaml.YAMLError:
            return node.value
    return node.value


def _yaml_offsets(text: str, node) -> list[int]:
    value, start, end = node.value, node.start_mark.index, node.end_mark.index
    style = node.style
    if style in ("|", ">"):
        start = text.find("\n", start, end)
        start = end if start < 0 else start + 1
        if style == "|":
            exact = _literal_block(text, value, start, end)
            if exact is not None:
                return exact
    elif style in ("'", '"'):
        start += 1
    units = _dq_units(text, start, end) if style == '"' else [(text[i], i) for i in range(start, end)]
    return _align(value, units, start)


def _literal_block(text: str, value: str, start: int, end: int) -> list[int] | None:
    """Exact offsets of a `|` block: value lines are source lines minus the indentation."""
    src_lines = text[start:end].split("\n")
    first = next((ln for ln in src_lines if ln.strip()), "")
    indent = len(first) - len(first.lstrip(" "))
    offsets, line_start = [], start
    val_lines = value.split("\n")
    for i, vline in enumerate(val_lines):
        if i >= len(src_lines):
            return None
        sline = src_lines[i]
        if vline and sline[indent:indent + len(vline)] != vline:
            return None
        base = line_start + min(indent, len(sline))
        offsets.extend(base + j for j in range(len(vline)))
        if i < len(val_lines) - 1:
            offsets.append(line_start + len(sline))  # the newline
        line_start += len(sline) + 1
    offsets.append(offsets[-1] + 1 if offsets else start)
    return offsets


def _dq_units(text: str, start: int, end: int) -> list[tuple[str | None, int]]:
    """Characters of a double-quoted YAML scalar with escapes decoded, each with its offset."""
    units, i = [], start
    simple = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "a": "\a", "b": "\b", "e": "\x1b",
              "f": "\f", "v": "\v", '"': '"', "/": "/", "\\": "\\", " ": " ", "N": "\x85",
              "_": "\xa0", "L": "\u2028", "P": "\u2029", "\t": "\t"}
    while i < end:
        ch = text[i]
        if ch == "\\" and i + 1 < end:
            nxt = text[i + 1]
            width = {"x": 2, "u": 4, "U": 8}.get(nxt)
            if width:
                try:
                    units.append((chr(int(text[i + 2:i + 2 + width], 16)), i))
                except ValueError:
                    units.append((nxt, i))
                i += 2 + width
                continue
            if nxt == "\n":  # escaped line break: nothing
                i += 2
                continue
            units.append((simple.get(nxt, nxt), i))
            i += 2
            continue
        units.append((ch, i))
        i += 1
    return units


_REMOVABLE = {" ", "\t", "\n", "\r", "'", '"', None}


def _align(value: str, units: list[tuple[str | None, int]], start: int) -> list[int]:
    """Map each value character to a source unit, skipping the whitespace, quotes and line
    breaks that folding, indentation and quoting remove. Characters that cannot be matched keep
    the last matched offset (not exact, never wrong by more than that run)."""
    offsets, j, last = [], 0, start
    for ch in value:
        k, matched = j, None
        while k < len(units):
            unit = units[k][0]
            if unit == ch or (ch == " " and unit == "\n"):  # equal, or a folded line break
                matched = k
                break
            if unit not in _REMOVABLE:
                break
            k += 1
        if matched is None:
            offsets.append(last)
            continue
        last = units[matched][1]
        offsets.append(last)
        j = matched + 1
        if ch == " " and units[matched][0] == "\n":  # folded: skip the next line's indentation
            while j < len(units) and units[j][0] in (" ", "\t"):
                j += 1
    offsets.append(offsets[-1] + 1 if offsets else start)
    return offsets


# ---- TOML
def _toml_tree(text: str):
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(str(exc)) from exc
    scanner = _TomlScanner(text)
    scanner.run()

    def build(node, keys: tuple):
        if isinstance(node, dict):
            return {k: build(v, keys + (k,)) for k, v in node.items()}
        if isinstance(node, list):
            return [build(v, keys + (i,)) for i, v in enumerate(node)]
        if isinstance(node, str):
            found = scanner.strings.get(keys)
            if found is not None and found.value == node:
                return found
            off = found.offsets[0] if found is not None else scanner.keys.get(keys, 0)
            return _Str(node, [off] * (len(node) + 1))
        return None

    return build(data, ()), scanner.keys


class _TomlScanner:
    """Records the key offset and the character offsets of every string value of a TOML text.
    The text is known to be valid TOML (tomllib parsed it); table headers count as keys."""

    def __init__(self, text: str):
        self.s, self.i = text, 0
        self.strings: dict[tuple, _Str] = {}
        self.keys: dict[tuple, int] = {}
        self.aot: dict[tuple, int] = {}

    def run(self) -> None:
        table: tuple = ()
        s = self.s
        while True:
            self._skip(newlines=True)
            if self.i >= len(s):
                return
            start = self.i
            if s.startswith("[[", self.i):
                self.i += 2
                keys = self._key_path(table_header=True)
                self.i += 2  # ]]
                path = self._resolve(keys)
                self.aot[path] = self.aot.get(path, -1) + 1
                table = path + (self.aot[path],)
                self.keys.setdefault(path, start)
                self.keys[table] = start
            elif s[self.i] == "[":
                self.i += 1
                keys = self._key_path(table_header=True)
                self.i += 1
                table = self._resolve(keys)
                self.keys.setdefault(table, start)
            else:
                self._keyval(table)

    def _resolve(self, keys: list[str]) -> tuple:
        out: tuple = ()
        for n, key in enumerate(keys):
            out += (key,)
            if out in self.aot and n < len(keys) - 1:
                out += (self.aot[out],)
        return out

    def _keyval(self, table: tuple) -> None:
        start = self.i
        keys = self._key_path()
        path = table + tuple(keys)
        self.keys[path] = start
        self._skip()
        self.i += 1  # '='
        self._skip()
        self._value(path)

    def _key_path(self, table_header: bool = False) -> list[str]:
        keys, s = [], self.s
        while True:
            self._skip()
            if s[self.i] in "\"'":
                keys.append(self._string().value)
            else:
                m = re.compile(r"[A-Za-z0-9_-]+").match(s, self.i)
                keys.append(m.group(0))
                self.i = m.end()
            self._skip()
            if self.i < len(s) and s[self.i] == ".":
                self.i += 1
                continue
            return keys

    def _value(self, path: tuple) -> None:
        s = self.s
        ch = s[self.i]
        if ch in "\"'":
            self.strings[path] = self._string()
        elif ch == "[":
            self.i += 1
            index = 0
            while True:
                self._skip(newlines=True)
                if s[self.i] == "]":
                    self.i += 1
                    return
                self._value(path + (index,))
                index += 1
                self._skip(newlines=True)
                if s[self.i] == ",":
                    self.i += 1
        elif ch == "{":
            self.i += 1
            while True:
                self._skip(newlines=True)
                if s[self.i] == "}":
                    self.i += 1
                    return
                self._keyval(path)
                self._skip(newlines=True)
                if s[self.i] == ",":
                    self.i += 1
        else:
            m = re.compile(r"[^,\]}\n#]*").match(s, self.i)
            self.i = m.end()

    def _skip(self, newlines: bool = False) -> None:
        s = self.s
        while self.i < len(s):
            ch = s[self.i]
            if ch in " \t" or (newlines and ch in "\r\n"):
                self.i += 1
            elif ch == "#":
                end = s.find("\n", self.i)
                self.i = len(s) if end < 0 else end
            else:
                return

    def _string(self) -> _Str:
        s, i = self.s, self.i
        quote = s[i]
        multi = s.startswith(quote * 3, i)
        i += 3 if multi else 1
        if multi and s.startswith("\r\n", i):
            i += 2
        elif multi and s.startswith("\n", i):
            i += 1
        chars, offsets = [], []
        while True:
            if multi and s.startswith(quote * 3, i):
                extra = 0
                while extra < 2 and s.startswith(quote * 4, i + extra):
                    extra += 1
                for k in range(extra):
                    chars.append(quote)
                    offsets.append(i + k)
                end = i + extra
                self.i = end + 3
                break
            ch = s[i]
            if not multi and ch == quote:
                end = i
                self.i = i + 1
                break
            if quote == '"' and ch == "\\":
                nxt = s[i + 1]
                if multi and nxt in " \t\r\n":  # line-ending backslash: trim to next non-space
                    j = i + 1
                    while j < len(s) and s[j] in " \t\r\n":
                        j += 1
                    i = j
                    continue
                width = {"x": 2, "u": 4, "U": 8}.get(nxt)
                if width:
                    chars.append(chr(int(s[i + 2:i + 2 + width], 16)))
                    offsets.append(i)
                    i += 2 + width
                    continue
                chars.append({"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", "e": "\x1b",
                              '"': '"', "\\": "\\"}.get(nxt, nxt))
                offsets.append(i)
                i += 2
                continue
            if multi and ch == "\r" and s.startswith("\r\n", i):
                chars.append("\n")
                offsets.append(i + 1)
                i += 2
                continue
            chars.append(ch)
            offsets.append(i)
            i += 1
        offsets.append(end)
        return _Str("".join(chars), offsets)


# ---- JSON
def _json_tree(text: str):
    data = json.loads(text)
    scanner = _JsonScanner(text)
    tree = scanner.value(())
    _check(tree, data)
    return tree, scanner.keys


class _JsonScanner:
    _NUMBER = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?|true|false|null")

    def __init__(self, text: str):
        self.s, self.i = text, 0
        self.keys: dict[tuple, int] = {}

    def _ws(self) -> None:
        while self.i < len(self.s) and self.s[self.i] in " \t\r\n":
            self.i += 1

    def value(self, path: tuple):
        self._ws()
        ch = self.s[self.i]
        if ch == "{":
            self.i += 1
            out = {}
            while True:
                self._ws()
                if self.s[self.i] == "}":
                    self.i += 1
                    return out
                if self.s[self.i] == ",":
                    self.i += 1
                    continue
                start = self.i
                key = self.string().value
                self.keys[path + (key,)] = start
                self._ws()
                self.i += 1  # ':'
                out[key] = self.value(path + (key,))
        if ch == "[":
            self.i += 1
            out = []
            while True:
                self._ws()
                if self.s[self.i] == "]":
                    self.i += 1
                    return out
                if self.s[self.i] == ",":
                    self.i += 1
                    continue
                self.keys[path + (len(out),)] = self.i
                out.append(self.value(path + (len(out),)))
        if ch == '"':
            return self.string()
        m = self._NUMBER.match(self.s, self.i)
        if m is None:
            raise ValueError(f"unexpected {ch!r} at {self.i}")
        self.i = m.end()
        return None

    def string(self) -> _Str:
        s, i = self.s, self.i + 1
        chars, offsets = [], []
        while s[i] != '"':
            if s[i] == "\\":
                nxt = s[i + 1]
                if nxt == "u":
                    code = int(s[i + 2:i + 6], 16)
                    width = 6
                    if 0xD800 <= code < 0xDC00 and s.startswith("\\u", i + 6):
                        low = int(s[i + 8:i + 12], 16)
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        width = 12
                    chars.append(chr(code))
                    offsets.append(i)
                    i += width
                    continue
                chars.append({"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}.get(nxt, nxt))
                offsets.append(i)
                i += 2
                continue
            chars.append(s[i])
            offsets.append(i)
            i += 1
        offsets.append(i)
        self.i = i + 1
        return _Str("".join(chars), offsets)


def _check(tree, data) -> None:
    """Where the located tree reads a string differently from the real parser, keep the real
    value at its first character (offsets collapsed): never a wrong text."""
    if isinstance(tree, dict) and isinstance(data, dict):
        for k, v in tree.items():
            if k in data:
                replacement = _check_leaf(v, data[k])
                if replacement is not None:
                    tree[k] = replacement
                else:
                    _check(v, data[k])
    elif isinstance(tree, list) and isinstance(data, list):
        for i, (v, d) in enumerate(zip(tree, data)):
            replacement = _check_leaf(v, d)
            if replacement is not None:
                tree[i] = replacement
            else:
                _check(v, d)


def _check_leaf(node, real) -> _Str | None:
    if isinstance(node, _Str) and isinstance(real, str) and node.value != real:
        return _Str(real, [node.offsets[0]] * (len(real) + 1))
    return None
