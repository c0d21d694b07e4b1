"""The persistent analysis cache (`.promptlint_cache`, as ruff's `.ruff_cache`).

What is cached: each file's analysis result (its prompt layouts with their token estimates, the
diagnostics of the module rules, its PRM001), never the findings of the prefix rules, the
deduplication or the suppressions: those run after, on every run, from the layouts (so a change
of `select`, `ignore` or a suppression comment needs no new analysis).

An entry is valid when all of these are unchanged:
- the file's own bytes (sha256) and kind;
- the fingerprint of the run (`fingerprint`): the cache schema, promptlint's version and the
  digest of its own code and data files, the Python version, the versions of the parsers and
  tokenizers it uses, the current folder, the module roots, and the settings that change facts
  (targets, provider profile overrides, `force`);
- every dependency the analysis recorded (`promptlint.reads`): the bytes of each other file it
  read (imported modules, rendered templates, config and text files), the absence of each file it
  looked for and did not find, and each text search over a package. A Python module the analysis
  parsed is recorded by its code instead of its bytes (`promptlint.python.code_state`: the text of
  its top-level statements) when the result names neither the module nor a row without a file
  (`_by_code`), and its texts grew by no more than the analysis' budget left (`MAX_ANALYSIS_CHARS`):
  a comment or a blank line added between two functions of an imported module does not make its
  importers analysed again (early cutoff); their entries then record the module's new bytes.

Two more kinds of entries make a run whose files are all cached load neither a tokenizer nor
libcst: the findings of the prefix rules per layout (keyed by the digest of the layout itself:
they depend on nothing else besides the fingerprint) and the token counts of texts seen before
(`promptlint.tokens.MEMO`, keyed by the digest of the text).

Storage: `<cache dir>/v<SCHEMA>/<fingerprint>/<xx>/<key>.json`, one JSON entry per analysed file
(the model as `promptlint.cache.codec` encodes it: never pickle, a crafted entry cannot run
code), except the files whose result is empty and depends on nothing else (most files: they
cannot hold a prompt), listed in one `index.json`; `findings/<xx>/<key>.json` per layout and
`tokens.json`. An entry that cannot be read or decoded is ignored, and rewritten by the new analysis.
Writes are atomic (a temporary file renamed over the entry), so two runs at once each see
whole entries, and the last writer wins. The cache folder holds a `CACHEDIR.TAG` and a
`.gitignore` that ignores it all; the `KEEP` most recently used fingerprints are kept. It is made
at the first write of a run: a run with nothing to store leaves none.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from .. import reads, source
from ..python import code_state
from ..model import Diagnostic, PromptLayout, Report
from .codec import CodecError, decode, encode
from .files import check_writable, last_used, write_atomic
from .identity import SCHEMA, fingerprint

DIR_NAME = ".promptlint_cache"
MAX_TOKEN_COUNTS = 200_000  # texts whose token counts are kept
#: Fingerprints (promptlint versions, settings, module roots) kept in one cache folder: one
#: folder serves the checks of several packages from one current folder, each its own roots.
KEEP = 8
CACHEDIR_TAG = ("Signature: 8a477f597d28d172789f06886806bc55\n"
                "# This file is a cache directory tag created by promptlint.\n"
                "# For information about cache directory tags see https://bford.info/cachedir/\n")
GITIGNORE = "# Automatically created by promptlint.\n*\n"


@dataclass
class Result:
    """One file's analysis as the engine produces it and the cache stores it.

    `state` is the state of the file's own bytes when analysed (`promptlint.reads`; None when it
    could not be read); `deps` every other dependency (key -> state); `quiet` says the file's
    text cannot hold a suppression comment (`suppress.might_suppress` is false), so the
    suppression pass need not read it; `cacheable` is false for a result that must not be reused
    (an internal error); `restart` asks the worker to stop after it (a MemoryError); `layout_keys` the
    digest of each of its layouts, where the findings of the prefix rules on it are cached;
    `codes` the code state (`promptlint.python.code_state`) of each Python module of `deps` that
    its analysis parsed, and `slack` the characters its modules could grow by before they meet
    `MAX_ANALYSIS_CHARS` (no `codes` when they met it): `store` keys the module by its code when
    the result does not name it; `plain` is `is_plain` of the result, set when `deps` was dropped (a worker stored the entry
    and sends the parent no dependency: thousands per file, which the parent would hold to the
    end of the run for nothing)."""

    report: Report
    state: str | None = None
    deps: dict[str, str | None] = field(default_factory=dict)
    quiet: bool = False
    cacheable: bool = True
    restart: bool = False
    layout_keys: list[str] = field(default_factory=list)
    plain: bool | None = None
    codes: dict[str, str] = field(default_factory=dict)
    slack: int = 0

    def drop_deps(self) -> None:
        """Forget `deps` (once stored), remembering whether the result is plain."""
        self.plain = is_plain(self)
        self.deps = {}
        self.codes = {}


def default_dir(config_path: Path | None) -> Path:
    """Where the cache lives when neither `--cache-dir` nor PROMPTLINT_CACHE_DIR says: in the
    folder of the configuration file in effect (`config.find_config`: a `promptlint.toml`, or a
    `pyproject.toml` with `[tool.promptlint]`, above the checked paths), else the current folder;
    never a project root found by `.git` alone."""
    base = config_path.parent if config_path is not None else Path.cwd()
    return base / DIR_NAME


class Cache:
    """The entries of one fingerprint in one cache folder. The folder is made at the first write
    (`_ready`): a run with nothing to store (an empty folder, no file promptlint reads) leaves none.

    `states` memoises the current state of each dependency for the run (a run sees one snapshot
    of the files)."""

    def __init__(self, root: Path, fingerprint: str):
        self.root = root
        self.fingerprint = fingerprint
        self.dir = root / f"v{SCHEMA}" / fingerprint[:24]
        self.states: dict[tuple[str, bool], str | None] = {}
        self.snapshots: dict[str, str] = {}
        self.plain: dict[str, list] | None = None
        self._loaded: dict[str, list] = {}
        self.hits = self.misses = 0
        self._made = False

    @classmethod
    def open(cls, root: Path, fingerprint: str) -> "Cache":
        """The cache in folder `root`, made (with its CACHEDIR.TAG and .gitignore) only when
        something is stored. Raises OSError when the folder could not be made or written: it is
        not a folder, or the nearest folder that exists on its path cannot be written."""
        root = Path(root).absolute()
        cache = cls(root, fingerprint)
        check_writable(root)
        if cache.dir.is_dir():
            cache._ready()
        return cache

    def _ready(self) -> None:
        """Make the folder of this fingerprint (and the cache folder with its CACHEDIR.TAG and
        .gitignore), mark it used and prune old ones: before the first write of a run, or at
        `open` when it exists. Raises OSError."""
        if self._made:
            return
        self.dir.mkdir(parents=True, exist_ok=True)
        for name, text in (("CACHEDIR.TAG", CACHEDIR_TAG), (".gitignore", GITIGNORE)):
            if not (self.root / name).is_file():
                write_atomic(self.root / name, text.encode())
        (self.dir / "used").touch()
        self._made = True
        self._prune()

    def _prune(self) -> None:
        """Remove other schemas' folders and all but the `KEEP` most recently used fingerprints."""
        try:
            for other in self.root.glob("v*"):
                if other.is_dir() and other.name != f"v{SCHEMA}":
                    shutil.rmtree(other, ignore_errors=True)
            folders = [d for d in self.dir.parent.iterdir() if d.is_dir() and d != self.dir]
            folders.sort(key=last_used, reverse=True)
            for old in folders[KEEP - 1:]:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            pass

    # ---------------------------------------------------------------- states
    def state(self, key: str, wanted: str | None = None) -> str | None:
        """The current state of dependency `key` (memoised for the run): its digest, or with
        `wanted` == `reads.EXISTS` only whether it is a regular file."""
        memo = (key, wanted == reads.EXISTS)
        if memo not in self.states:
            self.states[memo] = source.current_state(key, reads.EXISTS if memo[1] else None)
        return self.states[memo]

    def holds(self, key: str, recorded: str | None) -> bool:
        """Whether a dependency recorded as `recorded` still holds."""
        if key.startswith(reads.TREE):
            memo = (key, "tree")
            if memo not in self.states:
                from ..templates.references import tree_state
                self.states[memo] = tree_state(Path(key[len(reads.TREE):]), self.state)
            return self.states[memo] == recorded
        if key.startswith("search:"):
            from ..python.packages import search_valid
            return recorded is not None and search_valid(key, recorded, self.state, self.snapshots)
        return self.state(key, recorded) == recorded

    # ---------------------------------------------------------------- entries
    def _entry(self, key: str, kind: str) -> Path:
        name = hashlib.sha256(f"{key}\0{kind}".encode("utf-8", "surrogatepass")).hexdigest()
        return self.dir / name[:2] / f"{name[2:40]}.json"

    def lookup(self, path: Path, kind: str) -> Result | None:
        """The cached result of `path` when it is still valid, else None (missing, stale,
        unreadable or corrupt entries alike)."""
        key = reads.key_of(path)
        state = self.state(key)
        row = self._index().get(f"{key}\0{kind}") if state is not None else None
        if row is not None and row[0] == state:
            self.hits += 1
            return Result(Report(files=1), state, quiet=row[1] is True)
        result = self._read(key, kind, state) if state is not None else None
        if result is None:
            self.misses += 1
        else:
            self.hits += 1
        return result

    def _read(self, key: str, kind: str, state: str) -> Result | None:
        try:
            data = json.loads(self._entry(key, kind).read_bytes())
        except (OSError, ValueError):
            return None
        if not (isinstance(data, dict) and data.get("fingerprint") == self.fingerprint
                and data.get("path") == key and data.get("kind") == kind and data.get("state") == state):
            return None
        deps = data.get("deps")
        if not isinstance(deps, dict) or not all(isinstance(k, str) and (v is None or isinstance(v, str))
                                                 for k, v in deps.items()):
            return None
        refreshed = self._valid(deps, data.get("slack"))
        if refreshed is None:
            return None
        errors = data.get("errors", [])
        if not (isinstance(errors, list) and all(isinstance(e, str) for e in errors)):
            return None
        try:
            report = Report(diagnostics=decode(list[Diagnostic], data.get("diagnostics", [])),
                            prompts=decode(list[PromptLayout], data.get("prompts", [])), errors=errors,
                            files=1)
        except CodecError:
            return None
        keys = data.get("layout_keys", [])
        if not (isinstance(keys, list) and len(keys) == len(report.prompts) and all(isinstance(k, str) for k in keys)):
            return None
        if refreshed:  # modules whose code did not change: their new bytes, so the next run reads none of them
            data["deps"] = {**deps, **refreshed}
            try:
                write_atomic(self._entry(key, kind), json.dumps(data, separators=(",", ":")).encode("ascii"))
            except (OSError, ValueError):
                pass
        return Result(report, state, deps, quiet=data.get("quiet") is True, layout_keys=keys)

    def _valid(self, deps: dict[str, str | None], slack) -> dict[str, str] | None:
        """None unless every dependency in `deps` holds; else the new code state of each module
        recorded by its code whose bytes changed but not its code (`promptlint.python.code_state`),
        when their texts together grew by at most `slack` characters."""
        refreshed: dict[str, str] = {}
        grown, changed = 0, False
        for k, v in deps.items():
            if v is None or not v.startswith(code_state.CODE):
                if not self.holds(k, v):
                    return None
                continue
            recorded = code_state.split(v)
            if recorded is None:
                return None
            now = self.state(k)
            if now == recorded[0]:
                continue
            memo = (k, code_state.CODE)
            if memo not in self.states:
                self.states[memo] = code_state.current(k) if now is not None else None
            code = self.states[memo]
            if code is None or code[0] != recorded[1]:
                return None
            grown, changed = grown + code[1] - recorded[2], True
            if len(now) == 64:
                refreshed[k] = f"{code_state.CODE}{now}:{code[0]}:{code[1]}"
        if changed and not (type(slack) is int and grown <= slack):
            return None
        return refreshed

    # ---------------------------------------------------------------- plain results
    # Most files hold no prompt: their result is empty and depends on nothing but their text.
    # They have no entry file: one index lists them ("path\0kind" -> [state, quiet]), written by
    # the parent process at the end of a run.
    def _index(self) -> dict[str, list]:
        if self.plain is None:
            self.plain = {}
            try:
                data = json.loads((self.dir / "index.json").read_bytes())
                rows = data.get("plain") if isinstance(data, dict) and data.get("fingerprint") == self.fingerprint else None
                if isinstance(rows, dict):
                    self.plain = {k: v for k, v in rows.items() if isinstance(v, list) and len(v) == 2
                                  and isinstance(v[0], str)}
            except (OSError, ValueError):
                pass
            self._loaded = dict(self.plain)
        return self.plain

    def remember(self, path: Path, kind: str, result: Result) -> None:
        """Keep `result` in the index of plain results when it is one (else drop the row)."""
        index = self._index()
        name = f"{reads.key_of(path)}\0{kind}"
        if is_plain(result):
            index[name] = [result.state, result.quiet]
        else:
            index.pop(name, None)

    def save_index(self) -> None:
        """Write the index of plain results when it changed (atomically; errors ignored)."""
        if self.plain is None or self.plain == self._loaded:
            return
        try:
            text = json.dumps({"fingerprint": self.fingerprint, "plain": self.plain}, separators=(",", ":"))
            self._ready()
            write_atomic(self.dir / "index.json", text.encode("ascii"))
            self._loaded = dict(self.plain)
        except (OSError, ValueError):
            pass

    def store(self, path: Path, kind: str, result: Result) -> None:
        """Write `result` as the entry of `path` (atomically; `result.layout_keys` are set); a
        result that is not cacheable or whose file could not be read is not written. Write
        errors are ignored (the next run analyses the file again)."""
        if not result.cacheable or result.state is None or is_plain(result):
            return  # plain results go to the index (`remember`)
        key = reads.key_of(path)
        entry = {"schema": SCHEMA, "fingerprint": self.fingerprint, "path": key, "kind": kind,
                 "state": result.state, "deps": result.deps, "quiet": result.quiet}
        if result.report.errors:  # a file the analysis gave up on (the same next time)
            entry["errors"] = list(result.report.errors)
        try:
            if result.report.diagnostics:
                entry["diagnostics"] = encode(result.report.diagnostics)
            if result.report.prompts:
                entry["prompts"] = encode(result.report.prompts)
                result.layout_keys = entry["layout_keys"] = [_layout_key(e) for e in entry["prompts"]]
            if result.codes:
                entry["deps"], entry["slack"] = _by_code(result, entry), result.slack
            text = json.dumps(entry, separators=(",", ":"))  # ASCII: lone surrogates escaped
            target = self._entry(key, kind)
            self._ready()
            target.parent.mkdir(exist_ok=True)
            write_atomic(target, text.encode("ascii"))
        except (OSError, ValueError, CodecError):
            pass


    # ---------------------------------------------------------------- findings of layouts
    def _findings_entry(self, key: str) -> Path:
        return self.dir / "findings" / key[:2] / f"{key[2:]}.json"

    def findings(self, layout: PromptLayout, key: str | None = None) -> list[Diagnostic] | None:
        """The prefix rules' findings on `layout` (whose `layout_key` is `key`, when known) when
        a run computed them before, else None."""
        try:
            data = json.loads(self._findings_entry(key or layout_key(layout)).read_bytes())
            if not isinstance(data, dict) or data.get("fingerprint") != self.fingerprint:
                return None
            return decode(list[Diagnostic], data.get("diagnostics"))
        except (OSError, ValueError):  # CodecError is a ValueError
            return None

    def store_findings(self, layout: PromptLayout, diagnostics: list[Diagnostic], key: str | None = None) -> None:
        try:
            target = self._findings_entry(key or layout_key(layout))
            text = json.dumps({"fingerprint": self.fingerprint, "diagnostics": encode(diagnostics)},
                              separators=(",", ":"))
            self._ready()
            target.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(target, text.encode("ascii"))
        except (OSError, ValueError):
            pass

    # ---------------------------------------------------------------- token counts
    def load_token_counts(self) -> None:
        """Make `promptlint.tokens` use the counts of earlier runs (and record the new ones)."""
        from .. import tokens
        counts: dict[str, int] = {}
        known = 0
        try:
            data = json.loads((self.dir / "tokens.json").read_bytes())
            if isinstance(data, dict):
                counts = {k: v for k, v in data.items()
                          if isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)}
            known = len(counts) if isinstance(data, dict) and len(counts) == len(data) else -1
        except FileNotFoundError:
            pass
        except (OSError, ValueError):
            known = -1  # a corrupt file: written again whole at the end of the run, whatever was added
        tokens.MEMO, self._tokens_known = counts, known

    def save_token_counts(self) -> None:
        """Write the token counts when some were added (at most `MAX_TOKEN_COUNTS`, the newest
        first kept), and stop using them."""
        from .. import tokens
        counts, tokens.MEMO = tokens.MEMO, None
        if counts is None or len(counts) == getattr(self, "_tokens_known", -1):
            return
        if len(counts) > MAX_TOKEN_COUNTS:
            counts = dict(list(counts.items())[-MAX_TOKEN_COUNTS:])
        try:
            self._ready()
            write_atomic(self.dir / "tokens.json", json.dumps(counts, separators=(",", ":")).encode("ascii"))
        except (OSError, ValueError):
            pass


