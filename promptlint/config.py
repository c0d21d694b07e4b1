"""Configuration: find the config file, read `[tool.promptlint]`, resolve rule selection.

Where the settings come from (ruff's model):
- the nearest `promptlint.toml` (keys at top level) or `pyproject.toml` with a `[tool.promptlint]`
  table, searched from the checked paths upward; in one directory `promptlint.toml` wins;
- `--config PATH` names the file instead; `--isolated` ignores every file;
- command-line options override the file (`cli_overrides`).

Keys are kebab-case in TOML and snake_case on `Settings`. An unknown key, a bad value or an
unknown rule selector raises `ConfigError`, whose message names it and suggests the nearest valid
one; the CLI turns it into exit code 2. Relative globs resolve against the config file's
directory (`Settings.root`).
"""
from __future__ import annotations

import difflib
import os
import sys
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Iterable, Mapping

import pathspec

if sys.version_info >= (3, 11):  # pragma: no cover - depends on the interpreter
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

FAIL_ON = ("info", "warning", "error")
OUTPUT_FORMATS = ("text", "concise", "json", "sarif", "github", "gitlab", "html")
CONFIG_FILES = ("promptlint.toml", "pyproject.toml")
# Directories never worth linting; `exclude` replaces this list, `extend-exclude` adds to it.
DEFAULT_EXCLUDE = (
    ".bzr", ".direnv", ".eggs", ".git", ".hg", ".mypy_cache", ".nox", ".pytest_cache",
    ".ruff_cache", ".svn", ".tox", ".venv", "__pypackages__", "_build", "build", "dist",
    "node_modules", "site-packages", "venv",
)


class ConfigError(Exception):
    """A configuration problem the user must fix; the message is one line (exit code 2)."""


