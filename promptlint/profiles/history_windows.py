"""The history-window library table: `history_windows.toml` next to this file, validated on load.

One `Window` per library class (or function) that keeps a conversation to a window of it: where
it is imported from, the parameter that sets the window, its default, and what it cuts (`cut`);
one `Default` per agent class that makes such a memory when it is given none. `table()` is the
packaged table (loaded once with importlib.resources); `parse_table(text)` reads any text in the
same shape. Both raise `TableError` (a ValueError) whose message names the entry and the key at
fault: "history_windows.toml window 2 (llama_index.Memory): `cut` must be one of ...". The TOML
file documents every field and the public source of every fact.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["CUTS", "UNITS", "Default", "Table", "TableError", "Window", "parse_table", "table"]

CUTS = ("oldest", "summary", "middle", "head-tail", "steps")
UNITS = ("tokens", "messages", "turns")


class TableError(ValueError):
    """The table is malformed; the message names the entry and the key."""


@dataclass(frozen=True)
class Window:
    """A library class (or function) that keeps a conversation to a window of it.

    `roots`: top-level packages it is imported from; `name` the class name, `factories` its class
    methods that build it; `params` / `factory_params` the positional parameter orders. `limit` is
    the parameter that sets the window, counting `unit` (tokens, messages, turns); `default` its
    value when not given (None: required); `absent_context`: a missing limit means the model's
    context window; `context_param`: given without the limit, the limit is a share of the model's
    context window. `cut` is one of CUTS; `does` a sentence for messages. The other fields: see
    the TOML file.
    """

    key: str
    project: str
    roots: tuple[str, ...]
    name: str
    limit: str
    unit: str
    cut: str
    does: str
    source: str
    params: tuple[str, ...] = ()
    factories: tuple[str, ...] = ()
    factory_params: tuple[str, ...] = ()
    default: int | None = None
    absent_context: bool = False
    context_param: str | None = None
    step_param: str | None = None
    off_param: str | None = None
    off_values: tuple[str, ...] = ()
    unit_param: str | None = None
    unit_value: str | None = None
    unit_as: str | None = None
    config_only: bool = False
    loads: tuple[str, ...] = ()
    slots: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    pipe: bool = False
    auto_param: str | None = None
    auto_reads: tuple[str, ...] = ()


@dataclass(frozen=True)
class Default:
    """An agent class that makes a window memory (`window`, a Window key) when given none: built
    by its class (`name`, `params`) or by a method of the library's objects (`methods`);
    `memory_param` takes a memory, `context_param` a model whose context window sizes the default."""

    key: str
    project: str
    roots: tuple[str, ...]
    name: str
    methods: tuple[str, ...]
    memory_param: str
    window: str
    source: str
    params: tuple[str, ...] = ()
    context_param: str | None = None


@dataclass(frozen=True)
class Table:
    """The whole table. `by_name` maps a class (or function) name to the windows of that name,
    `defaults_by_name` a class or method name to the defaults made by it."""

    windows: tuple[Window, ...]
    defaults: tuple[Default, ...]
    by_key: dict[str, Window] = field(default_factory=dict)
    by_name: dict[str, tuple[Window, ...]] = field(default_factory=dict)
    defaults_by_name: dict[str, tuple[Default, ...]] = field(default_factory=dict)

    def hints(self) -> tuple[str, ...]:
        """Words one of which a module's text holds when it may configure a window that cuts on
        every turn: the class and method names (`ChatMemoryBuffer`, `as_agent`; not those of the
        classes that only cut in steps, whose name may be a common word: `Memory`)."""
        return tuple(sorted({*(w.name for w in self.windows if w.cut != "steps"), *self.defaults_by_name}))


class _Entry:
    """Reads one TOML table, checking each key's type; `done()` rejects keys never read."""

    def __init__(self, data: object, where: str):
        if not isinstance(data, dict):
            raise TableError(f"{where}: the entry must be a table")
        self.data, self.where, self.read = data, where, set()

    def get(self, key: str, kind: type | tuple, required: bool = False, what: str = ""):
        self.read.add(key)
        if key not in self.data:
            if required:
                raise TableError(f"{self.where}: missing `{key}`")
            return None
        value = self.data[key]
        if kind is int and (isinstance(value, bool) or not isinstance(value, int) or value <= 0):
            raise TableError(f"{self.where}: `{key}` must be a positive integer")
        if kind is list and not (isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value)):
            raise TableError(f"{self.where}: `{key}` must be a list of strings")
        if kind is str and not (isinstance(value, str) and value.strip()):
            raise TableError(f"{self.where}: `{key}` must be a non-empty string")
        if kind is bool and not isinstance(value, bool):
            raise TableError(f"{self.where}: `{key}` must be true or false")
        return tuple(value) if kind is list else value

    def choice(self, key: str, choices: tuple[str, ...], required: bool = True) -> str | None:
        value = self.get(key, str, required)
        if value is not None and value not in choices:
            raise TableError(f"{self.where}: `{key}` must be one of {', '.join(choices)}")
        return value

    def done(self) -> None:
        for key in self.data:
            if key not in self.read:
                raise TableError(f"{self.where}: unknown key `{key}`")


