"""Provider profiles: prompt-caching facts per model family, shipped as package data.

The rows live in `providers.toml` next to this file (loaded with importlib.resources); every
number there carries the https URL of its public source and the date that was visible.
`lookup(provider, model)` picks the row of a target; users add or override rows with
`apply_overrides(rows)` (the list of tables `[[tool.promptlint.profiles]]` in the same shape as
the packaged rows).
"""
from __future__ import annotations

import dataclasses
import fnmatch
import sys
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import NamedTuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = [
    "DEFAULT_TARGETS", "Profile", "Target", "UnknownTargetError", "active_profiles",
    "apply_overrides", "canonical_provider", "known_providers", "lookup", "min_cacheable_tokens", "model_provider",
    "parse_target", "profiles_of",
]


@dataclass(frozen=True)
class Profile:
    """One model family of one provider (a row of providers.toml).

    Token counts are in the family's tokenizer. `min_cacheable_tokens` is None when no source gave
    one; `increment_tokens` is the rounding of cached reads (128 = OpenAI legacy steps counted from
    the minimum, 16 = vLLM full blocks, 0 = exact at the breakpoint). `max_breakpoints` is the number
    of client cache markers allowed per request (0: none); `automatic` is True when caching happens
    without markers. Multipliers are fractions of the base input price (None: not sourced); the
    write multiplier is for `default_ttl`, `long_ttl_write_price_multiplier` for `long_ttl`.
    """

    provider: str
    name: str
    model_patterns: tuple[str, ...] = ()
    family: str = ""
    tokenizer: str = "unknown"
    min_cacheable_tokens: int | None = None
    increment_tokens: int = 0
    max_breakpoints: int = 0
    automatic: bool = True
    read_price_multiplier: float | None = None
    write_price_multiplier: float | None = None
    long_ttl: str | None = None
    long_ttl_write_price_multiplier: float | None = None
    default_ttl: str | None = None
    caching_supported: bool = True
    default: bool = False
    source: str = ""
    notes: str = ""
    uncached: str = ""  # of a row with `caching_supported = false`: what caching it lacks, in words

    @property
    def no_caching(self) -> str:
        """What messages say of a family that caches no request prefix: the row's `uncached`
        wording ("no implicit caching ..."), else "no prompt caching"."""
        return self.uncached or "no prompt caching"

    @property
    def opt_in(self) -> bool:
        """True when nothing is cached without an explicit client breakpoint (Anthropic)."""
        return self.max_breakpoints > 0 and not self.automatic

    @property
    def models(self) -> str:
        """The row's models in words for users: its `family` ("GPT-5 to GPT-5.4"), else its
        patterns ("the models gpt-4o*, chatgpt-4o*"); never the internal row `name`."""
        return self.family or "the models " + ", ".join(self.model_patterns)

    @property
    def minimum(self) -> str:
        """The row's cacheable minimum in words for users (`promptlint models`): its token count,
        that the model caches no prompt, or that its minimum is not published (`source` says
        where the figures come from)."""
        if not self.caching_supported:
            return self.no_caching
        if self.min_cacheable_tokens:
            return f"minimum {self.min_cacheable_tokens:,} tokens"
        if self.increment_tokens == 1:
            return "no minimum"
        if self.increment_tokens:
            return f"cached in blocks of {self.increment_tokens:,} tokens"
        return "minimum not published"

    def write_multiplier(self, ttl: str | None = None) -> float | None:
        """Cache-write price multiplier for a breakpoint with `ttl` ("1h"...; None = default TTL)."""
        if ttl is not None and ttl == self.long_ttl and self.long_ttl_write_price_multiplier is not None:
            return self.long_ttl_write_price_multiplier
        return self.write_price_multiplier


class Target(NamedTuple):
    """A provider and model to estimate for; `model` None means the provider's default row."""

    provider: str
    model: str | None

    def __str__(self) -> str:
        return f"{self.provider}:{self.model}" if self.model else self.provider


class UnknownTargetError(LookupError):
    """Neither the provider nor the model name identifies any profile."""


DEFAULT_TARGETS: tuple[Target, ...] = (
    Target("openai", "gpt-4.1"),
    Target("anthropic", "claude-sonnet-4-5"),
    Target("google", "gemini-2.5-flash"),
)

_INT_FIELDS = {"min_cacheable_tokens", "increment_tokens", "max_breakpoints"}
_FLOAT_FIELDS = {"read_price_multiplier", "write_price_multiplier", "long_ttl_write_price_multiplier"}
_BOOL_FIELDS = {"automatic", "caching_supported", "default"}
_STR_FIELDS = {"provider", "name", "family", "tokenizer", "long_ttl", "default_ttl", "source", "notes", "uncached"}
_KEY_ALIASES = {  # older names of the two price fields, still accepted in user overrides
    "cached_input_price_multiplier": "read_price_multiplier",
    "cache_write_price_multiplier": "write_price_multiplier",
}
_FIELDS = _INT_FIELDS | _FLOAT_FIELDS | _BOOL_FIELDS | _STR_FIELDS | {"model_patterns"}