@dataclass
class Settings:
    """Resolved settings for one run.

    `select` is None for the default (every rule); selectors are codes (`PRM102`), prefixes
    (`PRM1`), rule names (`timestamp-in-prefix`) or `ALL`. `per_file_ignores` maps a
    gitignore-style glob (relative to `root`; a leading `!` negates it) to selectors. `targets` are
    `PROVIDER:MODEL` strings; `profiles` are user provider-profile rows (tables, checked by the
    profile loader). `fail_on` is the lowest severity that makes the exit code 1. `cli_select`,
    `cli_extend_select` and `cli_ignore` are the command line's layer, applied after the file's.
    """

    select: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    exclude: list[str] = field(default_factory=lambda: list(DEFAULT_EXCLUDE))
    extend_exclude: list[str] = field(default_factory=list)
    template_globs: list[str] = field(default_factory=list)
    prompt_globs: list[str] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)
    profiles: list[dict] = field(default_factory=list)
    unsafe_fixes: bool = False
    fail_on: str = "warning"
    output_format: str = "text"
    cli_select: list[str] | None = None
    cli_extend_select: list[str] = field(default_factory=list)
    cli_ignore: list[str] = field(default_factory=list)
    force_exclude: bool = False
    docs_url: str | None = None
    root: Path = field(default_factory=Path.cwd)
    config_path: Path | None = None
    cli_overrides: dict[str, Any] = field(default_factory=dict)
    hierarchical: bool = False

    def __post_init__(self) -> None:
        self._enabled: set[str] | None = None
        self._pfi: list[tuple[pathspec.PathSpec, bool, set[str]]] | None = None
        self._excluded: pathspec.PathSpec | None = None
        self._nearest: dict[Path | str, Path | None] = {}  # folder (Path, or its str) -> config
        self._loaded: dict[Path | None, Settings] = {}

    def for_path(self, path: str | os.PathLike, is_dir: bool | None = None) -> "Settings":
        """The settings that apply to `path` (a file or folder): those of the closest config file
        above it when this run found its config by searching (`hierarchical`, ruff's nested
        configs in a monorepo), else these. Selection, per-file-ignores and exclusion come from
        the returned settings; the run-level keys (fail-on, output-format, targets, profiles,
        docs-url) from the run's. The command line's options apply to every file. Raises
        ConfigError for a nested config that cannot be used. `is_dir` says whether `path` is a
        folder, when the caller knows (else the file system is asked)."""
        if not self.hierarchical:
            return self
        absolute = os.path.abspath(path)
        folder = os.path.isdir(absolute) if is_dir is None else is_dir
        directory = absolute if folder else os.path.dirname(absolute)
        config = self._nearest[directory] if directory in self._nearest else self._closest(Path(directory))
        if config == self.config_path:
            return self
        if config not in self._loaded:
            self._loaded[config] = load_settings(config, cli_overrides=self.cli_overrides)
        return self._loaded[config]

    def _closest(self, directory: Path) -> Path | None:
        walked = []
        found: Path | None = None
        for d in (directory, *directory.parents):
            if d in self._nearest:
                found = self._nearest[d]
                break
            walked.append(d)
            found = _config_in(d)
            if found is not None:
                break
        for d in walked:
            self._nearest[d] = self._nearest[str(d)] = found
        return found

    @property
    def enabled_codes(self) -> set[str]:
        """Codes enabled before per-file-ignores (ruff's resolution: see `resolve_selection`)."""
        if self._enabled is None:
            self._enabled = resolve_selection([
                (self.select, self.extend_select, self.ignore),
                (self.cli_select, self.cli_extend_select, self.cli_ignore),
            ])
        return self._enabled

    def is_enabled(self, code: str, filename: str | os.PathLike | None = None) -> bool:
        """Whether rule `code` runs on `filename` (any path; matched relative to `root`)."""
        if code not in self.enabled_codes:
            return False
        if filename is None or not self.per_file_ignores:
            return True
        if self._pfi is None:
            self._pfi = []
            for glob, selectors in self.per_file_ignores.items():
                negated = glob.startswith("!")
                spec = pathspec.GitIgnoreSpec.from_lines([glob.lstrip("!")])
                self._pfi.append((spec, negated, expand_selectors(selectors, "per-file-ignores")))
        rel = self.relative(filename)
        for spec, negated, codes in self._pfi:
            if code in codes and spec.match_file(rel) != negated:
                return False
        return True

    def is_excluded(self, path: str | os.PathLike) -> bool:
        """Whether `path` (a file or directory) matches `exclude` or `extend-exclude`."""
        if self._excluded is None:
            self._excluded = pathspec.GitIgnoreSpec.from_lines(
                [*self.exclude, *self.extend_exclude])
            self.__dict__["_excluded_any"] = _any_pattern(self._excluded)
        rel = self.relative(path)
        fast = self.__dict__.get("_excluded_any")
        if fast is not None:  # no negated pattern: excluded when any pattern matches
            return fast.match(rel) is not None or fast.match(rel + "/") is not None
        return self._excluded.match_file(rel) or self._excluded.match_file(rel + "/")

    def relative(self, path: str | os.PathLike) -> str:
        """`path` as a posix path relative to `root` when under it, else absolute."""
        absolute = os.path.normpath(os.path.join(os.getcwd(), path))
        root = self.__dict__.get("_real_root")
        if root is None:
            root = self.__dict__["_real_root"] = str(self.root.resolve())
        relative = _under(absolute, root)
        if relative is None:
            relative = _under(os.path.realpath(absolute), root)
        return relative if relative is not None else Path(absolute).as_posix()


def _any_pattern(spec: pathspec.PathSpec):
    """One regular expression that matches what any pattern of `spec` matches, or None when a
    pattern negates (`!keep`: then the order of the patterns matters) or has no expression.
    Each pattern is a gitignore glob anchored at the start, so their union is linear too."""
    import re
    parts = []
    for pattern in spec.patterns:
        regex = getattr(pattern, "regex", None)
        if pattern.include is None:
            continue  # a blank line or a comment
        if not pattern.include or regex is None:
            return None
        parts.append(re.sub(r"\(\?P<\w+>", "(?:", regex.pattern))
    try:
        return re.compile("|".join(f"(?:{p})" for p in parts)) if parts else re.compile(r"(?!)")
    except re.error:
        return None


