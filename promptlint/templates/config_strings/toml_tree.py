"""TOML strings located by a small scanner (tomllib has no positions): for every string value,
the source offset of each of its characters (basic, literal and multi-line strings, escapes and
line-ending backslashes; the newline right after an opening `\"\"\"` / `'''` is trimmed, as TOML
does). Values are checked against tomllib: a value the scanner reads differently is kept at its
first character only."""
from __future__ import annotations

import re

from .located import _Str

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]


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
