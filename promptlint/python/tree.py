"""The analysed tree: Python modules loaded lazily from disk by path or dotted name, and cached.

A value imported from another module of the tree is read from disk even when only one file was
passed (pre-commit passes only changed files). Every lookup is recorded as a dependency of the
running analysis (`promptlint.reads`), whether it reads the disk or a cache of this Project: the
text of each module used, the candidate paths of each dotted name (found or not), the
`__init__.py` files that make a module's dotted name, and each text search over a package
(`definitions`, recorded as one "search:" key: `promptlint.python.packages`). So the persistent
cache knows every file a result depends on.
"""
from __future__ import annotations

from pathlib import Path

from .. import reads, source
from ..paths import display_name
from .import_roots import named_roots, package_chain, package_of
from .code_state import code_state
from .module import Module, load
from .parsing import ParseError
from .tree_search import OverBudget, TreeSearchMixin, defined_names
from .packages import Package

#: Characters of source whose parsed modules are kept, between two files and while one is analysed
#: (past it the least recently used that the running analysis does not hold are dropped: a tree
#: takes about 22 times the memory of its source, so this bounds a process's memory on any tree).
#: One bound for both: the peak of a run is the analysis that holds the most trees, whatever is
#: kept between files. Measured on the corpus (a trace of its 67,000 loads, replayed): 2 M between
#: files and 6 M while analysing parsed 87.8 M characters (3,462 parses of 1,628 modules: a
#: package's files use more than 2 M, and the least recently used went just before it was needed
#: again) with up to 6.0 M held; 5 M for both parses 44.6 M (2,230 parses) with up to 5.14 M held
#: (the most one analysis of the corpus holds itself).
MAX_CACHED_CHARS = 5_000_000
#: Characters of source the modules one file's analysis uses may hold (the file itself, its
#: imports, the modules a name search or a caller search reads); once they hold this much, no
#: other module is read and what it would have given is unknown. Bounds one analysis' memory and
#: time on any tree: a search over a package of 10 M characters would otherwise parse it all
#: (about 30 bytes of memory per character). The corpus' largest analysis uses 3.75 M; 6 M let one
#: litellm file (`main.py`) peak at 385 MiB in a fresh process, 4 M at 303 MiB.
MAX_ANALYSIS_CHARS = 4_000_000
#: Code states of parsed modules kept (`promptlint.reads.CODE`); past it they are forgotten.
MAX_CODE_STATES = 100_000