def _under(absolute: str, root: str) -> str | None:
    """`absolute` relative to `root` (posix) when it is under it (or is it: "."), else None."""
    if absolute == root:
        return "."
    prefix = root if root.endswith(os.sep) else root + os.sep
    if not absolute.startswith(prefix):
        return None
    return absolute[len(prefix):].replace(os.sep, "/")


# Each TOML key, its Settings field and the value's type ("strs": list of strings).
_KEYS: dict[str, tuple[str, str]] = {
    "select": ("select", "strs"),
    "extend-select": ("extend_select", "strs"),
    "ignore": ("ignore", "strs"),
    "per-file-ignores": ("per_file_ignores", "globs"),
    "exclude": ("exclude", "strs"),
    "extend-exclude": ("extend_exclude", "strs"),
    "template-globs": ("template_globs", "strs"),
    "prompt-globs": ("prompt_globs", "strs"),
    "targets": ("targets", "strs"),
    "profiles": ("profiles", "tables"),
    "unsafe-fixes": ("unsafe_fixes", "bool"),
    "fail-on": ("fail_on", "str"),
    "output-format": ("output_format", "str"),
    "force-exclude": ("force_exclude", "bool"),
    "docs-url": ("docs_url", "str"),
    "extend": ("", "str"),
}


_NOT_OPTIONS = ("root", "config_path", "cli_overrides", "hierarchical")


def find_config(paths: Iterable[str | os.PathLike] = ()) -> Path | None:
    """The config file for a run over `paths`, or None.

    Searches upward from the deepest directory holding every path (the current directory when
    `paths` is empty): in each directory `promptlint.toml`, then a `pyproject.toml` that has a
    `[tool.promptlint]` table. A `pyproject.toml` without that table is skipped, as ruff does.
    """
    dirs = []
    for raw in paths or [Path.cwd()]:
        p = Path(raw).absolute()
        dirs.append(str(p if p.is_dir() else p.parent))
    start = Path(os.path.commonpath(dirs)) if dirs else Path.cwd()
    for directory in (start, *start.parents):
        found = _config_in(directory)
        if found is not None:
            return found
    return None


def _config_in(directory: Path) -> Path | None:
    """`directory`'s config file: promptlint.toml, else a pyproject.toml with [tool.promptlint]."""
    candidate = directory / "promptlint.toml"
    if candidate.is_file():
        return candidate
    candidate = directory / "pyproject.toml"
    if candidate.is_file() and _has_promptlint_table(candidate):
        return candidate
    return None


def _toml_error(exc: Exception) -> str:
    return "nested too deeply to read" if isinstance(exc, RecursionError) else str(exc)


def _has_promptlint_table(pyproject: Path) -> bool:
    try:
        text = pyproject.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError):
        return False
    except (tomllib.TOMLDecodeError, RecursionError) as exc:  # RecursionError: nested too deeply
        if "[tool.promptlint" in text:  # ours, but broken: say so rather than run with defaults
            raise ConfigError(f"invalid TOML in {_shown(pyproject)}: {_toml_error(exc)}") from None
        return False
    tool = data.get("tool")
    return isinstance(tool, dict) and "promptlint" in tool


def load_settings(config_path: str | os.PathLike | None = None, isolated: bool = False,
                  cli_overrides: Mapping[str, Any] | None = None, hierarchical: bool = False) -> Settings:
    """Settings from `config_path` (None: no file) overlaid with `cli_overrides`.

    `cli_overrides` uses Settings field names; None values are ignored. `select`,
    `extend_select` and `ignore` given there form the command line's selection layer (a CLI
    `select` replaces the file's base, ruff's rule). With `isolated` the file is not read.
    A config's `extend = "PATH"` (relative to its directory) reads that file first; the keys of
    the extending file replace the extended file's. `hierarchical` makes `Settings.for_path`
    look up the closest config of each file (set when the config was found by searching).
    Raises ConfigError for an unreadable file, invalid TOML, an unknown key, a value of the
    wrong type, an unknown rule selector or a loop of `extend`.
    """
    settings = Settings(cli_overrides={k: v for k, v in (cli_overrides or {}).items() if v is not None},
                        hierarchical=hierarchical and not isolated)
    if config_path is not None and not isolated:
        path = Path(config_path)
        settings.root = path.absolute().parent
        settings.config_path = path
        for table, where in _extend_chain(path):
            _apply_table(settings, table, where)
    cli_names = {"select": "cli_select", "extend_select": "cli_extend_select",
                 "ignore": "cli_ignore"}
    for name, value in (cli_overrides or {}).items():
        if value is None:
            continue
        target = cli_names.get(name, name)
        if target not in {f.name for f in fields(Settings)} or target in _NOT_OPTIONS:
            raise ConfigError(f"unknown setting `{name}`")
        if isinstance(value, tuple):
            value = list(value)
        _check_value(name, value, f"`{_OPTION_NAMES.get(name, '--' + name.replace('_', '-'))}`")
        setattr(settings, target, value)
    return settings


