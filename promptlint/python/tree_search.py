"""Text searches over the package tree of an analysed file (a mixin of `tree.Project`): the
modules that assign a name, call a function, pass a parameter, subclass a class, set or read
cache markers, or hold a CLAUDE.md, found through `packages.Package`, an index of one text scan
per package (shared between the processes of a run: `shared_scan`), and loaded within a limit.
Each search is recorded as one "search:" dependency of the running analysis."""
from __future__ import annotations

import ast
from pathlib import Path

from .. import reads
from .import_roots import package_of
from .module import Module
from .search_bounds import bounded, marked_folder
from .parsing import ParseError
from .packages import BASES, CALLS, CLAUDE, DEFS, MARKER_READS, MARKER_WRITERS, MARKERS, PARAMS, Package, digest_paths, search_key

#: Folders that hold installed distributions, each its own project: a package tree there is the
#: top package's own folder (or module), not the whole folder (`search_root`).
INSTALL_DIRS = ("site-packages", "dist-packages")

#: Package indexes (`definitions`) kept at once; the least recently used goes first.
MAX_PACKAGES = 8


class OverBudget(Exception):
    """The modules of this analysis hold `tree.MAX_ANALYSIS_CHARS`: no other module is read."""


class TreeSearchMixin:
    """The package searches of `tree.Project` (module docstring): uses its loading (`load`, `_key`,
    `_chain`), caches (`_packages`, `_search_roots`, `_marks`, `_dropped`, `_pinned`) and the
    checked paths that bound its searches (`bounds`: `search_bounds.bounded`)."""

    def _root_of(self, near: Path) -> Path:
        """`search_root` of the module at `near` (resolved here) within its project
        (`_bounded`), once per module in this run."""
        key = self._key(near)
        root = self._search_roots.get(key)
        if root is None:
            parts, folder, _ = self._chain(key)
            root = self._search_roots[key] = self._bounded(key, search_root(key, (".".join(parts) or None, folder)))
        else:
            self._note_marks(key.parent)
        return root

    def _tree_of(self, near: Path) -> Path:
        """The folder above the top package of the module at `near` within its project
        (`_bounded`): the tree the breakpoint and Claude searches read (no `INSTALL_DIRS` step)."""
        key = self._key(near)
        tree = self._search_roots.get((key, "tree"))
        if tree is None:
            tree = self._search_roots[(key, "tree")] = self._bounded(key, self._chain(key)[1])
        else:
            self._note_marks(key.parent)
        return tree

    def _bounded(self, key: Path, tree: Path) -> Path:
        """`search_bounds.bounded(tree, ...)` for the module at `key` (resolved): its natural
        search tree `tree` cut to its project, never above the checked paths (`bounds`) unless a
        marker says so. The marker probes it depends on are noted (`_note_marks`)."""
        parts, folder, _ = self._chain(key)
        own = key
        if parts:
            own = folder / parts[0] if (folder / parts[0]).is_dir() else folder / f"{parts[0]}.py"
        return bounded(tree, key, own, self.bounds, self._note_marks(key.parent))

    def _note_marks(self, folder: Path) -> Path | None:
        """`search_bounds.marked_folder(folder)`, read once per folder in this run; its probes
        noted once per analysis (a marker added or removed changes where searches stop)."""
        marks = self._marks.get(folder)
        if marks is None:
            marks = self._marks[folder] = marked_folder(folder)
        if reads.active() and ("marks", folder) not in self._looked:
            self._looked.add(("marks", folder))
            for path, found in marks[1]:
                reads.note(reads.key_of(path), reads.EXISTS if found else None)
        return marks[0]

    def definitions(self, name: str, near: Path) -> list[tuple[Module, ast.ClassDef | None, ast.expr]]:
        """Every module-level or class-level assignment of `name` in the Python files of the
        package tree that holds `near`: (module, class or None, value node). The files are found
        through an index of the names each file assigns at the start of a line (one text scan
        per package), so only those that assign the name are parsed. The search is recorded as
        one dependency ("search:ROOT NAME", see `search_state`): a change to a file of the
        package that does not change which files assign the name leaves it valid. A module
        read only for this search that assigns no such name (the text scan also matches names
        assigned in functions) may be trimmed while the analysis runs: its memory need not be
        held to the end of it. The search stops at `MAX_ANALYSIS_CHARS`."""
        matches = self._search(self._root_of(near), name)
        out = []
        for path in matches:
            try:
                if self._defines_not(path, name):
                    continue
            except OverBudget:
                break
            key = self._resolved.get(path) or path.resolve()
            pinned = key in self._pinned
            try:
                module = self.load(path)
            except ParseError:
                continue
            except OverBudget:
                break
            found = [(module, None, node) for node in module.assigns.get(name, [])]
            for cls in module.classes.values():
                for stmt in cls.body:
                    targets, value = [], None
                    if isinstance(stmt, ast.Assign):
                        targets, value = stmt.targets, stmt.value
                    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                        targets, value = [stmt.target], stmt.value
                    if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                        found.append((module, cls, value))
            if not found and not pinned:
                self._pinned.discard(key)  # nothing of it escapes: `trim` may drop it
                self._all_pinned = False
            out.extend(found)
        return out

    def _defines_not(self, path: Path, name: str) -> bool:
        """True when the module at `path` was dropped from the cache (`trim`) and does not assign
        `name` at module or class level: its reads and its root are then noted as loading it
        would note them, without parsing it again (`definitions` would find nothing in it; in
        the corpus, modules parsed again only to find this were 30% of all the text parsed). It
        counts against the analysis' budget as loading it would (`_admit`): OverBudget when that is
        spent, so where a search stops never depends on which modules the cache still holds."""
        key = self._resolved.get(path)
        if key is None:
            key = self._resolved[path] = path.resolve()
        dropped = self._dropped.get(key)
        if dropped is None or key in self._modules or name in dropped[0]:
            return False
        self._admit(key, dropped[3])  # (as `load` would count it: raises OverBudget as it would)
        for dep, state in dropped[1]:
            reads.note(dep, state)
        self._add_root(dropped[2])
        return True

    def callers_of(self, name: str, near: Path, limit: int) -> list[Module]:
        """The modules of the package tree that holds `near`, other than `near` itself, whose text
        calls `name` (`name(...)` or `x.name(...)`), parsed; at most `limit` of them (None past it:
        a function called from that many places is not followed). Recorded as one dependency
        ("search:ROOT call:NAME")."""
        near = self._key(near)
        return self._load_all([p for p in self._search(self._root_of(near), CALLS + name) if p != near], limit)

    def assigners_of(self, name: str, near: Path, limit: int) -> list[Module] | None:
        """The modules of the package tree that holds `near`, other than `near` itself, whose text
        assigns `name` at the start of a line (`name = ...`, `name: T = ...`, a keyword argument
        `name=...` on a line of its own), parsed; None past `limit` of them. Recorded as the one
        dependency of `definitions`."""
        near = self._key(near)
        return self._load_all([p for p in self._search(self._root_of(near), name) if self._key(p) != near], limit)

    def definers_of(self, param: str, near: Path, limit: int) -> list[Module] | None:
        """The modules of the package tree that holds `near` whose text defines a function with a
        parameter `param` (`def complete(prompt, system_prompt=None)`), parsed; None past `limit`
        of them. Recorded as one dependency ("search:ROOT param:NAME")."""
        return self._load_all(self._search(self._root_of(near), PARAMS + param), limit)

    def functions_named(self, name: str, near: Path, limit: int) -> list[Module] | None:
        """The modules of the package tree that holds `near` (itself included) whose text defines
        a function or method `name` (`def get_last_k_messages(self, k)`), parsed; None past
        `limit` of them. Recorded as one dependency ("search:ROOT def:NAME")."""
        return self._load_all(self._search(self._root_of(near), DEFS + name), limit)

    def subclassers_of(self, name: str, near: Path, limit: int) -> list[Module] | None:
        """The modules of the package tree that holds `near` (itself included) whose text defines
        a class naming `name` among its bases (`class DuckAgent(Agent)`), parsed; None past
        `limit` of them. Recorded as one dependency ("search:ROOT base:NAME")."""
        return self._load_all(self._search(self._root_of(near), BASES + name), limit)

    def _load_all(self, paths: list[Path], limit: int) -> list[Module] | None:
        """The modules at `paths` that parse; None past `limit` paths, or when one cannot be held
        (`OverBudget`): not every one can be read, so none is followed."""
        if len(paths) > limit:
            return None
        out = []
        for path in paths:
            try:
                out.append(self.load(path))
            except ParseError:
                continue
            except OverBudget:
                return None
        return out

    def marker_files(self, near: Path) -> list[Path]:
        """The Python files of the package tree that holds `near` whose text names a cache
        breakpoint key (`cache_control`, `cachePoint`, `prompt_cache_breakpoint`), in a statement,
        a dict, a comment or anywhere: none means no code of the tree can set a breakpoint.
        Recorded as one dependency ("search:ROOT markers:")."""
        return self._search(self._tree_of(near), MARKERS)

    def calling_files(self, near: Path, name: str) -> list[Path]:
        """The Python files of the package tree that holds `near` (as `marker_files`) whose text
        calls `name` (`name(...)`, `x.name(...)`), unparsed. Recorded as one dependency
        ("search:ROOT call:NAME")."""
        return self._search(self._tree_of(near), CALLS + name)

    def marker_read_files(self, near: Path) -> list[Path]:
        """The Python files of the package tree that holds `near` (as `marker_files`) that read a
        breakpoint key off a block they are handed (`packages.reads_markers`): breakpoints written
        on the messages the package is given reach its requests. One dependency ("search:ROOT
        marker-reads:")."""
        return self._search(self._tree_of(near), MARKER_READS)

    def marker_writer_files(self, near: Path) -> list[Path]:
        """The Python files of the package tree that holds `near` (as `marker_files`) that write
        a cache breakpoint (`packages.marker_uses`) and send no request of their own (no SDK send
        call in their text): breakpoints a module writes on the requests it sends itself (a
        sibling adapter of another SDK) reach no other module's requests. One dependency
        ("search:ROOT marker-writers:")."""
        return self._search(self._tree_of(near), MARKER_WRITERS)

    def claude_files(self, near: Path) -> list[Path]:
        """The Python files of the top package that holds `near` (the folder tree `marker_files`
        reads when `near` is a module outside any package) that write a Claude model name as a
        string (`"claude-sonnet-4-5"`, `"anthropic/claude-3-haiku"`) or build a LiteLLM model name under
        Anthropic's prefix (`f"anthropic/{model}"`): the package sends to Claude
        somewhere. Not its siblings: another package beside it (a folder of downloaded packages,
        `src/` of several distributions) says nothing of this one's model. Recorded as one
        dependency ("search:ROOT claude:")."""
        parts, folder, _ = self._chain(self._key(near))
        found = self._search(self._tree_of(near), CLAUDE)
        if len(parts) < 2:
            return found
        top = folder / parts[0]
        return [p for p in found if self._key(p).is_relative_to(top)]

    def _search(self, root: Path, key: str) -> list[Path]:
        """The files of the package tree at `root` that `key` matches (`Package.matching`: a name
        assigned, "call:NAME", "param:NAME", "base:NAME", "markers:", "claude:"), recorded as one
        dependency ("search:ROOT KEY") with the package's state and the matches."""
        package = self._package(root)
        matches = package.matching(key)
        reads.note(search_key(root, key), f"{package.snapshot}:{digest_paths(matches)}")
        return matches

    def _package(self, root: Path) -> Package:
        """The index of the package tree at `root`, scanned on first use; past `MAX_PACKAGES`
        the least recently used goes (not the first scanned: in litellm, whose namespace folders
        are trees of their own, the big tree scanned first was dropped and scanned again 22
        times in 400 files)."""
        package = self._packages.pop(root, None)
        if package is None:
            if len(self._packages) >= MAX_PACKAGES:
                del self._packages[next(iter(self._packages))]
            package = shared_scan(root, self.shared)
        self._packages[root] = package  # the most recently used last
        return package


