"""The semantic-cache library table: `semantic_caches.toml` next to this file, validated on load.

`table()` is the packaged table (loaded once with importlib.resources); `parse_table(text)` reads
any text in the same shape. Both raise `TableError` (a ValueError) whose message names the entry
and the key at fault: "semantic_caches.toml library 3 (redisvl.SemanticCache): `threshold.kind`
must be one of distance, similarity". The TOML file documents every field and the public source
of every number.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from .tables import Entry, TableError, load_toml

__all__ = ["GptCacheSetup", "Library", "LiteLlmSetup", "Table", "TableError", "Threshold",
           "parse_table", "table"]

TTL_CHECKS = ("kwarg", "absent", "gptcache", "none")
KINDS = ("distance", "similarity")


@dataclass(frozen=True)
class Threshold:
    """How a library reads its match threshold (a [library.threshold] table).

    `kind` is "distance" (lower is stricter) or "similarity" (higher is stricter, 1 = identical);
    `default` the library default, or the value its documentation uses when `documented` is False;
    `unit` the measure in words (same kind and unit = same measure); `range` ("0-2"; "" when not
    documented). `complement`: 1 - value is the other reading (see the TOML). `applies_when`:
    (parameter, accepted values) pairs under which the default holds.
    """

    param: str
    kind: str
    default: float
    unit: str
    source: str
    range: str = ""
    documented: bool = True
    complement: bool = False
    applies_when: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class Library:
    """One semantic cache (a [[library]] entry). `params` is None when the positional order is
    unknown; `ttl_check` one of TTL_CHECKS; `ttl_params` in the order a fix proposes them."""

    key: str
    project: str
    display: str
    ttl_check: str
    source: str
    names: tuple[str, ...] = ()
    params: tuple[str, ...] | None = None
    ttl_params: tuple[str, ...] = ()
    ttl_setter: str | None = None
    fix: str = ""
    litellm_type: str | None = None
    litellm_enum: str | None = None
    threshold: Threshold | None = None


@dataclass(frozen=True)
class LiteLlmSetup:
    """How LiteLLM configures a cache: `Cache(...)` / `enable_cache(...)` names and positional
    parameters, the enum of cache types and the dict key `cache_params`."""

    cache_names: tuple[str, ...]
    cache_params: tuple[str, ...]
    enable_names: tuple[str, ...]
    enable_params: tuple[str, ...]
    type_enum: str
    params_key: str
    source: str


@dataclass(frozen=True)
class GptCacheSetup:
    """How GPTCache is configured: the global cache object and class (`.init(...)`),
    `init_similar_cache`, LangChain's `GPTCache(init_func)`, and where a data manager's TTL sits."""

    library: str
    objects: tuple[str, ...]
    classes: tuple[str, ...]
    init_params: tuple[str, ...]
    similar_names: tuple[str, ...]
    similar_params: tuple[str, ...]
    langchain_names: tuple[str, ...]
    ttl_carriers: tuple[str, ...]
    ttl_carrier_positions: tuple[int, ...]
    source: str


@dataclass(frozen=True)
class Table:
    """The whole table. `by_name` maps a constructor's dotted name to its library, `by_litellm_type`
    a LiteLLM `type` value, `by_litellm_enum` a LiteLLMCacheType member name."""

    libraries: tuple[Library, ...]
    litellm: LiteLlmSetup
    gptcache: GptCacheSetup
    by_key: dict[str, Library] = field(default_factory=dict)
    by_name: dict[str, Library] = field(default_factory=dict)
    by_litellm_type: dict[str, Library] = field(default_factory=dict)
    by_litellm_enum: dict[str, Library] = field(default_factory=dict)

    @property
    def gptcache_library(self) -> Library:
        return self.by_key[self.gptcache.library]

    @property
    def ttl_setters(self) -> frozenset[str]:
        """Method names that set a TTL after construction."""
        return frozenset(lib.ttl_setter for lib in self.libraries if lib.ttl_setter)

    def mentions(self) -> tuple[tuple[str, str], ...]:
        """(package, name) pairs of which every configured cache's source text contains both: the
        top-level package and the last part of each constructor or function name (`langchain`,
        `RedisSemanticCache`); and ("", `cache_params`) for LiteLLM's key."""
        names = [n for lib in self.libraries for n in lib.names]
        names += [*self.litellm.cache_names, *self.litellm.enable_names, *self.gptcache.objects,
                  *self.gptcache.classes, *self.gptcache.similar_names, *self.gptcache.langchain_names]
        pairs = sorted({(n.split(".")[0], n.rsplit(".", 1)[-1]) for n in names if "." in n})
        return (*pairs, ("", self.litellm.params_key))


# ------------------------------------------------------------------------------- validation (tables.py reads each entry)


def _range(text: str, where: str) -> tuple[float, float]:
    low, sep, high = text.partition("-")
    try:
        bounds = float(low), float(high)
    except ValueError:
        bounds = (0.0, -1.0)
    if not sep or bounds[0] >= bounds[1]:
        raise TableError(f"{where}: `threshold.range` must read LOW-HIGH, e.g. \"0-2\"")
    return bounds


