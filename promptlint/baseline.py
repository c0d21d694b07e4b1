"""Baselines and changed-line filtering: adopt promptlint on an existing project.

A baseline records today's findings so that a run fails only on new ones. Its key is the file's
path (posix, relative to the baseline file's directory), the rule code and a fingerprint of the
diagnostic's source line with whitespace normalised, with a count per key; never line numbers, so
moving code around or editing other lines does not resurrect old findings (as in
ESLint RFC 119). A key seen more often than its count reports the extra occurrences, the
last ones in file order.

`--diff-base REF` keeps only findings on lines added or changed since the merge base of a git
ref and HEAD (`git diff -U0 REF...`, plus untracked files as wholly new).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterable

from .model import Diagnostic, Report

BASELINE_VERSION = 1


class BaselineError(Exception):
    """A baseline file or git query that cannot be used; the message is one line (exit 2)."""


def read_source(filename: str) -> str | None:
    """The text of `filename` as the analysis reads it (`promptlint.source`: unsaved overlays,
    PEP 263 for Python) with universal newlines ("\r\n" read as "\n": rows and columns are
    unchanged), or None when it cannot be read."""
    from .source import SourceError, read_any
    try:
        return read_any(Path(filename)).replace("\r\n", "\n")
    except SourceError:
        return None


def snippet(diagnostic: Diagnostic, read_text: Callable[[str], str | None] = read_source) -> str:
    """The diagnostic's first source line with runs of whitespace collapsed and ends stripped."""
    text = read_text(diagnostic.span.filename)
    if text is None:
        return ""
    lines = text.splitlines()
    row = diagnostic.span.start.row
    return " ".join(lines[row - 1].split()) if 0 < row <= len(lines) else ""


def fingerprint(path: str, code: str, normalised_snippet: str) -> str:
    """Hex sha256 of path, code and snippet, NUL-separated: stable while the line's text is."""
    data = "\0".join((path, code, normalised_snippet)).encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def _relative(filename: str, base: Path) -> str:
    """`filename` as a posix path relative to `base` (`..` allowed), absolute on another drive."""
    absolute = os.path.normpath(Path.cwd() / filename)
    try:
        return Path(os.path.relpath(absolute, base)).as_posix()
    except ValueError:
        return Path(absolute).as_posix()


def _keys(report: Report, base: Path, read_text) -> list[tuple[Diagnostic, tuple[str, str, str]]]:
    keyed = []
    for d in sorted(report.diagnostics, key=lambda d: d.sort_key):
        path = _relative(d.span.filename, base)
        keyed.append((d, (path, d.code, snippet(d, read_text))))
    return keyed


def write_baseline(report: Report, path: str | os.PathLike,
                   read_text: Callable[[str], str | None] = read_source) -> int:
    """Write every diagnostic of `report` to the baseline file `path` (JSON); return the count.

    Format: {"version": 1, "entries": [{"path", "code", "snippet", "fingerprint", "count"}]},
    sorted, with paths relative to the baseline's directory.
    """
    base = Path(path).absolute().parent
    counts = Counter(key for _d, key in _keys(report, base, read_text))
    entries = [{"path": p, "code": c, "snippet": s, "fingerprint": fingerprint(p, c, s),
                "count": n} for (p, c, s), n in sorted(counts.items())]
    payload = {"version": BASELINE_VERSION, "tool": "promptlint", "entries": entries}
    Path(path).write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n",
                          encoding="utf-8")
    return sum(counts.values())


