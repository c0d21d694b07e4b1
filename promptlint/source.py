"""The one source reader: every file promptlint analyses is read here, with one decoding policy.

- Only regular files are opened (a FIFO, a device or a socket is refused whatever its name, so a
  run never blocks or reads forever); symlinks are followed, a loop is an error.
- A file larger than `max_bytes` (default `DEFAULT_MAX_BYTES`) is refused, never read whole.
- Python files are decoded as Python does (PEP 263 coding cookie, a UTF-8 BOM, UTF-8 by default:
  `tokenize.detect_encoding`); every other file is UTF-8 with an optional BOM.
- Line endings are kept as they are (CRLF, LF); a file with lone CR line endings is returned with
  each lone CR turned into LF so that rows agree with Python's parser (same length, so character
  offsets agree too).

Errors are `SourceError` with a one-line message and the 1-based row where it is known; the caller
turns them into a PRM001 diagnostic and goes on. Every read (and every failed one) is recorded as
a dependency of the analysis that made it (`promptlint.reads`).
"""
from __future__ import annotations

import codecs
import io
import os
import re
import stat
import tokenize
from contextlib import contextmanager
from pathlib import Path

from . import reads

DEFAULT_MAX_BYTES = 4 * 1024 * 1024  # bytes: larger files are generated or vendored, not prompts

#: Unsaved texts that stand in for files (resolved path -> text): `promptlint fix` re-lints its own
#: output and the language server lints unsaved buffers. Set through `overlay()`.
OVERLAY: dict[Path, str] = {}


class SourceError(Exception):
    """A file could not be read or decoded. `row`/`column` are 1-based where known; `too_large`
    marks a file refused for its size (reported at info severity: it is skipped, not broken)."""

    def __init__(self, message: str, row: int = 1, column: int = 1, too_large: bool = False):
        super().__init__(message)
        self.row, self.column, self.too_large = row, column, too_large


def overlay_text(path: Path) -> str | None:
    """The unsaved text standing in for `path`, or None."""
    if not OVERLAY:
        return None
    try:
        return OVERLAY.get(Path(path).resolve())
    except (OSError, RuntimeError):
        return None


@contextmanager
def overlaid(texts: dict[Path, str] | None):
    """Within the block, `texts` (path -> unsaved text) stand in for the files; on leaving, the
    overlay is what it was before (nesting-safe: an outer overlay of the same path comes back)."""
    keys = [Path(p).resolve() for p in texts or {}]
    saved = {k: OVERLAY[k] for k in keys if k in OVERLAY}
    OVERLAY.update(zip(keys, (texts or {}).values()))
    try:
        yield
    finally:
        for key in keys:
            OVERLAY.pop(key, None)
        OVERLAY.update(saved)


def read_bytes(path: Path, max_bytes: int | None = DEFAULT_MAX_BYTES, record: bool = True) -> bytes:
    """The bytes of a regular file, at most `max_bytes` (None: no limit), recorded as a dependency
    of the running analysis (`promptlint.reads`) unless `record` is False.

    Raises SourceError: "not a regular file", "symlink loop", "cannot read file: ...",
    "file too large (N bytes, limit M)".
    """
    try:
        data = _read_bytes(path, max_bytes)
    except SourceError:
        if record:
            reads.note_missing(path)
        raise
    if record:
        reads.note_bytes(path, data)
    return data