def shared_scan(root: Path, shared: Path | None) -> Package:
    """`Package.scan(root)`, read from the folder `shared` when a process of this run scanned it
    already, else scanned and written there (atomically: a half-written file is never read; an
    unreadable one is scanned again). The run's files do not change while it runs."""
    if shared is None:
        return Package.scan(root)
    import hashlib
    import os
    import pickle
    path = shared / (hashlib.sha256(str(root).encode("utf-8", "surrogatepass")).hexdigest()[:32] + ".pickle")
    try:
        with open(path, "rb") as f:
            package = pickle.load(f)
        if isinstance(package, Package):
            return package
    except Exception:  # missing, or unreadable: scanned again
        pass
    package = Package.scan(root)
    try:
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        with open(tmp, "wb") as f:
            pickle.dump(package, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except OSError:
        pass
    return package


def search_root(path: Path, package: tuple[str | None, Path] | None = None) -> Path:
    """The package tree that `definitions` and `callers_of` search for the module at `path`
    (resolved): the folder above its top package (an application's packages, its tests and
    scripts), except in a folder of installed distributions (`INSTALL_DIRS`), where each top
    package or top-level module is a project of its own: there, its own folder or file.
    `package`: `import_roots.package_of(path)` when known."""
    dotted, root = package or package_of(path)
    if root.name not in INSTALL_DIRS or not dotted:
        return root
    top = dotted.split(".")[0]
    return root / top if (root / top).is_dir() else root / f"{top}.py"


def defined_names(module: Module) -> frozenset:
    """The names `definitions` finds in `module`: assigned at module level (`module.assigns`) or
    in the body of a top-level class (`NAME = ...`, `NAME: T = ...`)."""
    names = set(module.assigns)
    for cls in module.classes.values():
        for stmt in cls.body:
            if isinstance(stmt, ast.Assign):
                names.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None and isinstance(stmt.target, ast.Name):
                names.add(stmt.target.id)
    return frozenset(names)

