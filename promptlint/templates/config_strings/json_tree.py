"""JSON strings (for `json.load` in Python) located by a small scanner: the source offset of
each character of every string value, escapes and surrogate pairs included. Values are checked
against `json.loads`: a value the scanner reads differently is kept at its first character only."""
from __future__ import annotations

import json
import re

from .located import _Str


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