def _window(data: object, where: str) -> Window:
    entry = _Entry(data, where)
    entry.where = where = f"{where} ({entry.get('key', str, True)})"
    absent = entry.choice("absent", ("context",), required=False)
    window = Window(
        key=entry.get("key", str, True), project=entry.get("project", str, True),
        roots=entry.get("roots", list, True), name=entry.get("name", str, True),
        limit=entry.get("limit", str, True), unit=entry.choice("unit", UNITS), cut=entry.choice("cut", CUTS),
        does=entry.get("does", str, True), source=entry.get("source", str, True),
        params=entry.get("params", list, True), factories=entry.get("factories", list) or (),
        factory_params=entry.get("factory_params", list) or (), default=entry.get("default", int),
        absent_context=absent == "context", context_param=entry.get("context_param", str),
        step_param=entry.get("step_param", str), off_param=entry.get("off_param", str),
        off_values=entry.get("off_values", list) or (), unit_param=entry.get("unit_param", str),
        unit_value=entry.get("unit_value", str), unit_as=entry.choice("unit_as", UNITS, required=False),
        config_only=bool(entry.get("config_only", bool)), loads=entry.get("loads", list) or (),
        slots=entry.get("slots", list, True), reads=entry.get("reads", list, True),
        pipe=bool(entry.get("pipe", bool)), auto_param=entry.get("auto_param", str),
        auto_reads=entry.get("auto_reads", list) or (),
    )
    entry.done()
    if window.default is not None and window.absent_context:
        raise TableError(f"{where}: `default` and `absent` exclude each other")
    if (window.off_param is None) != (not window.off_values):
        raise TableError(f"{where}: `off_param` and `off_values` go together")
    if len({window.unit_param is None, window.unit_value is None, window.unit_as is None}) != 1:
        raise TableError(f"{where}: `unit_param`, `unit_value` and `unit_as` go together")
    if (window.auto_param is None) != (not window.auto_reads):
        raise TableError(f"{where}: `auto_param` and `auto_reads` go together")
    if window.factory_params and not window.factories:
        raise TableError(f"{where}: `factory_params` needs `factories`")
    return window


def _default(data: object, where: str) -> Default:
    entry = _Entry(data, where)
    entry.where = where = f"{where} ({entry.get('key', str, True)})"
    made = Default(key=entry.get("key", str, True), project=entry.get("project", str, True),
                   roots=entry.get("roots", list, True), name=entry.get("name", str, True),
                   methods=entry.get("methods", list, True), memory_param=entry.get("memory_param", str, True),
                   window=entry.get("window", str, True), source=entry.get("source", str, True),
                   params=entry.get("params", list) or (), context_param=entry.get("context_param", str))
    entry.done()
    return made


def parse_table(text: str, origin: str = "history_windows.toml") -> Table:
    """The table in `text` (TOML). Raises TableError naming `origin`, the entry and the key."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise TableError(f"{origin}: not valid TOML: {err}") from None
    top = _Entry(data, origin)
    if top.get("schema_version", object, True) != 1:
        raise TableError(f"{origin}: `schema_version` must be 1")
    rows, made = top.get("window", object, True), top.get("default", object) or []
    if not isinstance(rows, list) or not rows or not isinstance(made, list):
        raise TableError(f"{origin}: `window` and `default` must be lists of [[window]] / [[default]] tables")
    top.done()
    windows = tuple(_window(row, f"{origin} window {i + 1}") for i, row in enumerate(rows))
    defaults = tuple(_default(row, f"{origin} default {i + 1}") for i, row in enumerate(made))
    found = Table(windows, defaults)
    for window in windows:
        if window.key in found.by_key:
            raise TableError(f"{origin}: window key `{window.key}` is used twice")
        found.by_key[window.key] = window
        found.by_name[window.name] = (*found.by_name.get(window.name, ()), window)
    for default in defaults:
        if default.window not in found.by_key:
            raise TableError(f"{origin}: default `{default.key}` names no [[window]] key: `{default.window}`")
        if found.by_key[default.window].default is None:
            raise TableError(f"{origin}: default `{default.key}`: its window `{default.window}` has no default limit")
        for name in (default.name, *default.methods):
            found.defaults_by_name[name] = (*found.defaults_by_name.get(name, ()), default)
    return found


@lru_cache(maxsize=1)
def table() -> Table:
    """The packaged table. Raises TableError when the packaged file is malformed."""
    text = resources.files(__package__).joinpath("history_windows.toml").read_text(encoding="utf-8")
    return parse_table(text)
