"""Writing a fixed file back: only over the exact text it was computed from, atomically, keeping
what the file was (encoding, BOM, line endings, mode, owner, hard links).

`read_snapshot(path)` reads a file once and decodes it as the analysis does
(`promptlint.source`: PEP 263 for Python, a BOM dropped, lone CR read as LF) and keeps its bytes
and `stat`. `write_atomic(path, text, expected=snapshot)` then:
- refuses (WriteError, the file untouched) a read-only file (no write bit: mode 0444), a file the
  user may not write, a file with several hard links (a rename would split them), a file whose
  owner or group the new file could not keep, text the file's encoding cannot hold;
- writes a temporary file in the same folder (same encoding, BOM, CRLF / lone-CR line endings,
  mode, owner), flushes it to disk, then, holding an advisory lock on the folder (so that two
  promptlint processes never interleave), checks that the file still has the snapshot's bytes and
  identity, and only then renames the temporary file over it (`os.replace`, atomic: a reader or a
  `kill -9` sees the old file or the new one, never a mix). A file changed meanwhile raises
  ChangedError and is left as the other writer left it.
Errors are one-line messages; the temporary file is removed on every failure.
"""
from __future__ import annotations

import contextlib
import io
import os
import stat
import tempfile
import tokenize
from dataclasses import dataclass
from pathlib import Path

from . import source as _source

_BOM = b"\xef\xbb\xbf"


class WriteError(Exception):
    """A fixed file was not written; the message says why in one line (it reads after "cannot write
    FILE: "). The file is unchanged."""


class ChangedError(WriteError):
    """The file changed after it was read (another program wrote it): nothing was written."""


@dataclass(frozen=True)
class Snapshot:
    """A file as read once: `data` its bytes, `text` the decoded text the analysis sees,
    `encoding` the codec its text is written in, `bom` a UTF-8 BOM, `cr_only` lone CR line
    endings (read as LF), `st` its stat; `target` the real file behind any symlink."""

    path: Path
    target: Path
    data: bytes
    text: str
    encoding: str
    bom: bool
    cr_only: bool
    st: os.stat_result


def read_snapshot(path: str | os.PathLike, python: bool | None = None,
                  max_bytes: int | None = _source.DEFAULT_MAX_BYTES) -> Snapshot:
    """Read and decode a file once (`python`: decode as Python source; default: by suffix).
    Raises `promptlint.source.SourceError` (not a regular file, too large, undecodable)."""
    path = Path(path)
    target = Path(os.path.realpath(path))
    data = _source.read_bytes(target, max_bytes)
    try:
        st = os.stat(target)
    except OSError as exc:
        raise _source.SourceError(f"cannot read file: {exc.strerror or exc}") from exc
    if python is None:
        python = path.suffix.lower() in (".py", ".pyi")
    if python:
        text = _source.decode_python(data)
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except SyntaxError:  # pragma: no cover - decode_python raised already
            encoding = "utf-8"
    else:
        text = _source.decode_text(data)
        encoding = "utf-8-sig" if data.startswith(_BOM) else "utf-8"
    bom = data.startswith(_BOM)
    encoding = "utf-8" if encoding == "utf-8-sig" else encoding
    cr_only = b"\r" in data and b"\n" not in data
    return Snapshot(path, target, data, text, encoding, bom, cr_only, st)


def encode(snapshot: Snapshot, text: str) -> bytes:
    """The bytes to write for `text` (decoded as `snapshot.text` is) in the snapshot's encoding,
    BOM and line endings. Raises WriteError when the encoding cannot hold the text or the file
    mixes lone CR with other line endings (which cannot be restored)."""
    old = snapshot.data
    if snapshot.cr_only:
        text = text.replace("\r\n", "\n").replace("\n", "\r")
    elif b"\r" in old.replace(b"\r\n", b""):
        raise WriteError("it mixes lone CR with other line endings; left as it is")
    else:
        lf = old.count(b"\n")
        if lf and old.count(b"\r\n") == lf:  # CRLF throughout: new lines too
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    try:
        body = text.encode(snapshot.encoding)
    except (UnicodeEncodeError, LookupError) as exc:
        raise WriteError(f"the fixed text cannot be encoded in {snapshot.encoding}; left as it is") from exc
    return (_BOM if snapshot.bom else b"") + body


