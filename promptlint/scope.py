"""Checking named files within their project (pre-commit passes only the changed files).

A finding often sits in another file than the one whose change causes it: a tools list in
`pkg/tools.py` becomes unstable when `pkg/chat.py` starts sending it, a template's placeholder
becomes a timestamp when the Python that renders it changes. So when only files are named, the
run analyses the whole project they belong to (with the persistent cache, only what changed is
analysed again) and keeps the findings that concern the named files: those located in one, with
a related location in one, or in a prompt whose request is built in one.

The project is the closest folder above the named files that holds a `.git` (a work tree or a
submodule) or a configuration file (`pyproject.toml`, `promptlint.toml`); without one (a loose
file in a temporary folder), only the named files are checked.
"""
from __future__ import annotations

import os
from pathlib import Path

from dataclasses import replace

from .model import Diagnostic, PromptLayout, Related, Report
from .paths import display_name
from .python.import_roots import package_folder, package_of
from .python.search_bounds import marked_folder

MARKERS = (".git", "pyproject.toml", "promptlint.toml")


def project_root(paths: list[Path]) -> Path | None:
    """The project folder of `paths` when every path is a file (or an unsaved buffer) and they
    share one, else None."""
    if not paths or any(p.is_dir() for p in paths):
        return None
    found = {_root_of(Path(os.path.abspath(p)).parent) for p in paths}
    if len(found) != 1:
        return None
    root = found.pop()
    if root is None:
        return None
    cwd = Path.cwd()
    try:  # the current folder's way of naming it, so display names stay the same
        return Path(os.path.relpath(root, cwd)) if root == cwd or cwd in root.parents else root
    except ValueError:  # another drive (Windows)
        return root


def package_root(path: Path) -> Path | None:
    """The outermost folder of the chain of Python packages (folders with an `__init__.py`, and
    namespace folders inside one: `python.import_roots`) that holds `path` (a file or folder),
    named as the current folder names it (relative when under it); None when `path`'s folder
    is no package."""
    found = package_folder(Path(os.path.abspath(path)))
    if found is None:
        return None
    cwd = Path.cwd()
    try:
        return Path(os.path.relpath(found, cwd)) if found == cwd or cwd in found.parents else found
    except ValueError:  # another drive (Windows)
        return found


def module_roots(folders: list[Path]) -> list[str]:
    """The folders the analysis searches imported modules from for the checked `folders`, as
    `python.tree.Project` takes them (each folder, or for a package the folder above its top
    package, resolved, each once, in order), as absolute paths; those at the end that are the
    current folder are left out, the analysis searching it last anyway. Two runs with the same
    module roots analyse each file alike: `check src/app`, `check src` and `explain` of a file in
    package `app` (which reads the package) share their cache entries."""
    roots = [str(package_of(Path(f).resolve() / "__init__.py")[1]) for f in folders]
    roots = list(dict.fromkeys(roots))
    cwd = str(Path.cwd().resolve())
    while roots and roots[-1] == cwd:
        roots.pop()
    return roots


def unmarked(paths: list[Path]) -> list[str]:
    """The absolute paths among `paths` with no project marker at or above them
    (`python.search_bounds.MARKERS`), in order, each once: where the text searches of a run stop
    depends on them (`check pkg` and `check .` read other trees), so its cache entries too."""
    out = []
    for p in paths:
        absolute = Path(os.path.abspath(p))
        if marked_folder(absolute if absolute.is_dir() else absolute.parent)[0] is None:
            out.append(str(absolute))
    return list(dict.fromkeys(out))