@dataclass(frozen=True)
class _Data:
    profiles: tuple[Profile, ...]
    aliases: dict
    inherit: dict


def _row_to_kwargs(row: dict, where: str, *, partial: bool) -> dict:
    """Validate one TOML row; raises ValueError naming the row and the offending key."""
    kwargs = {}
    for key, value in row.items():
        field = _KEY_ALIASES.get(key, key)
        if field not in _FIELDS:
            raise ValueError(f"{where}: unknown key `{key}`")
        if field == "model_patterns":
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
                raise ValueError(f"{where}: `model_patterns` must be a list of strings")
            value = tuple(v.lower() for v in value)
        elif field in _INT_FIELDS:
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{where}: `{key}` must be a non-negative integer")
        elif field in _FLOAT_FIELDS:
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{where}: `{key}` must be a non-negative number")
            value = float(value)
        elif field in _BOOL_FIELDS:
            if not isinstance(value, bool):
                raise ValueError(f"{where}: `{key}` must be true or false")
        elif not isinstance(value, str):
            raise ValueError(f"{where}: `{key}` must be a string")
        kwargs[field] = value
    if not partial:
        for required in ("provider", "name", "model_patterns"):
            if required not in kwargs:
                raise ValueError(f"{where}: missing `{required}`")
    if "provider" in kwargs:
        kwargs["provider"] = kwargs["provider"].lower()
    return kwargs


def _new_profile(kwargs: dict) -> Profile:
    kwargs = dict(kwargs)
    kwargs.setdefault("automatic", kwargs.get("max_breakpoints", 0) == 0)
    return Profile(**kwargs)


@lru_cache(maxsize=1)
def _builtin() -> _Data:
    text = resources.files(__name__).joinpath("providers.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    profiles = tuple(_new_profile(_row_to_kwargs(row, f"providers.toml profile {i + 1}", partial=False))
                     for i, row in enumerate(data.get("profile", [])))
    return _Data(profiles, dict(data.get("aliases", {})), dict(data.get("inherit", {})))


_active: tuple[Profile, ...] | None = None


def active_profiles() -> tuple[Profile, ...]:
    """The profiles in use: user rows first (they win ties), then the packaged rows."""
    return _builtin().profiles if _active is None else _active


def apply_overrides(rows: list[dict] | None) -> tuple[Profile, ...]:
    """Install user profile rows on top of the packaged ones; returns the active profiles.

    `rows` is the list of tables from `[[tool.promptlint.profiles]]`, each in the shape of a
    providers.toml row. A row whose `name` equals a packaged row replaces only the fields it gives;
    any other row is a new family and needs `provider`, `name` and `model_patterns`. Each call
    starts again from the packaged rows (`apply_overrides([])` restores them). Raises ValueError
    naming the row and key for an unknown key or a value of the wrong type.
    """
    global _active
    builtin = list(_builtin().profiles)
    by_name = {p.name: i for i, p in enumerate(builtin)}
    added: list[Profile] = []
    for i, row in enumerate(rows or []):
        where = f"profile override {i + 1}"
        if not isinstance(row, dict):
            raise ValueError(f"{where}: must be a table")
        name = row.get("name")
        if isinstance(name, str) and name in by_name:
            kwargs = _row_to_kwargs(row, where, partial=True)
            builtin[by_name[name]] = dataclasses.replace(builtin[by_name[name]], **kwargs)
        else:
            added.append(_new_profile(_row_to_kwargs(row, where, partial=False)))
    _active = tuple(added + builtin)
    return _active


def known_providers() -> set[str]:
    """Provider keys that have profile rows or inherit another provider's rows."""
    return {p.provider for p in active_profiles()} | set(_builtin().inherit)


def canonical_provider(provider: str | None) -> str | None:
    """`provider` lower-cased with aliases resolved ("gemini" -> "google"); None stays None."""
    if provider is None:
        return None
    key = provider.strip().lower()
    return _builtin().aliases.get(key, key)


def profiles_of(provider: str | None) -> list[Profile]:
    """All rows of a provider, including the rows it inherits (relabelled with its name)."""
    provider = canonical_provider(provider)
    own = [p for p in active_profiles() if p.provider == provider]
    parent = _builtin().inherit.get(provider or "")
    if parent:
        own += [_relabel(p, provider, parent) for p in profiles_of(parent["from"])]
    return own


def _relabel(profile: Profile, provider: str, inherit: dict) -> Profile:
    source = "; ".join(s for s in (profile.source, inherit.get("source", "")) if s)
    return dataclasses.replace(profile, provider=provider, source=source)


