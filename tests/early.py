"""Slow subprocesses started when collection ends, so they run while the tests before theirs do.

A few tests wait on one long subprocess of their own (pip building promptlint from a git clone,
the trace capture with the real SDKs, pre-commit building its hook environment, the check of
promptlint's own package): ten seconds and more each. A test marks it
`@pytest.mark.early.with_args(start)` (`early(start)` with a lone function would mark that
function), where `start(folder) -> subprocess.Popen` starts it in an empty folder of its own
(`spawn` below); conftest.py calls `start_all(items)` once the tests are collected, for the
selected tests only, and `stop_all()` when the session ends (a process still running is killed,
the folders removed). The test takes `started(start)`, a `Started`: the process's folder (the
process is started then if it was not, as when the test is run by itself);
`Started.wait(timeout)` waits for it and gives its exit code, stdout and stderr (text). What the
test asserts of the process is unchanged; only when it starts is.

The suite runs in pytest-xdist worker processes (pyproject's `-n`): each worker collects every
test, but a test runs in one of them, not known at collection. So each process of a start is
started once for the whole run, and any worker can wait for it: the session folder (made by the
process that runs the session, the xdist controller or a lone pytest, and handed to the workers
in the environment variable SESSION_VARIABLE) holds one folder per start function, claimed with
`os.mkdir` by the first worker that asks (the first worker, `gw0`, starts them all when its
collection ends; another that gets the test first starts it itself). The process writes its exit
code to a file when it ends (`spawn`'s `sh` wrapper), so a worker that did not start it reads its
end there; its process group is killed by `stop_all` of the session's process if still running.

Layout of the session folder: `bytecode/` (PYTHONPYCACHEPREFIX of the tests' Python subprocesses,
`bytecode_folder()`, where conftest.py names no folder that outlives the run), and per start `KEY/` (KEY: module and name of the start function) holding
`folder/` (the start's own folder: its `stdout` and `stderr` and what it writes), `pid` (written
once the process is started: its process group), `rc` (its exit code, once it ended) or `error`
(the start raised: the worker that runs the test calls the start again, in a new folder, to raise
it there).

`spawn(folder, command, ...)` starts a process with its output in files of `folder` (a pipe nobody
reads until the test would stop a talkative process when full). A `start` that raises re-raises
its exception in the test that asks for it.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

Start = Callable[[Path], subprocess.Popen]

SESSION_VARIABLE = "PROMPTLINT_TESTS_SESSION_FOLDER"
# `sh -c WRAP RC COMMAND...`: COMMAND's exit code written to RC (atomically) when it ends
WRAP = '"$@"; rc=$?; echo "$rc" > "$0.tmp" && mv "$0.tmp" "$0"'
POLL = 0.05  # seconds between two looks at a process another worker started


@dataclass
class Started:
    """A started process: `folder` is its own folder, `state` the folder of its `pid` and `rc`."""

    folder: Path
    state: Path
    proc: subprocess.Popen | None = None  # the Popen, in the process that started it

    def wait(self, timeout: float) -> subprocess.CompletedProcess:
        """Wait for the process (killed after `timeout` seconds: subprocess.TimeoutExpired)."""
        rc_file, deadline = self.state / "rc", time.monotonic() + timeout
        while not rc_file.exists():
            if time.monotonic() > deadline:
                _kill(self.state)
                raise subprocess.TimeoutExpired(self._args(), timeout)
            if self.proc is not None:
                try:
                    self.proc.wait(POLL)
                except subprocess.TimeoutExpired:
                    pass
            else:
                time.sleep(POLL)
        returncode = int(rc_file.read_text().strip())
        out, err = (self.folder / "stdout").read_text("utf-8", "replace"), (self.folder / "stderr").read_text("utf-8", "replace")
        return subprocess.CompletedProcess(self._args(), returncode, out, err)

    def _args(self) -> list[str]:
        args = self.state / "args"
        return args.read_text("utf-8").split("\0") if args.exists() else []


def spawn(folder: Path, command: list[str], **kwargs) -> subprocess.Popen:
    """`subprocess.Popen(command, **kwargs)` with no stdin, its stdout and stderr written to
    `folder`/stdout and `folder`/stderr, in a session (process group) of its own, its exit code
    written when it ends to `rc` beside `folder` (the start's folder made by `started`)."""
    state = folder.parent
    (state / "args").write_text("\0".join(map(str, command)), "utf-8")
    with open(folder / "stdout", "wb") as out, open(folder / "stderr", "wb") as err:
        return subprocess.Popen(["/bin/sh", "-c", WRAP, str(state / "rc"), *command], stdin=subprocess.DEVNULL,
                                stdout=out, stderr=err, start_new_session=True, **kwargs)


_session: list[tuple[Path, bool]] = []  # (the session folder, whether this process made it)
_mine: dict[str, Started] = {}  # the processes this process started, by key


def session_folder() -> Path:
    """The run's session folder: the one named by SESSION_VARIABLE (an xdist worker's, made by the
    controller), else a new one, then named there for the workers (made on first use)."""
    if not _session:
        given = os.environ.get(SESSION_VARIABLE)
        if given:
            _session.append((Path(given), False))
        else:
            folder = Path(tempfile.mkdtemp(prefix="promptlint-tests-session-"))
            os.environ[SESSION_VARIABLE] = str(folder)
            _session.append((folder, True))
    return _session[0][0]


_bytecode: list[str] = []


def use_bytecode_folder(folder: Path | str) -> None:
    """Make `folder` the bytecode folder (`bytecode_folder`), instead of one in the session folder."""
    _bytecode[:] = [str(folder)]


def lasting_bytecode_folder() -> Path:
    """`promptlint-tests-bytecode-UID` in the system's temporary folder, kept from run to run (by
    every checkout: PYTHONPYCACHEPREFIX mirrors each source's absolute path under it)."""
    folder = Path(tempfile.gettempdir()) / f"promptlint-tests-bytecode-{getattr(os, 'getuid', lambda: 0)()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


def bytecode_folder() -> str:
    """The PYTHONPYCACHEPREFIX of the tests' Python subprocesses (conftest.py sets it for the
    tests; early processes start before it is set): the folder given to `use_bytecode_folder`, else
    `bytecode/` in the session folder."""
    if not _bytecode:
        folder = session_folder() / "bytecode"
        folder.mkdir(exist_ok=True)
        _bytecode.append(str(folder))
    return _bytecode[0]


def environment() -> dict[str, str]:
    """The environment of an early process: this one's, without PROMPTLINT_ settings, with the
    session's bytecode folder as the tests' subprocesses have it (conftest.py)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROMPTLINT_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = bytecode_folder()
    return env


def _write(path: Path, text: str) -> None:
    """Write `path` whole or not at all (another worker may be reading it)."""
    (path.parent / f".{path.name}.tmp").write_text(text, "utf-8")
    os.replace(path.parent / f".{path.name}.tmp", path)


def _key(start: Start) -> str:
    return f"{start.__module__}.{start.__qualname__}"


def _claim(start: Start) -> Started | None:
    """Start `start` if no process of the run has claimed it: its Started, else None."""
    state = session_folder() / _key(start)
    try:
        state.mkdir()
    except FileExistsError:
        return None
    folder = state / "folder"
    folder.mkdir()
    try:
        proc = start(folder)
    except BaseException as error:  # raised again in the test, by the start called there
        _write(state / "error", f"{type(error).__name__}: {error}")
        return None
    _write(state / "pid", str(proc.pid))
    _mine[_key(start)] = found = Started(folder, state, proc)
    return found


def start_all(items, worker: str | None = None) -> None:
    """Start the `early` processes of the collected `items` (each once for the run); in an xdist
    worker (`worker` its id) only the first worker starts them."""
    if worker not in (None, "gw0"):
        return
    for item in items:
        for mark in item.iter_markers("early"):
            if _key(mark.args[0]) not in _mine:
                _claim(mark.args[0])


def started(start: Start) -> Started:
    """The process of `start` (started now if no process of the run did)."""
    key = _key(start)
    if key in _mine:
        return _mine[key]
    found = _claim(start)
    if found is not None:
        return found
    state = session_folder() / key
    while not (state / "pid").exists():
        if (state / "error").exists():  # the start raised where it was called: raise it here
            again = Path(tempfile.mkdtemp(prefix="again-", dir=state))
            (again / "folder").mkdir()
            proc = start(again / "folder")  # raises, as it did (a start that now succeeds is used)
            _mine[key] = found = Started(again / "folder", again, proc)
            _write(again / "pid", str(proc.pid))
            return found
        time.sleep(POLL)
    return Started(state / "folder", state)


def _kill(state: Path) -> None:
    """Kill the process group of the process of `state` if it has not ended."""
    pid = state / "pid"
    if pid.exists() and not (state / "rc").exists():
        try:
            os.killpg(int(pid.read_text()), signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def stop_all() -> None:
    """At the end of a worker's session: reap its processes that ended. At the end of the run (the
    process that made the session folder): kill every process still running, remove the folder."""
    if not _session:
        return
    folder, made = _session[0]
    if made:
        for state in folder.iterdir():
            if state.is_dir() and state.name != "bytecode":
                for each in (state, *state.glob("again-*")):
                    _kill(each)
    for found in _mine.values():
        if made and found.proc.poll() is None:
            found.proc.kill()
        if made or found.proc.poll() is not None:
            found.proc.wait()
    _mine.clear()
    if made:
        shutil.rmtree(folder, ignore_errors=True)
        if _bytecode and Path(_bytecode[0]).parent == folder:
            _bytecode.clear()
        os.environ.pop(SESSION_VARIABLE, None)
        _session.clear()
