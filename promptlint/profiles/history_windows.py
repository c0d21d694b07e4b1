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

from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from .tables import Entry, TableError, load_toml

__all__ = ["CUTS", "UNITS", "Default", "Table", "TableError", "Window", "parse_table", "table"]

CUTS = ("oldest", "summary", "middle", "head-tail", "steps")
UNITS = ("tokens", "messages", "turns")


@dataclass(frozen=True)
class Window:
    """A library class (or function) that keeps a conversation to a window of it.

    `roots`: top-level packages it is imported from; `name` the class name, `factories` its class
    methods that build it; `params` / `factory_params` the positional parameter orders. `limit` is
    the parameter that sets the window, counting `unit` (tokens, messages, turns); `default` its
    value when not given (None: required); `absent_context`: a missing limit means the model's
    context window; `every_turn`: no limit at all, what it keeps is rewritten after every exchange
    (`limit` is then ""); `context_param`: given without the limit, the limit is a share of the model's
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
    every_turn: bool = False
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


def _window(data: object, where: str) -> Window:
    entry = Entry(data, where)
    entry.where = where = f"{where} ({entry.text('key')})"
    absent = entry.choice("absent", ("context", "every-turn"), required=False)
    window = Window(
        key=entry.text("key"), project=entry.text("project"),
        roots=entry.names("roots"), name=entry.text("name"),
        limit=entry.text("limit", absent != "every-turn") or "", unit=entry.choice("unit", UNITS), cut=entry.choice("cut", CUTS),
        does=entry.text("does"), source=entry.text("source"),
        params=entry.names("params"), factories=entry.names("factories", False) or (),
        factory_params=entry.names("factory_params", False) or (), default=entry.positive("default"),
        absent_context=absent == "context", every_turn=absent == "every-turn", context_param=entry.text("context_param", False),
        step_param=entry.text("step_param", False), off_param=entry.text("off_param", False),
        off_values=entry.names("off_values", False) or (), unit_param=entry.text("unit_param", False),
        unit_value=entry.text("unit_value", False), unit_as=entry.choice("unit_as", UNITS, required=False),
        config_only=entry.flag("config_only", False), loads=entry.names("loads", False) or (),
        slots=entry.names("slots"), reads=entry.names("reads"),
        pipe=entry.flag("pipe", False), auto_param=entry.text("auto_param", False),
        auto_reads=entry.names("auto_reads", False) or (),
    )
    entry.done()
    if window.default is not None and (window.absent_context or window.every_turn):
        raise TableError(f"{where}: `default` and `absent` exclude each other")
    if window.every_turn and window.limit:
        raise TableError(f"{where}: `limit` and `absent = \"every-turn\"` exclude each other")
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
    entry = Entry(data, where)
    entry.where = where = f"{where} ({entry.text('key')})"
    made = Default(key=entry.text("key"), project=entry.text("project"),
                   roots=entry.names("roots"), name=entry.text("name"),
                   methods=entry.names("methods"), memory_param=entry.text("memory_param"),
                   window=entry.text("window"), source=entry.text("source"),
                   params=entry.names("params", False) or (), context_param=entry.text("context_param", False))
    entry.done()
    return made


def parse_table(text: str, origin: str = "history_windows.toml") -> Table:
    """The table in `text` (TOML). Raises TableError naming `origin`, the entry and the key."""
    data = load_toml(text, origin)
    top = Entry(data, origin)
    if top.raw("schema_version", True) != 1:
        raise TableError(f"{origin}: `schema_version` must be 1")
    rows, made = top.raw("window", True), top.raw("default", False) or []
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
