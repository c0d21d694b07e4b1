"""Finds the files to check: Python, templates, prompt files and config files under the given paths.

Skips `.git`, virtualenvs, `node_modules`, `__pycache__`, build output and what `.gitignore`
files exclude (gitignore semantics by pathspec). Files given explicitly are always checked.
"""
from __future__ import annotations

import os
from pathlib import Path

import pathspec

SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".nox",
             ".mypy_cache", ".pytest_cache", ".ruff_cache", "build", "dist", ".eggs", "site-packages",
             ".hypothesis", ".idea", ".vscode"}
TEMPLATE_SUFFIXES = {".j2", ".jinja", ".jinja2", ".prompt"}
CONFIG_SUFFIXES = {".yaml", ".yml", ".toml"}


def file_kind(path: Path) -> str | None:
    """python | template | prompt-text | config | None (not checked)."""
    suffix = path.suffix.lower()
    if suffix in (".py", ".pyi") and suffix == ".py":
        return "python"
    try:
        from .templates import file_kind as template_kind
    except ImportError:  # pragma: no cover - templates package being built
        template_kind = None
    if template_kind is not None:
        return template_kind(path)
    if suffix in TEMPLATE_SUFFIXES:
        return "template"
    return None


def _is_venv(folder: Path) -> bool:
    return (folder / "pyvenv.cfg").exists()


def _gitignore(folder: Path) -> pathspec.PathSpec | None:
    f = folder / ".gitignore"
    if not f.is_file():
        return None
    try:
        return pathspec.GitIgnoreSpec.from_lines(f.read_text(encoding="utf-8", errors="replace").splitlines())
    except Exception:
        return None


def discover(paths: list[Path], exclude: pathspec.PathSpec | None = None) -> list[Path]:
    """The files to check under `paths`, sorted, each once. Raises FileNotFoundError for a path
    that does not exist."""
    out: list[Path] = []
    seen: set[Path] = set()
    for root in paths:
        if not root.exists():
            raise FileNotFoundError(f"{root}: no such file or directory")
        if root.is_file():
            if root.resolve() not in seen:
                seen.add(root.resolve())
                out.append(root)
            continue
        ignores: list[tuple[Path, pathspec.PathSpec]] = []
        parent = root.resolve()
        for anc in [parent, *parent.parents]:
            spec = _gitignore(anc)
            if spec is not None:
                ignores.append((anc, spec))
            if (anc / ".git").exists():
                break
        inherited: dict[Path, list] = {root: ignores}
        for dirpath, dirnames, filenames in os.walk(root):
            here = Path(dirpath)
            spec = _gitignore(here)
            local = inherited.get(here, ignores) + ([(here.resolve(), spec)] if spec is not None and here != root else [])
            keep = []
            for d in sorted(dirnames):
                sub = here / d
                if d in SKIP_DIRS or d.endswith(".egg-info") or _is_venv(sub) or _ignored(sub, local, True, exclude):
                    continue
                keep.append(d)
                inherited[sub] = local
            dirnames[:] = keep
            for name in sorted(filenames):
                f = here / name
                if file_kind(f) is None or _ignored(f, local, False, exclude):
                    continue
                r = f.resolve()
                if r not in seen:
                    seen.add(r)
                    out.append(f)
    return out


def _ignored(path: Path, specs, is_dir: bool, exclude) -> bool:
    rp = path.resolve()
    for base, spec in specs:
        try:
            rel = rp.relative_to(base).as_posix()
        except ValueError:
            continue
        if spec.match_file(rel + ("/" if is_dir else "")):
            return True
    if exclude is not None:
        rel = path.as_posix()
        if exclude.match_file(rel + ("/" if is_dir else "")) or exclude.match_file(path.name + ("/" if is_dir else "")):
            return True
    return False