#: Command-line options whose name is not the setting's (`--target` sets `targets`).
_OPTION_NAMES = {"targets": "--target"}


def _shown(path: str | os.PathLike) -> str:
    """A config file as messages name it: relative to the current folder when under it."""
    from .paths import display_name
    return display_name(Path(path))


def _read_table(path: Path) -> tuple[dict, str]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise ConfigError(f"cannot read config file {_shown(path)}: {reason}") from None
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise ConfigError(f"invalid TOML in {_shown(path)}: {_toml_error(exc)}") from None
    if path.name == "pyproject.toml":
        tool = data.get("tool", {})
        if not isinstance(tool, dict):
            raise ConfigError(f"`tool` in {_shown(path)} must be a table")
        table = tool.get("promptlint", {})
        if not isinstance(table, dict):
            shape = "an array of tables ([[tool.promptlint]])" if isinstance(table, list) else "a value"
            raise ConfigError(f"`tool.promptlint` in {_shown(path)} must be a table ([tool.promptlint]), "
                              f"not {shape}")
        return table, f"[tool.promptlint] of {_shown(path)}"
    return data, _shown(path)


def _extend_chain(path: Path) -> list[tuple[dict, str]]:
    """The tables of `path` and of the files it extends, the farthest first."""
    chain: list[tuple[dict, str]] = []
    seen: list[Path] = []
    while True:
        key = Path(os.path.abspath(path))
        if key in seen:
            raise ConfigError(f"`extend` loops: {' -> '.join(_shown(p) for p in [*seen, key])}")
        seen.append(key)
        table, where = _read_table(path)
        chain.append((table, where))
        parent = table.get("extend")
        if parent is None:
            return chain[::-1]
        if not isinstance(parent, str):
            raise ConfigError(f"`extend` in {where} must be a string (a path)")
        path = key.parent / parent
        if not path.is_file():
            raise ConfigError(f"`extend` in {where}: {parent} is not a file")


def _apply_table(settings: Settings, table: dict, where: str) -> None:
    for key, value in table.items():
        if key not in _KEYS:
            if key == "tool" and isinstance(value, dict) and "promptlint" in value:
                raise ConfigError(f"unknown key `tool` in {where}: outside pyproject.toml the settings are written "
                                  "without the [tool.promptlint] header (as top-level keys)")
            raise ConfigError(f"unknown key `{key}` in {where}{_suggest(key, _KEYS)}")
        attr, kind = _KEYS[key]
        if not attr:  # `extend`: read by _extend_chain
            continue
        if kind == "strs":
            ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        elif kind == "globs":
            ok = isinstance(value, dict) and all(
                isinstance(v, list) and all(isinstance(c, str) for c in v) for v in value.values())
        elif kind == "tables":
            ok = isinstance(value, list) and all(isinstance(v, dict) for v in value)
        elif kind == "bool":
            ok = isinstance(value, bool)
        else:
            ok = isinstance(value, str)
        if not ok:
            expected = {"strs": "a list of strings", "globs": "a table of glob = [codes]",
                        "tables": "an array of tables", "bool": "true or false",
                        "str": "a string"}[kind]
            raise ConfigError(f"`{key}` in {where} must be {expected}")
        setattr(settings, attr, dict(value) if kind == "globs" else value)
        _check_value(attr, value, f"`{key}` in {where}")