def _specificity(pattern: str, model: str) -> tuple[int, int] | None:
    """(exact, number of literal characters) when `pattern` matches `model`, else None."""
    if pattern == model:
        return (1, len(pattern))
    if fnmatch.fnmatchcase(model, pattern):
        return (0, len(pattern) - pattern.count("*") - pattern.count("?"))
    return None


def _best(rows: list[Profile], model: str) -> Profile | None:
    best, best_key = None, None
    for row in rows:
        for pattern in row.model_patterns:
            key = _specificity(pattern, model)
            if key is not None and (best_key is None or key > best_key):
                best, best_key = row, key
    return best


def model_provider(model: str | None) -> str | None:
    """The provider whose model patterns name `model` (any case; "gpt-4o-mini" -> "openai"), None
    when no provider's own pattern does (a wildcard row never counts)."""
    return _infer_provider(model.strip().lower()) if model and model.strip() else None


def _infer_provider(model: str) -> str | None:
    """The provider whose non-wildcard pattern matches `model` most specifically."""
    rows = [p for p in active_profiles() if all(pat != "*" for pat in p.model_patterns)]
    row = _best(rows, model)
    return row.provider if row else None


def _split_prefixed(provider: str | None, model: str | None) -> tuple[str | None, str | None]:
    """LiteLLM style "anthropic/claude-..." names carry their provider when the call site's
    provider is a gateway or unknown; "openai/gpt-4o" on provider openai is just stripped. Known
    providers keep other names whole (vLLM serves "openai/gpt-oss-20b" as itself)."""
    if model and "/" in model:
        head, rest = model.split("/", 1)
        head = canonical_provider(head)
        if rest and head in known_providers() and (provider not in known_providers() or head == provider):
            return head, rest
    return provider, model


def lookup(provider: str | None, model: str | None) -> tuple[Profile, str | None]:
    """The profile for a target and a note (None when a row of the provider matched the model).

    `provider` may be an alias or a gateway name ("litellm", "langchain", None): then the provider
    is read from a "provider/model" name or inferred from the model patterns. The most specific
    pattern wins (an exact name, then the pattern with the most literal characters); an unknown or
    missing model falls back to the provider's default row, and the note says so. Raises
    UnknownTargetError when no provider can be determined.
    """
    provider = canonical_provider(provider)
    model = model.strip().lower() if model else None
    provider, model = _split_prefixed(provider, model)
    if provider not in known_providers():
        inferred = _infer_provider(model) if model else None
        if inferred is None:
            raise UnknownTargetError(f"no provider profile for {provider or '?'}:{model or '?'}")
        provider = inferred
    inherit = _builtin().inherit.get(provider)
    if model and inherit and inherit.get("strip_through") and inherit["strip_through"] in model:
        stripped = model.split(inherit["strip_through"], 1)[1]
        own = _best([p for p in active_profiles() if p.provider == provider], model)
        if own is None:
            parent = _best(profiles_of(inherit["from"]), stripped)
            if parent is not None:
                return _relabel(parent, provider, inherit), None
    rows = profiles_of(provider)
    if model:
        row = _best(rows, model)
        if row is not None:
            return row, None
    fallback = next((p for p in rows if p.default), rows[0] if rows else None)
    if fallback is None:  # pragma: no cover - every known provider has rows
        raise UnknownTargetError(f"no profile rows for provider {provider}")
    if model:
        note = f"model `{model}` has no {provider} profile: taken as the {provider} default, {fallback.models}"
    else:
        note = f"model not known statically: taken as the {provider} default, {fallback.models}"
    return fallback, note


def min_cacheable_tokens(provider: str | None, model: str | None, default: int = 1024) -> int:
    """The minimum cacheable prefix (tokens) of a target, or `default` when unknown or unsourced."""
    try:
        profile, _ = lookup(provider, model)
    except UnknownTargetError:
        return default
    return profile.min_cacheable_tokens if profile.min_cacheable_tokens is not None else default


def parse_target(text: str) -> Target:
    """Parse "PROVIDER:MODEL" (as given to `--target`); only the first colon separates, so Bedrock
    ids such as "bedrock:anthropic.claude-3-5-haiku-20241022-v1:0" work. A bare "PROVIDER" means
    its default row. Raises ValueError for an empty part or an unknown provider."""
    provider, _, model = text.strip().partition(":")
    provider = canonical_provider(provider) or ""
    if not provider:
        raise ValueError(f"target `{text}`: expected PROVIDER:MODEL, e.g. openai:gpt-4.1")
    if provider not in known_providers():
        known = ", ".join(sorted(known_providers()))
        raise ValueError(f"target `{text}`: unknown provider `{provider}` (known: {known})")
    if _ and not model.strip():
        raise ValueError(f"target `{text}`: empty model name")
    return Target(provider, model.strip() or None)
