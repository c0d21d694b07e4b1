"""Finds the files to check: Python, templates, prompt files and config files under the given paths.

A folder walk skips `.git`, virtualenvs, `node_modules`, `__pycache__`, build output, project
templates (a folder named `{{cookiecutter.project_slug}}`: its files render code), what the
caller's `excluded` predicate rejects (the configuration's `exclude` / `extend-exclude`) and what
git ignores: `.gitignore` files, the repository's `.git/info/exclude` and the user's global
excludes file (`core.excludesFile`, by default `$XDG_CONFIG_HOME/git/ignore`), with gitignore
semantics (pathspec). It only lists regular files: FIFOs, devices, sockets and symlinks to them
are skipped (reading one would block or never end); symlinked folders are not followed.

Files given explicitly are always checked when their kind is known, wherever they are, and a
folder given explicitly is walked even when `exclude` matches it (exclusion applies to what the
walk finds, as ruff's `--force-exclude` is opt-in); a file that is neither Python, a template, a
prompt file nor a config file (a README, notes.txt) is never checked.

Problems are collected, never raised (but a missing path): a folder the walk cannot enter, a
file whose symlinks loop and a named file that is not a regular file are appended to `problems`
as `Problem`s and skipped.
"""
from __future__ import annotations

import errno
import os
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pathspec

SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".nox",
             ".mypy_cache", ".pytest_cache", ".ruff_cache", ".promptlint_cache", "build", "dist", ".eggs", "site-packages",
             ".hypothesis", ".idea", ".vscode"}
TEMPLATE_SUFFIXES = {".j2", ".jinja", ".jinja2", ".prompt"}
CONFIG_SUFFIXES = {".yaml", ".yml", ".toml"}


NOT_REGULAR = "not a regular file (a FIFO, device or socket): skipped"


@dataclass(frozen=True)
class Problem:
    """A path discovery could not use: `is_dir` for a folder the walk could not enter (the run
    reports it as an error), else a file (reported as that file's PRM001). `reason` is one line."""

    path: Path
    reason: str
    is_dir: bool = False


def file_kind(path: Path, template_globs: list[str] | None = None, prompt_globs: list[str] | None = None
              ) -> str | None:
    """python | template | prompt-text | prompty | poml | config | None (not checked). `template_globs` and
    `prompt_globs` (`[tool.promptlint]` template-globs / prompt-globs: gitignore-style patterns)
    add files of any name as templates or prompt text."""
    if path.suffix.lower() == ".py":
        return "python"
    from .templates import file_kind as template_kind
    return template_kind(path, prompt_globs, template_globs)


def _is_project_template(name: str) -> bool:
    """A folder named by a template variable (`{{cookiecutter.project_slug}}`, copier's
    `{{ project_name }}`): what it holds are templates that render a project, not its code."""
    return "{{" in name and "}}" in name


def _is_venv(folder: Path) -> bool:
    return (folder / "pyvenv.cfg").exists()


def _spec(file: Path) -> pathspec.PathSpec | None:
    try:
        if not file.is_file():
            return None
        text = file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(text.splitlines())


def _git_dir(repo: Path) -> Path | None:
    """The common git directory of the repository at `repo` (`.git`, or where a worktree's or
    submodule's `.git` file points, then its `commondir`)."""
    dot = repo / ".git"
    if dot.is_dir():
        git_dir = dot
    else:
        try:
            line = dot.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            return None
        if not line.startswith("gitdir:"):
            return None
        git_dir = (repo / line[len("gitdir:"):].strip()).resolve()
    try:
        common = (git_dir / "commondir").read_text(encoding="utf-8").strip()
        return (git_dir / common).resolve()
    except OSError:
        return git_dir


def global_excludes_file(repo: Path) -> Path | None:
    """The user's global git excludes file: `core.excludesFile` (asked of git, when installed),
    else git's default `$XDG_CONFIG_HOME/git/ignore` (`~/.config/git/ignore`)."""
    try:
        result = subprocess.run(["git", "config", "--path", "--get", "core.excludesFile"], cwd=repo,
                                capture_output=True, text=True, timeout=30, check=False)
        if result.returncode == 0 and result.stdout.strip():
            return Path(result.stdout.strip()).expanduser()
    except (OSError, subprocess.SubprocessError):
        pass
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "git" / "ignore"


def _repo_ignores(repo: Path) -> list[tuple[Path, pathspec.PathSpec]]:
    """The ignore specs that apply to a whole repository: info/exclude, then the global file."""
    out = []
    git_dir = _git_dir(repo)
    for file in ((git_dir / "info" / "exclude") if git_dir else None, global_excludes_file(repo)):
        spec = _spec(file) if file is not None else None
        if spec is not None:
            out.append((repo, spec))
    return out


def _exists(path: Path) -> bool:
    """True when something (a file, a folder, a symlink, even a dangling or looping one) is there."""
    try:
        os.lstat(path)
    except OSError:
        return False
    return True


