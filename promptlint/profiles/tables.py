"""Reading the packaged TOML tables of profiles/ (semantic_caches.toml, history_windows.toml): one
entry at a time, each key's type checked, unknown keys rejected. Errors are `TableError` (a
ValueError) whose message names the file, the entry and the key.
"""
from __future__ import annotations

import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover (Python 3.10)
    import tomli as tomllib


class TableError(ValueError):
    """The table is malformed; the message names the entry and the key."""


def load_toml(text: str, origin: str) -> dict:
    """The TOML document `text`. Raises TableError naming `origin` when it is not valid TOML."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise TableError(f"{origin}: not valid TOML: {err}") from None


class Entry:
    """Reads one TOML table, checking each key's type; `done()` rejects keys never read."""

    def __init__(self, data: object, where: str, prefix: str = ""):
        if not isinstance(data, dict):
            what = f"`{prefix.rstrip('.')}`" if prefix else "the entry"
            raise TableError(f"{where}: {what} must be a table")
        self.data, self.where, self.prefix, self.read = data, where, prefix, set()

    def name(self, key: str) -> str:
        return f"`{self.prefix}{key}`"

    def raw(self, key: str, required: bool):
        """The value as the TOML holds it (None when absent and not `required`)."""
        return self._get(key, required)

    def _get(self, key: str, required: bool):
        self.read.add(key)
        if key not in self.data:
            if required:
                raise TableError(f"{self.where}: missing {self.name(key)}")
            return None
        return self.data[key]

    def text(self, key: str, required: bool = True, default: str | None = None) -> str | None:
        value = self._get(key, required)
        if value is None:
            return default
        if not isinstance(value, str) or not value.strip():
            raise TableError(f"{self.where}: {self.name(key)} must be a non-empty string")
        return value

    def choice(self, key: str, choices: tuple[str, ...], required: bool = True) -> str | None:
        value = self.text(key, required)
        if value is not None and value not in choices:
            raise TableError(f"{self.where}: {self.name(key)} must be one of {', '.join(choices)}")
        return value

    def names(self, key: str, required: bool = True) -> tuple[str, ...] | None:
        value = self._get(key, required)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise TableError(f"{self.where}: {self.name(key)} must be a list of strings")
        return tuple(value)

    def numbers(self, key: str) -> tuple[int, ...]:
        value = self._get(key, True)
        if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                                                  for v in value):
            raise TableError(f"{self.where}: {self.name(key)} must be a list of non-negative integers")
        return tuple(value)

    def number(self, key: str) -> float:
        value = self._get(key, True)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise TableError(f"{self.where}: {self.name(key)} must be a number")
        return float(value)

    def flag(self, key: str, default: bool) -> bool:
        value = self._get(key, False)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise TableError(f"{self.where}: {self.name(key)} must be true or false")
        return value

    def positive(self, key: str) -> int | None:
        """A positive integer, or None when the key is absent."""
        value = self._get(key, False)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value <= 0):
            raise TableError(f"{self.where}: {self.name(key)} must be a positive integer")
        return value

    def done(self) -> None:
        for key in self.data:
            if key not in self.read:
                raise TableError(f"{self.where}: unknown key {self.name(key)}")
