"""What one analysis read: the files (and the absent files) its result depends on.

The persistent cache (`promptlint.cache`) keys a file's result by its own text and by the state of
every other file its analysis looked at (`promptlint.source.is_file` records a look, every read
of `promptlint.source` records the bytes read, `source.current_state` tells a state now): modules it imported, templates it rendered, config and
text files it read, files it looked for and did not find, and text searches over a package. The
readers record here (`promptlint.source` for every read, `python.tree.Project` for its own cached
lookups) while an analysis runs inside `tracking()`.

A state is a short string, or None:
- the sha256 (hex) of a file's bytes, for a file that was read;
- "o:" + the sha256 of the text, for an unsaved text that stood in for the file (an overlay);
- "c:BYTES:CODE:CHARS" for a Python module whose code, not its layout, the result depends on
  (`promptlint.python.code_state`: set by the cache, `promptlint.cache.Cache.store`);
- `EXISTS` for a regular file whose existence was tested but whose text was not read;
- None for a path that is not a regular file (missing, a folder, a FIFO) or cannot be read;
- anything else for a key that is not a path (`Project.definitions`' text searches, "search:...";
  a prompt file's reading of a whole project's Python, "tree:ROOT", whose state is the digest of
  every file of the tree and its state: `promptlint.templates.references.tree_state`).

Keys are absolute paths (`os.path.abspath`, symlinks kept), "search:..." or "tree:..." keys.
"""
from __future__ import annotations

import hashlib
import os
from contextlib import contextmanager
from typing import Iterator

EXISTS = "f"
TREE = "tree:"  # key prefix of a reading of every Python file of a project (see above)

_ACTIVE: list[dict[str, str | None]] = []
#: (key, bytes digest) -> the code state of each Python module this process parsed from those
#: bytes (`promptlint.python.code_state`): what the cache records instead of the bytes, when the
#: result of the analysis that read the module does not name it.
CODE: dict[tuple[str, str], str] = {}
#: The keys whose text was read, inside `tracking()`, by anything but the module parser
#: (`promptlint.python.tree.Project` reads inside `parsing()`): a regular expression over a
#: file's text sees its comments, so such a file stays keyed by its bytes. The engine clears it
#: before each file's analysis.
RAW: set[str] = set()
_PARSING = [0]


@contextmanager
def parsing() -> Iterator[None]:
    """The reads inside the block are the module parser's (not added to `RAW`)."""
    _PARSING[0] += 1
    try:
        yield
    finally:
        _PARSING[0] -= 1


@contextmanager
def tracking() -> Iterator[dict[str, str | None]]:
    """Record every read made inside the block into the yielded dict (key -> state). Blocks nest:
    a read is recorded by every active block."""
    reads: dict[str, str | None] = {}
    _ACTIVE.append(reads)
    try:
        yield reads
    finally:
        _ACTIVE.remove(reads)


def active() -> bool:
    """True inside `tracking()`."""
    return bool(_ACTIVE)


def key_of(path: str | os.PathLike) -> str:
    """The dependency key of a path: absolute, normalised, symlinks kept."""
    return os.path.abspath(os.fspath(path))


def note(key: str, state: str | None) -> None:
    """Record that the analysis saw `key` in `state` (a read's digest replaces an `EXISTS`)."""
    for reads in _ACTIVE:
        if state == EXISTS and reads.get(key, EXISTS) not in (EXISTS, None):
            continue  # the text was read: the digest says more than the existence
        reads[key] = state


def noted(key: str) -> str | None:
    """The state the innermost `tracking()` block recorded for `key` (None when none)."""
    return _ACTIVE[-1].get(key) if _ACTIVE else None


def digest(data: bytes) -> str:
    """The state of a file whose bytes are `data`."""
    return hashlib.sha256(data).hexdigest()


def overlay_digest(text: str) -> str:
    """The state of a file that an unsaved text stands in for."""
    return "o:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def note_bytes(path: str | os.PathLike, data: bytes) -> None:
    if _ACTIVE:
        key = key_of(path)
        note(key, digest(data))
        if not _PARSING[0]:
            RAW.add(key)


def note_text(path: str | os.PathLike, text: str) -> None:
    """An overlay read."""
    if _ACTIVE:
        key = key_of(path)
        note(key, overlay_digest(text))
        if not _PARSING[0]:
            RAW.add(key)


def note_missing(path: str | os.PathLike) -> None:
    if _ACTIVE:
        note(key_of(path), None)
