"""Where a module's dotted name starts: the folder above its top package, read from the module's
own location as Python imports it, never from the folder given on the command line.

A package is a chain of folders with an `__init__.py`, and also (PEP 420) of folders without one
inside a regular package: `src/app/__init__.py` with `src/app/utils/llm.py` (no `utils/__init__.py`)
makes `app.utils.llm`, rooted at `src/`, not a top-level `llm` rooted at `src/app/utils/`. A folder
without `__init__.py` is such a namespace part when a regular package lies at most
`NAMESPACE_DEPTH` folders above it; otherwise it is where the chain stops (`src/` of a src
layout, a repository's root, a folder of scripts).

Every `__init__.py` probed is returned with whether it exists, so that the persistent cache
records what a module's dotted name depends on (`promptlint.python.tree`).
"""
from __future__ import annotations

import os
from pathlib import Path

#: Folders without `__init__.py` that may sit between two regular packages (`pkg/a/b/mod.py`
#: with `pkg/__init__.py` only). Past it a folder with no package above it ends the chain.
NAMESPACE_DEPTH = 2


def package_chain(path: Path) -> tuple[list[str], Path, list[tuple[Path, bool]]]:
    """For the module file at `path`: the parts of its dotted name (`["app", "utils", "llm"]`;
    an `__init__.py` names its folder), the folder above its top package, and the `__init__.py`
    files probed on the way with whether each exists (in probe order, each once)."""
    parts = [path.stem] if path.stem != "__init__" else []
    probes: list[tuple[Path, bool]] = []
    seen: dict[Path, bool] = {}

    def has_init(folder: Path) -> bool:
        if folder not in seen:
            seen[folder] = os.path.exists(folder / "__init__.py")
            probes.append((folder / "__init__.py", seen[folder]))
        return seen[folder]

    folder = path.parent
    while folder.parent != folder:
        if has_init(folder):
            parts.insert(0, folder.name)
            folder = folder.parent
            continue
        between, above, package = [folder], folder.parent, None
        for _ in range(NAMESPACE_DEPTH):
            if above.parent == above:
                break
            if has_init(above):
                package = above
                break
            between.append(above)
            above = above.parent
        if package is None:
            break
        parts[:0] = [f.name for f in reversed(between)]
        folder = package
    return parts, folder, probes


def package_of(path: Path) -> tuple[str | None, Path]:
    """The module's dotted name (None for an `__init__.py` outside any package) and the folder
    above its top package (`package_chain`)."""
    parts, root, _ = package_chain(path)
    return (".".join(parts) or None), root


def package_folder(path: Path) -> Path | None:
    """The top package folder of the chain that holds `path` (a file, or a folder as if it were a
    module's folder), None when `path`'s folder is no package nor a namespace part of one."""
    folder = path if path.is_dir() else path.parent
    parts, root, _ = package_chain(folder / "__init__.py")
    return root / parts[0] if parts else None


def named_roots(roots: list[Path], top: str) -> list[Path]:
    """Folders that may hold the top package `top` of a dotted name, read from the module roots of
    an analysis: the folder above each ancestor (or root itself) named `top`. A top package
    without `__init__.py` (`src/ns/pkg/__init__.py` imported as `ns.pkg`) or an application
    without any, run from the folder above it (`app/main.py` importing `app.helpers`), is found
    from its own modules' location, whatever folder was checked."""
    out: list[Path] = []
    for root in roots:
        for folder in (root, *root.parents):
            if folder.name == top and folder.parent != folder:
                if folder.parent not in out and folder.parent not in roots:
                    out.append(folder.parent)
                break
    return out