def check_writable(snapshot: Snapshot) -> None:
    """Raise WriteError when the file must not be replaced: read-only, not writable by this
    user, or with several hard links."""
    mode = stat.S_IMODE(snapshot.st.st_mode)
    if not mode & 0o222:
        raise WriteError(f"read-only (mode {mode:04o}); left as it is")
    if not os.access(snapshot.target, os.W_OK):
        raise WriteError("Permission denied; left as it is")
    if snapshot.st.st_nlink > 1:
        raise WriteError(f"it has {snapshot.st.st_nlink} hard links (replacing it would break them); left as it is")


@contextlib.contextmanager
def _folder_lock(folder: Path):
    """An exclusive advisory lock on a folder (flock), so that promptlint processes check and
    replace files of one folder one at a time; no lock where flock is not available."""
    try:
        import fcntl
        fd = os.open(folder, os.O_RDONLY)
    except (ImportError, OSError):
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            pass
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _same_file(st: os.stat_result, now: os.stat_result) -> bool:
    return (st.st_ino, st.st_dev, st.st_mode, st.st_uid, st.st_gid, st.st_nlink) == \
        (now.st_ino, now.st_dev, now.st_mode, now.st_uid, now.st_gid, now.st_nlink)


def _unchanged(snapshot: Snapshot) -> bool:
    """True when the file still has the snapshot's bytes and identity."""
    try:
        now = os.stat(snapshot.target)
        if not _same_file(snapshot.st, now) or now.st_size != len(snapshot.data):
            return False
        with open(snapshot.target, "rb") as handle:
            return handle.read(len(snapshot.data) + 1) == snapshot.data
    except OSError:
        return False


def write_atomic(path: str | os.PathLike, text: str, expected: Snapshot | None = None) -> None:
    """Replace the file at `path` with `text` atomically (module docstring). `expected` is the
    snapshot the text was computed from: the write happens only if the file still matches it
    (else ChangedError). Without it the current file is read now (no change check) and a file
    that does not exist is created. A symlink is followed (its target is replaced).
    Raises WriteError (ChangedError) with a one-line message; OSError never escapes."""
    snapshot = expected
    if snapshot is None:
        try:
            snapshot = read_snapshot(path, max_bytes=None)
        except _source.SourceError as exc:
            if Path(path).exists() or Path(path).is_symlink():
                raise WriteError(str(exc)) from exc
            _create(Path(path), text)
            return
    check_writable(snapshot)
    data = encode(snapshot, text)
    folder = snapshot.target.parent
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{snapshot.target.name}.", suffix=".promptlint.tmp")
    except OSError as exc:
        raise WriteError(f"{exc.strerror or exc} (a temporary file in {folder})") from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        _keep_owner_and_mode(tmp, snapshot.st)
        with _folder_lock(folder):
            if not _unchanged(snapshot):
                raise ChangedError("it changed since it was read (another program wrote it); left as it is")
            os.replace(tmp, snapshot.target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise WriteError(f"{exc.strerror or exc}") from exc
        raise


def _keep_owner_and_mode(tmp: str, st: os.stat_result) -> None:
    """Give the temporary file the original's owner, group and mode, or raise WriteError."""
    now = os.stat(tmp)
    if (now.st_uid, now.st_gid) != (st.st_uid, st.st_gid):
        try:
            os.chown(tmp, st.st_uid, st.st_gid)
        except OSError as exc:
            raise WriteError(f"owned by uid {st.st_uid} / gid {st.st_gid}, which a rewritten file could not "
                             "keep; left as it is") from exc
    os.chmod(tmp, stat.S_IMODE(st.st_mode))


def _create(path: Path, text: str) -> None:
    """Write a new file atomically (UTF-8, mode from the umask)."""
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".promptlint.tmp")
    except OSError as exc:
        raise WriteError(f"{exc.strerror or exc} (a temporary file in {path.parent})") from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise WriteError(f"{exc.strerror or exc}") from exc