def _check_value(attr: str, value: Any, where: str) -> None:
    """Validate one setting; `where` names it for the message ("`fail-on` in promptlint.toml")."""
    if attr == "fail_on" and value not in FAIL_ON:
        raise ConfigError(f"invalid value `{value}` for {where}: expected one of "
                          f"{', '.join(FAIL_ON)}{_suggest(str(value), FAIL_ON)}")
    if attr == "output_format" and value not in OUTPUT_FORMATS:
        raise ConfigError(f"invalid value `{value}` for {where}: expected one of "
                          f"{', '.join(OUTPUT_FORMATS)}{_suggest(str(value), OUTPUT_FORMATS)}")
    if attr in ("select", "extend_select", "ignore") and value is not None:
        expand_selectors(value, where)
    if attr == "per_file_ignores":
        for selectors in value.values():
            expand_selectors(selectors, where)
    if attr == "profiles":
        from .profiles import apply_overrides
        try:
            apply_overrides(value)
        except ValueError as exc:
            raise ConfigError(f"invalid `profiles` in {where}: {exc}") from None
        finally:
            apply_overrides([])
    if attr == "targets":
        for target in value:
            provider, _, model = target.partition(":")
            if not provider or not model:
                raise ConfigError(f"invalid target `{target}` for {where}: "
                                  "expected PROVIDER:MODEL, e.g. openai:gpt-4o")


def _suggest(word: str, choices: Iterable[str]) -> str:
    match = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.5)
    return f"; did you mean `{match[0]}`?" if match else ""


def _rules():
    from .rules import ALL_RULES
    return ALL_RULES


def _specificity(selector: str) -> int:
    """ALL 0, a prefix its length, an exact code or name 100 (more specific wins)."""
    if selector == "ALL":
        return 0
    for rule in _rules():
        if selector in (rule.code, rule.name):
            return 100
    return len(selector)


def expand_selectors(selectors: Iterable[str], where: str = "the selection") -> set[str]:
    """The rule codes matched by `selectors` (codes, prefixes, names, `ALL`).

    Raises ConfigError naming the first selector that matches no rule, with a suggestion.
    """
    rules = _rules()
    codes: set[str] = set()
    for selector in selectors:
        if selector == "ALL":
            codes.update(r.code for r in rules)
            continue
        matched = {r.code for r in rules if selector in (r.name, r.code)
                   or (selector and r.code.startswith(selector))}
        if not matched:
            names = ["ALL", *(r.code for r in rules), *(r.name for r in rules)]
            raise ConfigError(f"unknown rule selector `{selector}` in {where}{_suggest(selector, names)} "
                              "(a code such as PRM102, a prefix such as PRM1, a name or ALL: `promptlint rules` "
                              "lists them)")
        codes |= matched
    return codes


def resolve_selection(layers: list[tuple[list[str] | None, list[str], list[str]]]) -> set[str]:
    """Enabled codes from (select, extend_select, ignore) layers, lowest priority first.

    ruff's resolution: the base is every rule; a layer whose `select` is not None replaces it.
    Within a layer, selectors are applied from least to most specific (`ALL`, then shorter
    prefixes, then exact codes and names); at each level selections are added, then ignores
    removed. So `select = ["PRM1"]`, `ignore = ["PRM102"]` drops PRM102, and
    `select = ["PRM102"]`, `ignore = ["PRM1"]` keeps it (the longest match decides, as flake8).
    """
    enabled = {r.code for r in _rules()}
    for select, extend_select, ignore in layers:
        if select is not None:
            enabled = set()
        adds = [*(select or []), *extend_select]
        levels = sorted({_specificity(s) for s in [*adds, *ignore]})
        for level in levels:
            for s in adds:
                if _specificity(s) == level:
                    enabled |= expand_selectors([s])
            for s in ignore:
                if _specificity(s) == level:
                    enabled -= expand_selectors([s])
    return enabled
