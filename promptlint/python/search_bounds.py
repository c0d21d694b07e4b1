"""Where the text searches of an analysis stop (`tree_search`): the project of the searched
module, never a folder above what the user checked unless a project marker says so.

The searches read every Python file of a package tree (`packages.Package`) for callers,
definitions, breakpoint keys and the like. Their natural tree is the folder above the module's
top package (`import_roots.package_of`); but a package checked where it sits, directly in a
crowded folder with no project marker (`promptlint check /tmp/tmpXXXX/somepkg`, `/tmp/tmpXXXX`
holding unrelated trees), would then read every sibling: seconds more, and findings that depend
on unrelated folders. As ruff and pre-commit users expect, the project is the nearest folder at
or above the module holding a marker (`MARKERS`); without one, the checked paths themselves.

Every probe of a marker file is returned with whether it exists, so that the persistent cache
records what the bound depends on (a `.git` folder is probed as its `HEAD` file).
"""
from __future__ import annotations

import os
from pathlib import Path

#: Files whose folder is a project's root: a packaging or tool configuration, a git work tree
#: (`.git/HEAD`) or a submodule (`.git`, a file there).
MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", "promptlint.toml", ".git", os.path.join(".git", "HEAD"))


def marked_folder(folder: Path) -> tuple[Path | None, list[tuple[Path, bool]]]:
    """The nearest folder at or above `folder` (absolute) holding one of `MARKERS` as a regular
    file, or None; and the marker files probed on the way with whether each is one (in order)."""
    probes: list[tuple[Path, bool]] = []
    for candidate in (folder, *folder.parents):
        for name in MARKERS:
            path = candidate / name
            found = os.path.isfile(path)
            probes.append((path, found))
            if found:
                return candidate, probes
    return None, probes


def bounded(tree: Path, path: Path, own: Path, bounds: list[Path] | None,
            marked: Path | None) -> Path:
    """The folder (or file) a text search for the module at `path` reads, for its natural tree
    `tree` (a folder above or holding `path`; a file for a top-level module of installed code).
    `own`: the module's own project when nothing else bounds it (its top package folder, or its
    file for a top-level module). `bounds`: the checked paths (absolute, resolved; None: no bound
    but the markers, as when a caller names no paths). `marked`: `marked_folder` of its folder.

    - a marker at or above `tree`: `tree` (the project holds it);
    - a marker below `tree` (between it and the module): that project's folder;
    - else the outermost checked path that holds the module when `tree` is above it (a search
      never goes above what the user named), `tree` when within it;
    - a module outside every checked path (an import found beside them): `own`."""
    if marked is not None:
        return tree if marked == tree or marked in tree.parents else marked
    if bounds is None:
        return tree
    holders = [b for b in bounds if b == path or b in path.parents]
    if not holders:
        return own
    bound = min(holders, key=lambda b: len(b.parts))
    return tree if bound == tree or bound in tree.parents else bound