class Project(TreeSearchMixin):
    """All modules seen in one run, parsed on first use and cached by resolved path.

    Dotted module names are searched, in order, from `roots`: the folder above the top package
    of each module the running analysis loaded (the analysed file's first: `import_roots`), as
    Python imports them, whatever folder was checked; then from the folder above each of their
    ancestors named as the dotted name's top package (`import_roots.named_roots`: a top-level
    namespace package, an application run from the folder above it); then from the checked
    folders (`given`: an application without `__init__.py` files importing a sibling folder);
    the current folder last (an application run from its root). So a file's analysis does not
    depend on which of its ancestor folders was checked, unless only the checked folder holds
    a module it imports. A checked folder that is itself a package (it holds an `__init__.py`)
    is searched from the folder above its top package, as Python imports it: its modules are
    `pkg.mod`, never a top-level `mod` (checking `site-packages/aiohttp` must not make
    `import abc` read `aiohttp/abc.py`).
    """

    def __init__(self, roots: list[Path] | None = None, bounds: list[Path] | None = None):
        self._given: list[Path] = list(dict.fromkeys(import_root(r.resolve()) for r in (roots or [])))
        #: The checked paths (folders and files, resolved): no text search of a module under one
        #: reads above it unless a project marker says so (`search_bounds.bounded`); None: only
        #: the markers bound the searches.
        self.bounds: list[Path] | None = None if bounds is None else list(dict.fromkeys(b.resolve() for b in bounds))
        self.roots: list[Path] = []  # the module roots of the running analysis (`start`)
        self.fallback = Path.cwd().resolve()  # apps without __init__.py run from their root
        self._modules: dict[Path, Module | ParseError] = {}
        self._roots: dict[Path, Path] = {}  # module -> the folder above its top package
        self._seen: dict[Path, list[tuple[str, str | None]]] = {}  # module -> its recorded states
        # (module roots, dotted name) -> (its path or None, the candidates probed and their states)
        self._found: dict[tuple, tuple[Path | None, list[tuple[str, str | None]]]] = {}
        self._resolved: dict[Path, Path] = {}
        #: What this run read of the folders around modules (its files do not change while it
        #: runs): path -> `import_roots.package_chain(path)`, resolved path -> `search_root` and
        #: its display name (each asked for again and again: a few file-system calls per folder).
        self._chains: dict[Path, tuple] = {}
        self._search_roots: dict = {}  # module -> its search tree; (module, "tree") -> `_tree_of`
        self._marks: dict[Path, tuple] = {}  # folder -> `search_bounds.marked_folder(folder)`
        self._names: dict[Path, str] = {}
        self._packages: dict[Path, Package] = {}
        #: Modules dropped by `trim`: the names each assigns at module or class level, its
        #: recorded states, its root and its size in characters (path -> (names, states, root,
        #: size)), so that `definitions` need not parse again a module that does not assign the
        #: name it looks for (and counts it against the budget as loading it would).
        self._dropped: dict[Path, tuple[frozenset, list, Path | None, int]] = {}
        self.cached_chars = 0
        #: Parsed modules dropped so far (`trim`, `clear`): while it stays the same, every module
        #: held before is held still (`flow.bodies` asks only then which are).
        self.drops = 0
        #: Modules used by the running analysis (path -> characters; `start` resets it) and the
        #: characters they hold (`MAX_ANALYSIS_CHARS`). Those `_pinned` are never trimmed while
        #: the analysis runs (its values may hold their nodes): all but those a name search
        #: read and found nothing in.
        self._used: dict[Path, int] = {}
        self._pinned: set[Path] = set()
        #: True when every held module is known to be pinned (a `trim` went through them all and
        #: could drop no more): `trim` has nothing to drop until one is unpinned (`start`,
        #: `finish`, a name search that unpins what it found nothing in). A search over a big
        #: package otherwise walked the whole cache at each module it loaded.
        self._all_pinned = False
        self.used_chars = 0
        self.over = False  # the running analysis met `MAX_ANALYSIS_CHARS` (`start` resets it)
        #: The lookups of dotted names (keys of `_found`) and the modules (keys of `_modules`) whose
        #: reads the running analysis noted (`reads.note`): a lookup or a load again notes nothing.
        self._looked: set = set()
        #: Keep the code state of each module parsed (`promptlint.reads.CODE`): a run with a cache.
        self.code_states = False
        #: Modules that a dotted name of this analysis (an import) named and that cannot be read
        #: or parsed: dotted name -> (path, error). Reset by `start`.
        self.failed: dict[str, tuple[Path, ParseError]] = {}
        #: A folder where the package indexes scanned in this run are written and read back
        #: (`_package`): the worker that replaces one past its memory bound loads them instead of
        #: scanning again (litellm's index: 4 s of CPU to scan, 0.2 s to load; 37 workers in one run).
        self.shared: Path | None = None

    @property
    def full(self) -> bool:
        """True when the cached modules hold more than `MAX_CACHED_CHARS` of source."""
        return self.cached_chars > MAX_CACHED_CHARS

    def start(self) -> None:
        """Start the analysis of another file: no module roots but those of the modules this
        analysis loads, so what a file's imports resolve to never depends on the files analysed
        before it in this process."""
        self.roots = []
        self.failed = {}
        self.over = False
        self._looked = set()
        self._used = {}
        self._pinned = set()
        self._all_pinned = False
        self.used_chars = 0

    def finish(self) -> None:
        """The analysis of a file is over: its modules may go too; trim when full."""
        self._used = {}
        self._pinned = set()
        self._all_pinned = False
        self.used_chars = 0
        if self.full:
            self.trim()

    def trim(self, bound: int = MAX_CACHED_CHARS) -> None:
        """Forget the least recently used parsed modules until those kept hold at most `bound`
        characters (bounded memory; the modules a package's files share stay parsed: trimming to
        half of it made the corpus parse 10 M characters more, for 4 MiB less peak memory).
        While a file is analysed the modules the analysis holds (`_pinned`) stay: so a search
        over a big package drops what it read and found nothing in, and the modules of earlier
        files go first. Lookups and package indexes are kept: they hold paths, not trees."""
        if self._all_pinned:
            return
        for key in list(self._modules):
            if self.cached_chars <= bound:
                break
            if key not in self._pinned:
                self._drop(key)
        else:
            self._all_pinned = self.cached_chars > bound  # (each left is pinned: none was dropped past the bound)

    def _drop(self, key: Path) -> None:
        """Forget the parsed module at `key`, keeping what `definitions` needs to skip it."""
        module = self._modules.pop(key)
        self.drops += 1
        seen = self._seen.pop(key, None)
        root = self._roots.pop(key, None)
        if not isinstance(module, ParseError):
            self.cached_chars -= len(module.source)
            if seen is not None:
                self._dropped[key] = (defined_names(module), seen, root, len(module.source))

    def clear(self) -> None:
        """Forget every parsed module, package index and lookup (bounded memory)."""
        self._modules.clear()
        self._seen.clear()
        self._roots.clear()
        self._found.clear()
        self._resolved.clear()
        self._packages.clear()
        self._dropped.clear()
        self.cached_chars = 0
        self._all_pinned = False
        self.drops += 1

    def load(self, path: Path, text: str | None = None) -> Module:
        """The parsed module at `path` (`text`: its source, when already read: the read is then
        the caller's, recorded by `promptlint.source`). Raises ParseError (cached) when it
        cannot be read or parsed, OverBudget when it is not used by this analysis yet and those
        it uses hold `MAX_ANALYSIS_CHARS` (a decision that depends only on what this analysis
        read: its result does not depend on what the cache holds)."""
        key = self._resolved.get(path)
        if key is None:
            key = self._resolved[path] = path.resolve()
        self._admit(key)
        self._pinned.add(key)
        cached = self._modules.get(key)
        if cached is None:
            try:
                cached = self._parse(key, text, path)
            except ParseError as exc:
                cached = exc
            else:
                if reads.active():
                    self._looked.add(key)  # (its reads were noted as it was parsed)
                self.cached_chars += len(cached.source)
                if not self._used[key]:
                    self._used[key] = len(cached.source)
                    self.used_chars += len(cached.source)
            self._modules[key] = cached
            if self.cached_chars > MAX_CACHED_CHARS:
                self.trim()  # while this analysis grows: what it does not hold
        else:
            self._modules[key] = self._modules.pop(key)  # the most recently used last (`trim`)
            if key not in self._looked:  # (loaded again by the same analysis: noted already)
                for dep, state in self._seen.get(key, ()):
                    reads.note(dep, state)
                self._add_root(self._roots.get(key))
                if reads.active():
                    self._looked.add(key)
            if not self._used[key] and not isinstance(cached, ParseError):
                self._used[key] = len(cached.source)
                self.used_chars += len(cached.source)
        if isinstance(cached, ParseError):
            raise cached
        return cached

    def _admit(self, key: Path, size: int = 0) -> None:
        """Count the module at `key` (resolved) as used by the running analysis, `size` characters
        (0: counted once it is parsed, `load`). Raises OverBudget when it is not used yet and the
        modules used hold `MAX_ANALYSIS_CHARS`. The same whether the module is held parsed, dropped
        (`_defines_not`) or not read yet: the budget never depends on what the cache holds."""
        if key in self._used:
            return
        if self.used_chars >= MAX_ANALYSIS_CHARS:
            self.over = True
            raise OverBudget(str(key))
        self._used[key] = size
        self.used_chars += size

    def held_named(self, filename: str) -> Module | None:
        """The parsed module held now whose display name is `filename` (a span's), or None."""
        for module in self._modules.values():
            if not isinstance(module, ParseError) and module.filename == filename:
                return module
        return None

    def holds(self, path: Path, text: str) -> bool:
        """True when the module at `path` is held parsed from exactly `text` (loaded by an earlier
        analysis and not dropped yet): `text` then parses. Loads, records and pins nothing."""
        module = self._modules.get(self._key(path))
        return isinstance(module, Module) and module.source == text

    def held(self, module: Module) -> bool:
        """True when this very parsed module is held (not dropped by `trim` or `clear`)."""
        return self._modules.get(self._key(module.path)) is module

    def _parse(self, path: Path, text: str | None, given: Path) -> Module:
        seen: list[tuple[str, str | None]] = []
        self._seen[path] = seen
        if text is None:
            try:
                with reads.parsing():
                    text = source.read_python(path)
            except source.SourceError as exc:
                seen.append((reads.key_of(path), None))
                raise ParseError(str(exc), exc.row, exc.column, too_large=exc.too_large) from None
        state = reads.noted(reads.key_of(path)) or reads.noted(reads.key_of(given))
        seen.append((reads.key_of(path), state))
        parts, root, probes = self._chain(path)
        seen.extend(_note_package(probes))
        name = self._names.get(path)
        if name is None:
            name = self._names[path] = display_name(path)
        module = load(path, text, dotted=".".join(parts) or None, filename=name)
        if self.code_states and state is not None and len(state) == 64:  # read from disk (not an unsaved text)
            if len(reads.CODE) > MAX_CODE_STATES:
                reads.CODE.clear()  # (a long-lived process: an editor's server)
            reads.CODE[(reads.key_of(path), state)] = reads.CODE[(reads.key_of(given), state)] = code_state(state, module)
        self._roots[path] = root
        self._add_root(root)
        return module

    def _key(self, path: Path) -> Path:
        """`path.resolve()`, once per path in this run."""
        key = self._resolved.get(path)
        if key is None:
            key = self._resolved[path] = path.resolve()
        return key

    def _chain(self, path: Path) -> tuple:
        """`import_roots.package_chain(path)`, read once per path in this run."""
        chain = self._chains.get(path)
        if chain is None:
            chain = self._chains[path] = package_chain(path)
        return chain

    def _add_root(self, root: Path | None) -> None:
        if root is not None and root not in self.roots:
            self.roots.append(root)  # lookups are keyed by the roots: a new root may hold them

    def find(self, dotted: str) -> Module | None:
        """The module of the analysed tree with this dotted name, or None (also when it fails to
        parse: the caller treats its values as unknown, and the failure is kept in `failed`)."""
        key = (tuple(self.roots), dotted)
        found = self._found.get(key)
        if found is None:
            probes: list[tuple[str, str | None]] = []
            found = self._found[key] = (self._locate(dotted, probes), probes)  # (each probe noted)
            if reads.active():
                self._looked.add(key)
        elif key not in self._looked:  # (the same lookup again in this analysis: noted already)
            for dep, state in found[1]:
                reads.note(dep, state)
            if reads.active():
                self._looked.add(key)
        path = found[0]
        if path is None:
            return None
        try:
            return self.load(path)
        except ParseError as exc:
            self.failed.setdefault(dotted, (path, exc))
            return None
        except OverBudget:
            return None  # not read: its values are unknown to this analysis

    def _locate(self, dotted: str, probes: list) -> Path | None:
        rel = Path(*dotted.split("."))
        order = [*self.roots, *named_roots(self.roots, rel.parts[0]), *self._given, self.fallback]
        for root in dict.fromkeys(order):
            for candidate in (root / rel.with_suffix(".py"), root / rel / "__init__.py"):
                found = source.is_file(candidate)
                probes.append((reads.key_of(candidate), reads.EXISTS if found else None))
                if found:
                    return candidate
        return None

    def used(self, dotted: str) -> Module | None:
        """The module of this dotted name when the running analysis already reads it, else None:
        loads, parses and records nothing (a lookup that cannot change what the analysis reads)."""
        found = self._found.get((tuple(self.roots), dotted))
        key = found and found[0] and self._resolved.get(found[0])
        module = self._modules.get(key) if key in self._used else None
        return module if isinstance(module, Module) else None

    def resolve_symbol(self, dotted: str) -> tuple[Module, str] | None:
        """Split `pkg.mod.NAME` into the module of the tree that defines it and the name."""
        head, _, name = dotted.rpartition(".")
        while head:
            module = self.find(head)
            if module is not None:
                return module, name
            head, _, rest = head.rpartition(".")
            name = f"{rest}.{name}"
        return None

def import_root(folder: Path) -> Path:
    """The folder dotted names are searched from for a checked `folder`: itself, or for a package
    (a folder with an `__init__.py`, or a namespace part of one) the folder above its top
    package (`import_roots.package_of`)."""
    return package_of(folder / "__init__.py")[1]


def _note_package(probes: list[tuple[Path, bool]]) -> list[tuple[str, str | None]]:
    """Record the `__init__.py` files probed for the dotted name of a module
    (`import_roots.package_chain`: those that make it, and those whose absence ends it or
    makes a folder a namespace part); returns them."""
    out = [(reads.key_of(init), reads.EXISTS if found else None) for init, found in probes]
    for dep, state in out:
        reads.note(dep, state)
    return out