def _threshold(data: object, where: str) -> Threshold:
    entry = Entry(data, where, "threshold.")
    param, kind = entry.text("param"), entry.choice("kind", KINDS)
    default, unit = entry.number("default"), entry.text("unit")
    span = entry.text("range", required=False, default="")
    documented, complement = entry.flag("documented", True), entry.flag("complement", False)
    source = entry.text("source")
    applies = entry._get("applies_when", False) or {}
    if not isinstance(applies, dict) or not all(
            isinstance(v, list) and v and all(isinstance(x, str) for x in v) for v in applies.values()):
        raise TableError(f"{where}: `threshold.applies_when` must map parameters to lists of strings")
    entry.done()
    if span:
        low, high = _range(span, where)
        if not low <= default <= high:
            raise TableError(f"{where}: `threshold.default` {default:g} is outside its range {span}")
    if kind == "similarity" and default > 1:
        raise TableError(f"{where}: `threshold.default` of a similarity must be at most 1 (identical)")
    if kind == "distance" and default < 0:
        raise TableError(f"{where}: `threshold.default` of a distance must be at least 0 (identical)")
    when = tuple((name, tuple(v.lower() for v in values)) for name, values in applies.items())
    return Threshold(param, kind, default, unit, source, span, documented, complement, when)


def _library(data: object, where: str) -> Library:
    entry = Entry(data, where)
    key = entry.text("key")
    where = f"{where} ({key})"
    entry.where = where
    ttl_check = entry.choice("ttl_check", TTL_CHECKS)
    library = Library(
        key=key, project=entry.text("project"), display=entry.text("display"), ttl_check=ttl_check,
        source=entry.text("source"), names=entry.names("names"), params=entry.names("params", required=False),
        ttl_params=entry.names("ttl_params", required=False) or (), ttl_setter=entry.text("ttl_setter", False),
        fix=entry.text("fix", required=ttl_check != "none", default=""),
        litellm_type=entry.text("litellm_type", False), litellm_enum=entry.text("litellm_enum", False),
        threshold=_threshold(entry.data["threshold"], where) if "threshold" in entry.data else None,
    )
    entry.read.add("threshold")
    entry.done()
    if ttl_check == "kwarg" and not library.ttl_params:
        raise TableError(f"{where}: `ttl_params` is required when `ttl_check` is \"kwarg\"")
    if ttl_check != "kwarg" and library.ttl_params:
        raise TableError(f"{where}: `ttl_params` is only read when `ttl_check` is \"kwarg\"")
    if (library.litellm_type is None) != (library.litellm_enum is None):
        raise TableError(f"{where}: `litellm_type` and `litellm_enum` go together")
    return library


def _litellm(data: object, origin: str) -> LiteLlmSetup:
    entry = Entry(data, f"{origin} [litellm]")
    setup = LiteLlmSetup(entry.names("cache_names"), entry.names("cache_params"), entry.names("enable_names"),
                         entry.names("enable_params"), entry.text("type_enum"), entry.text("params_key"),
                         entry.text("source"))
    entry.done()
    return setup


def _gptcache(data: object, origin: str) -> GptCacheSetup:
    entry = Entry(data, f"{origin} [gptcache]")
    setup = GptCacheSetup(entry.text("library"), entry.names("objects"), entry.names("classes"),
                          entry.names("init_params"), entry.names("similar_names"),
                          entry.names("similar_params"), entry.names("langchain_names"),
                          entry.names("ttl_carriers"), entry.numbers("ttl_carrier_positions"),
                          entry.text("source"))
    entry.done()
    return setup


def parse_table(text: str, origin: str = "semantic_caches.toml") -> Table:
    """The table in `text` (TOML). Raises TableError naming `origin`, the entry and the key."""
    data = load_toml(text, origin)
    top = Entry(data, origin)
    if top._get("schema_version", True) != 1:
        raise TableError(f"{origin}: `schema_version` must be 1")
    rows = top._get("library", True)
    if not isinstance(rows, list) or not rows:
        raise TableError(f"{origin}: `library` must be a list of [[library]] tables")
    libraries = tuple(_library(row, f"{origin} library {i + 1}") for i, row in enumerate(rows))
    litellm = _litellm(top._get("litellm", True), origin)
    gptcache = _gptcache(top._get("gptcache", True), origin)
    top.done()
    found = Table(libraries, litellm, gptcache)
    for lib in libraries:
        _unique(found.by_key, lib.key, lib, f"{origin}: library key `{lib.key}` is used twice")
        for name in lib.names:
            _unique(found.by_name, name, lib, f"{origin}: name `{name}` belongs to two libraries")
        if lib.litellm_type is not None:
            _unique(found.by_litellm_type, lib.litellm_type, lib,
                    f"{origin}: `litellm_type` `{lib.litellm_type}` is used twice")
            found.by_litellm_enum[lib.litellm_enum] = lib
    if gptcache.library not in found.by_key:
        raise TableError(f"{origin}: [gptcache] `library` names no [[library]] key: `{gptcache.library}`")
    return found


def _unique(index: dict, key: str, value: Library, message: str) -> None:
    if key in index:
        raise TableError(message)
    index[key] = value


@lru_cache(maxsize=1)
def table() -> Table:
    """The packaged table. Raises TableError when the packaged file is malformed."""
    text = resources.files(__package__).joinpath("semantic_caches.toml").read_text(encoding="utf-8")
    return parse_table(text)
