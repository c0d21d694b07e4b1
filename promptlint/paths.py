"""How files are named in reports: relative to the current folder when under it, else absolute
(posix separators). Shared by every part of promptlint (neutral: imports nothing of it)."""
from __future__ import annotations

from pathlib import Path


def display_name(path: Path) -> str:
    """The path relative to the current directory when it is under it, else absolute (posix)."""
    try:
        resolved = Path(path).resolve()
    except (OSError, RuntimeError):
        resolved = Path(path).absolute()
    try:
        return resolved.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return resolved.as_posix()