def _read_bytes(path: Path, max_bytes: int | None) -> bytes:
    try:
        st = os.stat(path)
    except OSError as exc:
        if exc.errno == 40:  # ELOOP
            raise SourceError("cannot read file: symlink loop") from exc
        raise SourceError(f"cannot read file: {exc.strerror or exc}") from exc
    if not stat.S_ISREG(st.st_mode):
        raise SourceError("not a regular file (a FIFO, device, socket or folder): skipped")
    if max_bytes is not None and st.st_size > max_bytes:
        raise SourceError(f"file too large ({st.st_size:,} bytes, limit {max_bytes:,}): skipped", too_large=True)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise SourceError(f"cannot read file: {exc.strerror or exc}") from exc
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # replaced between stat and open
            raise SourceError("not a regular file (a FIFO, device, socket or folder): skipped")
        chunks, total = [], 0
        limit = (max_bytes + 1) if max_bytes is not None else None
        while True:
            chunk = os.read(fd, 1 << 20 if limit is None else min(1 << 20, limit - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if limit is not None and total >= limit:
                raise SourceError(f"file too large (over {max_bytes:,} bytes): skipped", too_large=True)
        return b"".join(chunks)
    except OSError as exc:
        raise SourceError(f"cannot read file: {exc.strerror or exc}") from exc
    finally:
        os.close(fd)


def _row_of(data: bytes, index: int) -> int:
    return data.count(b"\n", 0, index) + 1


def _undecodable(data: bytes, index: int, encoding: str = "UTF-8") -> SourceError:
    """The error for the byte at `index` that `encoding` cannot decode, located at its row and
    column (1-based; the column counts the characters before it on its line, decoded as far as
    they go) and named by them in the message, with the byte's value."""
    start = data.rfind(b"\n", 0, index) + 1
    row, column = _row_of(data, index), len(data[start:index].decode("utf-8", errors="replace")) + 1
    return SourceError(f"not valid {encoding} at line {row}, column {column} (byte 0x{data[index]:02x})", row, column)


def _normalise_newlines(text: str) -> str:
    """Lone CR line breaks become LF (CRLF stays): same length, rows as Python counts them."""
    if "\r" not in text:
        return text
    return re.sub(r"\r(?!\n)", "\n", text)


def decode_python(data: bytes) -> str:
    """Python source text from bytes, decoded as the interpreter does (PEP 263: a coding cookie on
    line 1 or 2, a UTF-8 BOM, else UTF-8). Raises SourceError for binary data, an unknown
    encoding or bytes invalid in the declared encoding."""
    if b"\0" in data[:8192]:
        raise SourceError("binary file")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        try:  # a byte invalid in UTF-8 on line 1 or 2, where no declaration names another encoding
            data.decode("utf-8-sig")
        except UnicodeDecodeError as bad:
            raise _undecodable(data, bad.start) from exc
        raise SourceError(f"cannot decode: {exc.msg if hasattr(exc, 'msg') else exc}") from exc
    try:
        codecs.lookup(encoding)
    except LookupError as exc:  # pragma: no cover - detect_encoding checks it already
        raise SourceError(f"unknown encoding {encoding!r}") from exc
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        shown = "UTF-8" if codecs.lookup(encoding).name == "utf-8" else encoding  # as the prompt files' message says it
        raise _undecodable(data, exc.start, shown) from exc
    if text.startswith("\ufeff"):
        text = text[1:]
    return _normalise_newlines(text)


def decode_text(data: bytes) -> str:
    """A prompt, template or config file's text: UTF-8 with an optional BOM. Raises SourceError
    for binary or non-UTF-8 data."""
    if b"\0" in data[:8192]:
        raise SourceError("binary file")
    try:
        return _normalise_newlines(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise _undecodable(data, exc.start) from exc


def read_python(path: Path, max_bytes: int | None = DEFAULT_MAX_BYTES) -> str:
    """The decoded text of a Python file (an unsaved overlay first). Raises SourceError."""
    text = overlay_text(path)
    if text is not None:
        reads.note_text(path, text)
        return text
    return decode_python(read_bytes(path, max_bytes))


def read_text(path: Path, max_bytes: int | None = DEFAULT_MAX_BYTES) -> str:
    """The decoded text of any other file (an unsaved overlay first). Raises SourceError."""
    text = overlay_text(path)
    if text is not None:
        reads.note_text(path, text)
        return text
    return decode_text(read_bytes(path, max_bytes))


def read_any(path: Path, max_bytes: int | None = DEFAULT_MAX_BYTES) -> str:
    """`read_python` for `.py` / `.pyi` files, `read_text` for the rest."""
    if Path(path).suffix.lower() in (".py", ".pyi"):
        return read_python(path, max_bytes)
    return read_text(path, max_bytes)


def iter_lines(path: Path | str, max_line_bytes: int = 64 * 1024 * 1024):
    """Stream the lines of a large log file (JSONL request logs): yields (1-based row, bytes of the
    line without its line ending, or None when the line is longer than `max_line_bytes`, which is
    skipped without being held in memory). `path` "-" reads standard input; a name ending in
    `.gz` is decompressed as it is read. Only regular files are opened, as `read_bytes` does.

    Raises SourceError when the file cannot be opened; never reads more than one line (at most
    `max_line_bytes` + 64 KiB) into memory at a time.
    """
    import gzip
    import sys
    import zlib

    raw = None
    if str(path) == "-":
        stream = sys.stdin.buffer
    else:
        try:
            st = os.stat(path)
        except OSError as exc:
            raise SourceError(f"cannot read file: {exc.strerror or exc}") from exc
        if not stat.S_ISREG(st.st_mode):
            raise SourceError("not a regular file (a FIFO, device, socket or folder): skipped")
        try:
            raw = stream = open(path, "rb")  # noqa: SIM115 - closed below
        except OSError as exc:
            raise SourceError(f"cannot read file: {exc.strerror or exc}") from exc
        if str(path).endswith(".gz"):
            stream = gzip.GzipFile(fileobj=raw, mode="rb")
    try:
        row = 0
        while True:
            try:
                line = stream.readline(max_line_bytes + 1)
            except (OSError, EOFError, zlib.error) as exc:
                raise SourceError(f"cannot read file: {exc}", row + 1) from exc
            if not line:
                return
            row += 1
            if len(line) > max_line_bytes and not line.endswith(b"\n"):
                while line and not line.endswith(b"\n"):  # skip the rest of the line in chunks
                    line = stream.readline(1 << 16)
                yield row, None
                continue
            yield row, line.rstrip(b"\r\n")
    finally:
        if raw is not None:
            if stream is not raw:
                stream.close()
            raw.close()


# ---------------------------------------------------------------- dependencies (promptlint.reads)
def is_file(path: str | os.PathLike) -> bool:
    """Whether `path` is a regular file (symlinks followed) or has an unsaved text, recorded as a
    dependency of the running analysis: an analysis that looked for a file and did not find it
    depends on its absence."""
    found = overlay_text(path) is not None or _regular(path)
    if reads.active():
        reads.note(reads.key_of(path), reads.EXISTS if found else None)
    return found


def _regular(path: str | os.PathLike) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def current_state(key: str, wanted: str | None = None) -> str | None:
    """The state of path `key` now (`promptlint.reads`), to compare with a recorded one. With
    `wanted` == `reads.EXISTS` only the existence is tested (the text is not read)."""
    text = overlay_text(key)
    if text is not None:
        return reads.EXISTS if wanted == reads.EXISTS else reads.overlay_digest(text)
    if wanted == reads.EXISTS:
        return reads.EXISTS if _regular(key) else None
    try:
        return reads.digest(read_bytes(key, record=False))
    except SourceError:
        return None


def line_count(path: Path) -> int | None:
    """The number of lines of a text file, or None when it cannot be read."""
    try:
        return len(read_text(path).splitlines())
    except (SourceError, OSError):
        return None