def _resolve(path: Path) -> Path:
    """`path` resolved, or made absolute when its symlinks loop."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return Path(os.path.abspath(path))


def _regular(path: Path) -> str | None:
    """None when `path` (symlinks followed) is a regular file or dangles (the reader reports a
    dangling link); "skip" for a FIFO, device, socket or folder; the reason for a symlink loop."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "cannot read file: symlink loop"
        return None
    return None if stat.S_ISREG(mode) else "skip"


def discover(paths: list[Path], excluded: Callable[[Path, bool], bool] | None = None,
             problems: list[Problem] | None = None, force_exclude: bool = False,
             extra: Callable[[Path], bool] | None = None,
             kind_of: Callable[[Path], str | None] = file_kind) -> list[Path]:
    """The files to check under `paths`, each once, in the order found (folders sorted).

    `excluded(path, is_dir)` rejects walked files and folders (and named files too with
    `force_exclude`). `extra(path)` says that a path that does not exist on disk is still to be
    checked (an unsaved buffer). Folders the walk cannot enter and files whose symlinks loop are
    appended to `problems` and skipped. `kind_of(path)` says what a file is (None: not checked;
    default `file_kind`). Raises FileNotFoundError for a path that does not exist.
    """
    problems = problems if problems is not None else []
    out: list[Path] = []
    seen: set[Path] = set()

    def add(path: Path, key: Path | None = None) -> None:
        key = key if key is not None else _resolve(path)
        if key not in seen:
            seen.add(key)
            out.append(path)

    for root in paths:
        if not _exists(root):
            if extra is not None and extra(root):
                if kind_of(root) is not None:
                    add(root)
                continue
            raise FileNotFoundError(f"{root}: no such file or directory")
        if not root.is_dir():
            if kind_of(root) is None or (force_exclude and excluded is not None and excluded(root, False)):
                continue
            reason = _regular(root)
            if reason is not None:
                problems.append(Problem(root, reason if reason != "skip" else NOT_REGULAR))
                continue
            add(root)
            continue
        if excluded is not None and excluded(root, True):
            if force_exclude:
                continue
            # a named folder that `exclude` matches (build/) is walked as named: the pattern
            # that matches the folder itself would otherwise exclude everything in it
            _walk(root, None, problems, add, kind_of)
            continue
        _walk(root, excluded, problems, add, kind_of)
    return out


def _walk(root: Path, excluded, problems: list[Problem], add: Callable[[Path], None],
          kind_of: Callable[[Path], str | None] = file_kind) -> None:
    ignores: list[tuple[Path, pathspec.PathSpec]] = []
    parent = _resolve(root)
    for anc in [parent, *parent.parents]:
        spec = _spec(anc / ".gitignore")
        if spec is not None:
            ignores.append((anc, spec))
        if (anc / ".git").exists():
            ignores[:0] = _repo_ignores(anc)
            break
    inherited: dict[Path, list] = {root: ignores}

    def on_error(exc: OSError) -> None:
        where = Path(exc.filename) if exc.filename else root
        problems.append(Problem(where, f"cannot read folder: {exc.strerror or exc}; skipped", True))

    # A depth-first walk in os.walk's order (a folder's files, then its sub-folders, sorted),
    # on os.scandir: an entry's type comes with the listing, so a regular file costs no stat.
    stack: list[Path] = [root]
    while stack:
        here = stack.pop()
        try:
            with os.scandir(here) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError as exc:
            on_error(exc)
            continue
        real = _resolve(here)  # once per folder: a child's real path is real / name (links are not walked into)
        spec = _spec(here / ".gitignore") if here != root else None
        local = inherited.get(here, ignores) + ([(real, spec)] if spec is not None else [])
        keep = []
        for entry in entries:
            name = entry.name
            if not _is_dir(entry):
                continue
            sub = here / name
            if (name in SKIP_DIRS or name.endswith(".egg-info") or _is_project_template(name) or _is_venv(sub) or _ignored(real / name, local, True)
                    or (excluded is not None and excluded(sub, True))):
                continue
            if not entry.is_symlink():  # a link to a folder is listed, never walked (as os.walk)
                keep.append(sub)
            inherited[sub] = local
        for entry in entries:
            name = entry.name
            if _is_dir(entry):
                continue
            f = here / name
            if kind_of(f) is None or _ignored(real / name, local, False) or (excluded is not None and excluded(f, False)):
                continue
            if entry.is_symlink():
                reason = _regular(f)
                if reason == "skip":
                    continue
                if reason is not None:
                    problems.append(Problem(f, reason))
                    continue
                add(f, _resolve(f))
            elif entry.is_file(follow_symlinks=False):
                add(f, real / name)
        stack.extend(reversed(keep))


def _is_dir(entry: os.DirEntry) -> bool:
    """A folder, or a link to one (as os.walk lists them)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _ignored(rp: Path, specs, is_dir: bool) -> bool:
    """Whether the gitignore `specs` ignore the path whose folder is resolved (`rp`: the real
    folder, then the entry's own name, a symlink or not)."""
    for base, spec in specs:
        try:
            rel = rp.relative_to(base).as_posix()
        except ValueError:
            continue
        if spec.match_file(rel + ("/" if is_dir else "")):
            return True
    return False
