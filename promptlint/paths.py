"""How files are named in reports: relative to the current folder when under it, else absolute
(posix separators). Shared by every part of promptlint (neutral: imports nothing of it)."""
from __future__ import annotations

import os
from pathlib import Path

#: The current directory as `os.getcwd()` gives it -> that folder resolved (asked for every file
#: named, 8,000 times a corpus run: a `realpath` of every folder above it each time).
_CWD: dict[str, Path] = {}


def display_name(path: Path) -> str:
    """The path relative to the current directory when it is under it, else absolute (posix)."""
    try:
        resolved = Path(path).resolve()
    except (OSError, RuntimeError):
        resolved = Path(path).absolute()
    try:
        return resolved.relative_to(_cwd()).as_posix()
    except ValueError:
        return resolved.as_posix()


def _cwd() -> Path:
    """`Path.cwd().resolve()`, kept per current directory."""
    here = os.getcwd()
    found = _CWD.get(here)
    if found is None:
        found = _CWD[here] = Path(here).resolve()
    return found