def surroundings(target: Path) -> tuple[list[Path], str | None]:
    """The paths whose files may use `target` (render a template, send prompt text built in a
    helper), and a note for the user when folders were left out (else None): its project
    (`project_root`), else the outermost Python package that holds it (`package_root`), else,
    with the target itself, the Python files beside it (and, for a template or prompt file,
    those of the folder above: `templates/answer.j2` rendered by `app.py`), the folders under
    them not walked."""
    root = project_root([target]) or package_root(target)
    if root is not None:
        return [root], None
    folders = list(dict.fromkeys(Path(os.path.abspath(f)) for f in (
        [target.parent] if target.suffix == ".py" else [target.parent, target.parent.parent])))
    found, seen, skipped = [target], {os.path.abspath(target)}, 0
    for folder in folders:
        try:
            entries = sorted(folder.iterdir())
        except OSError:
            continue
        for p in entries:
            if p.suffix == ".py" and p.is_file() and os.path.abspath(p) not in seen:
                seen.add(os.path.abspath(p))
                found.append(_named(p))
            elif p.is_dir() and not p.name.startswith(".") and p not in folders:
                skipped += 1
    if not skipped:
        return found, None
    others = len(found) - 1
    return found, (f"{display_name(target)} is in no project (no {', '.join(MARKERS)} above it) and in no package: "
                   f"read with the {others} other Python file{'s' if others != 1 else ''} in "
                   f"{' and '.join(f'`{display_name(f)}`' for f in folders)}, not the {skipped} folder"
                   f"{'s' if skipped != 1 else ''} under {'it' if len(folders) == 1 else 'them'} (name a folder, "
                   f"or run in one with a pyproject.toml, to read more)")


def _named(path: Path) -> Path:
    """`path` as the current folder names it (relative when under it)."""
    absolute = Path(os.path.abspath(path))
    cwd = Path.cwd()
    return Path(os.path.relpath(absolute, cwd)) if cwd in absolute.parents else absolute


def _root_of(folder: Path) -> Path | None:
    for candidate in (folder, *folder.parents):
        if any(os.path.lexists(candidate / marker) for marker in MARKERS):
            return candidate
    return None


def merge(named: list[Path], walked: list[Path]) -> list[Path]:
    """The walked files and the named ones (named files are checked even where the walk does
    not go: an excluded folder), each once, in walk order."""
    seen = {os.path.abspath(p) for p in walked}
    return walked + [p for p in named if os.path.abspath(p) not in seen]


def concerning(report: Report, named: list[Path]) -> Report:
    """The part of `report` that concerns the files `named`: diagnostics located in one, with a
    related location in one, or in a prompt whose site is in one (`of_files`); the prompts built
    in one or using one (a template it includes); run errors about one."""
    names = {display_name(p) for p in named}
    prompts = [lt for lt in report.prompts if lt.site.filename in names or names.intersection(lt.templates)]
    errors = [e for e in report.errors if any(e.startswith(f"{n}: ") for n in names)]
    return Report(diagnostics=of_files(report.diagnostics, report.prompts, names), prompts=prompts, errors=errors,
                  files=len(named))


#: The related location that marks a finding located outside the checked files (`of_files`).
OUTSIDE = ("the request that sends this finding's prompt, in the files checked: {file} is not one of them "
           "(reported for this request)")


def of_files(diagnostics: list[Diagnostic], prompts: list[PromptLayout], names: set[str]) -> list[Diagnostic]:
    """The diagnostics that concern the checked files (display `names`): those located in one,
    and those located elsewhere (a module or template the checked code reads: in the project,
    or a package found beside it) whose prompt is sent from one or that name one as a related
    location. Each of those located elsewhere whose prompt is sent from a checked file gets that
    request as a first related location (`OUTSIDE`), so every format says why a file that was
    not checked is reported (unless a related location names that place already)."""
    sites = {layout.id: layout.site for layout in prompts}
    out = []
    for d in diagnostics:
        if d.span.filename in names:
            out.append(d)
            continue
        site = sites.get(d.prompt) if d.prompt is not None else None
        if site is not None and site.filename in names:
            if not any(str(r.span) == str(site) for r in d.related):
                mark = Related(site, OUTSIDE.format(file=d.span.filename), evidence=False)
                d = replace(d, related=[mark, *d.related])
            out.append(d)
        elif any(r.span.filename in names for r in d.related):
            out.append(d)
    return out
