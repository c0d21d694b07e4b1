"""Which files the code of a project names: the evidence that a text file in a prompts, templates
or instructions folder (or named like `system_prompt.txt`) is a prompt (docs/policies.md, Policy 7:
a file is a prompt because code sends or renders it, not because its path says "prompt"; a README
or a guide next to the prompts is documentation).

A project's Python files are scanned once (per process) for short string literals that look like
file names or paths (no white space): `"returns_agent"`, `"prompts/system.md"`, `"*.txt"`. A file
is named by the code when its name or its stem (the name up to the first dot) is one of those
literals or one of their path components, or, for a file directly in its prompts folder, when a
literal glob such as `"*.md"` matches its name. The code is never imported or run.
"""
from __future__ import annotations

import fnmatch
import hashlib
import os
import re
from functools import lru_cache
from pathlib import Path

from .. import reads
from ..source import SourceError, current_state, read_python

_LITERAL = re.compile(r"""(?:'([^'"\\\s]{1,200})'|"([^'"\\\s]{1,200})")""")
_PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
_SKIP = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".nox",
         "build", "dist", "site-packages", ".mypy_cache", ".pytest_cache"}
MAX_FILES = 5000  # Python files scanned per project: enough for large applications, bounded for monorepos
MAX_BYTES = 1_000_000  # a larger Python file is generated code or data, not where prompts are loaded


def project_root(folder: Path) -> Path:
    """The folder whose Python code may load the files of `folder` (a prompts folder): its parent,
    raised out of the Python package it belongs to, then to the nearest project marker
    (pyproject.toml, setup.py, setup.cfg, .git) at most two levels further up; `folder` itself when
    it holds a marker (prompt files kept in the project's root: its parent is outside the project)."""
    if any((folder / m).exists() for m in _PROJECT_MARKERS):
        return folder
    root = folder.parent
    while (root / "__init__.py").is_file() and root.parent != root:
        root = root.parent
    probe = root
    for _ in range(3):
        if any((probe / m).exists() for m in _PROJECT_MARKERS):
            return probe
        if probe.parent == probe:
            break
        probe = probe.parent
    return root


def python_tree(root: Path) -> list[Path]:
    """The Python files of the project at `root` that prompt files are checked against, sorted
    (folders in `_SKIP`, hidden folders and virtualenvs (a `pyvenv.cfg`) left out; the first
    `MAX_FILES`)."""
    out: list[Path] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP and not d.startswith(".")
                         and not os.path.isfile(os.path.join(folder, d, "pyvenv.cfg")))  # a virtualenv
        for name in sorted(files):
            if name.endswith(".py"):
                out.append(Path(folder) / name)
                if len(out) >= MAX_FILES:
                    return out
    return out


def tree_state(root: Path, state_of=current_state) -> str:
    """The state of the dependency "tree:ROOT" (`promptlint.reads.TREE`) now: the sha256 of the
    path and state (`source.current_state`) of every file of `python_tree(root)`. A prompt file's
    analysis that read the project's Python (which names it, which values fill it) holds while it
    is unchanged: an edited, added or removed Python file invalidates its cached entry. `state_of`
    gives a file's state from its dependency key (the cache passes its memoised one)."""
    h = hashlib.sha256()
    for path in python_tree(root):
        h.update(f"{path}\0{state_of(reads.key_of(path))}\n".encode("utf-8", "surrogatepass"))
    return h.hexdigest()


@lru_cache(maxsize=64)
def _tree_state(root: Path) -> str:
    return tree_state(root)


def note_tree(root: Path) -> None:
    """Record, for the persistent cache, that the running analysis read the project's Python."""
    if reads.active():
        reads.note(reads.TREE + reads.key_of(root), _tree_state(root))


@lru_cache(maxsize=64)
def names_in_code(root: Path) -> tuple[frozenset[str], tuple[str, ...]]:
    """(names, globs): the file-name-like string literals of the Python files under `root` and
    their path components and stems, and the literals that are globs ("*.md")."""
    names: set[str] = set()
    globs: set[str] = set()
    for path in python_tree(root):
        try:  # the one source reader: regular files only (a FIFO or device never blocks), bounded
            text = read_python(path, MAX_BYTES)
        except SourceError:
            continue
        for m in _LITERAL.finditer(text):
            literal = m.group(1) or m.group(2)
            if "*" in literal or "?" in literal:
                pattern = literal.replace("\\", "/").rsplit("/", 1)[-1]
                if re.search(r"[A-Za-z0-9]", pattern):  # "*.md", not a bare "*"
                    globs.add(pattern)
            for part in re.split(r"[/\\]", literal):
                if part:
                    names.add(part)
                    names.add(part.split(".", 1)[0])
    return frozenset(names), tuple(sorted(globs))


def named_by_code(path: Path, prompt_folder: Path, by_stem: bool = True) -> bool:
    """True when the Python code of the project that holds `prompt_folder` names `path` (a file
    inside that folder): by its name, its stem (unless `by_stem` is False), or (directly in the
    folder) a matching glob."""
    root = project_root(prompt_folder.resolve())
    note_tree(root)
    names, globs = names_in_code(root)
    name = path.name
    if name in names or (by_stem and name.split(".", 1)[0] in names):
        return True
    return path.parent.resolve() == prompt_folder.resolve() and any(fnmatch.fnmatch(name, g) for g in globs)