def load_baseline(path: str | os.PathLike) -> Counter:
    """fingerprint -> count from a baseline file. Raises BaselineError when unreadable."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if data.get("version") != BASELINE_VERSION:
            raise BaselineError(f"unsupported baseline version in {path}: {data.get('version')}")
        return Counter({e["fingerprint"]: int(e["count"]) for e in data["entries"]})
    except OSError as exc:
        raise BaselineError(f"cannot read baseline {path}: {exc.strerror or exc}") from None
    except (ValueError, KeyError, TypeError, AttributeError):
        raise BaselineError(f"invalid baseline file {path}") from None


def filter_baseline(report: Report, path: str | os.PathLike,
                    read_text: Callable[[str], str | None] = read_source) -> Report:
    """A copy of `report` without the diagnostics recorded in the baseline `path`.

    Each fingerprint absorbs up to its count of diagnostics, in file order.
    """
    remaining = load_baseline(path)
    base = Path(path).absolute().parent
    kept = []
    for d, key in _keys(report, base, read_text):
        fp = fingerprint(*key)
        if remaining[fp] > 0:
            remaining[fp] -= 1
        else:
            kept.append(d)
    return replace(report, diagnostics=kept)


_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def _git(args: list[str], cwd: Path) -> str:
    try:
        result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                                encoding="utf-8", errors="replace", check=False)
    except OSError as exc:
        raise BaselineError(f"cannot run git: {exc.strerror or exc}") from None
    if result.returncode != 0:
        message = (result.stderr.strip().splitlines() or ["failed"])[-1]
        raise BaselineError(f"git {args[0]} failed: {message}")
    return result.stdout


def _unquote(path: str) -> str:
    """Undo git's C-style quoting of unusual paths (`"a\\tb"`)."""
    if not (path.startswith('"') and path.endswith('"')):
        return path
    raw = path[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
    return raw.encode("latin-1").decode("utf-8", "replace")


def changed_lines(ref: str, paths: Iterable[str | os.PathLike] = ()) -> dict[str, set[int]]:
    """Rows (1-based) added or changed since git `ref`, per file (resolved absolute path).

    As `git diff REF...`: a plain `REF` is compared from the merge base of REF and HEAD to the
    working tree, so that on a branch only the branch's own changes count, not what REF gained
    since; `A...B` compares the merge base of A and B with B, `A..B` compares A with B. Runs in
    the repository of the first path (or the current directory) and counts untracked,
    unignored files as wholly new (unless B is given). Deleted lines mark nothing. Raises
    BaselineError when git is missing, the directory is not a repository or a ref is unknown.
    """
    paths = [Path(p).absolute() for p in paths]
    start = paths[0] if paths else Path.cwd()
    cwd = start if start.is_dir() else start.parent
    top = Path(_git(["rev-parse", "--show-toplevel"], cwd).strip())
    if "..." in ref:
        left, _, right = ref.partition("...")
        left, right = left or "HEAD", right or "HEAD"
    elif ".." in ref:
        left, _, right = ref.partition("..")
        left, right = left or "HEAD", right or "HEAD"
    else:
        left, right = ref, None
    for name in (left, right):
        if name is None:
            continue
        try:
            _git(["rev-parse", "--verify", "--quiet", f"{name}^{{commit}}"], top)
        except BaselineError:
            raise BaselineError(f"unknown git ref `{name}` for --diff-base") from None
    if ".." in ref and "..." not in ref:
        base = left
    else:
        base = _git(["merge-base", left, right or "HEAD"], top).strip()
    targets = [base] + ([right] if right else [])
    specs = ["--", *(str(p) for p in paths)] if paths else []
    diff = _git(["-c", "core.quotePath=false", "diff", "-U0", "--no-color", "--no-ext-diff",
                 "--no-renames", *targets, *specs], top)
    changed: dict[str, set[int]] = {}
    current: set[int] | None = None
    for line in diff.splitlines():
        if line.startswith("+++ "):
            name = _unquote(line[4:])
            current = None
            if name != "/dev/null":
                key = str((top / name[2:]).resolve())
                current = changed.setdefault(key, set())
        elif current is not None and (m := _HUNK.match(line)):
            first, count = int(m.group(1)), int(m.group(2) or 1)
            current.update(range(first, first + count))
    if right is not None:  # a commit range: the working tree does not count
        return changed
    untracked = _git(["-c", "core.quotePath=false", "ls-files", "--others",
                      "--exclude-standard", "-z", *specs], top)
    for name in filter(None, untracked.split("\0")):
        file = (top / name).resolve()
        text = read_source(str(file)) or ""
        changed[str(file)] = set(range(1, text.count("\n") + 2))
    return changed


def filter_changed(report: Report, changed: dict[str, set[int]]) -> Report:
    """A copy of `report` keeping the diagnostics whose span, or a related span, touches a
    changed row of `changed` (from `changed_lines`)."""

    def touches(span) -> bool:
        rows = changed.get(str(Path(span.filename).resolve()))
        return bool(rows) and any(r in rows for r in range(span.start.row, span.end.row + 1))

    kept = [d for d in report.diagnostics
            if touches(d.span) or any(touches(r.span) for r in d.related)]
    return replace(report, diagnostics=kept)