#: A row named in a text (`line 12`, `(line 12)`): a message may name a row of another module
#: without its file name.
_ROW = re.compile(r"\bline \d")


def _by_code(result: Result, entry: dict) -> dict[str, str | None]:
    """`result.deps` with each module of `result.codes` keyed by its code state when the result
    does not name it: no file name of the module (its base name, as JSON writes it, anywhere in
    the diagnostics, prompts and errors: the rows of a span, a related location, a layout id or
    a message such as "`f` (tools.py:12)" would move with its layout) and no row named without a
    file ("line 12"). Such a result is the same for any text of the module with the same code."""
    body = json.dumps([entry.get("diagnostics"), entry.get("prompts"), entry.get("errors")])
    if _ROW.search(body):
        return result.deps
    deps = dict(result.deps)
    for k, state in result.codes.items():
        names = {os.path.basename(k), os.path.basename(os.path.realpath(k))}
        if deps.get(k) == state.split(":")[1] and not any(json.dumps(n)[1:-1] in body for n in names):
            deps[k] = state
    return deps


def is_plain(result: Result) -> bool:
    """A cacheable result with nothing in it and no dependency but the file itself."""
    if result.plain is not None:
        return result.plain
    report = result.report
    return (result.cacheable and result.state is not None and not result.deps and not report.prompts
            and not report.diagnostics and not report.errors)


def layout_key(layout: PromptLayout) -> str:
    """The digest of a layout (hex): the key of its findings."""
    return _layout_key(encode(layout))


def _layout_key(encoded: dict) -> str:
    data = json.dumps(encoded, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()[:40]


__all__ = ["Cache", "Result", "SCHEMA", "DIR_NAME", "default_dir", "fingerprint"]
