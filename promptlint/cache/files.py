"""Files of the cache folder: written atomically with the mode `open()` would give them
(`write_atomic`), whether a folder can be written (`check_writable`), when a fingerprint folder
was last used (`last_used`)."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def check_writable(root: Path) -> None:
    """Raise OSError unless `root` is a folder this process can write, or does not exist yet and
    the nearest folder that exists on its path can be written (so `mkdir` would make it)."""
    path = root
    while not os.path.lexists(path):
        if path.parent == path:
            break
        path = path.parent
    if not path.is_dir():
        raise NotADirectoryError(20, "Not a directory", str(path))
    if not os.access(path, os.W_OK | os.X_OK):
        raise PermissionError(13, "Permission denied", str(path))


def _umask() -> int:
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022

_MODE = 0o666 & ~_umask()  # files are made as open() would make them (mkstemp makes 0600)


def write_atomic(target: Path, data: bytes) -> None:
    """Write `data` to a temporary file next to `target`, then rename it over `target`: a reader
    sees the old entry or the new one, never a part."""
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, _MODE)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def last_used(folder: Path) -> float:
    try:
        return (folder / "used").stat().st_mtime
    except OSError:
        return 0.0
