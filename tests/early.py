"""Slow subprocesses started when collection ends, so they run while the tests before theirs do.

pytest runs the tests one at a time in one process: on CI's two cores the other core is idle but
for the subprocesses the tests start. A few tests wait on one long subprocess of their own (pip
building promptlint from a git clone, the trace capture with the real SDKs, pre-commit building
its hook environment): ten seconds each. A test marks it `@pytest.mark.early.with_args(start)`
(`early(start)` with a lone function would mark that function), where `start(folder) ->
subprocess.Popen` starts it in an empty folder of its own; conftest.py calls `start_all(items)`
once the tests are collected, for the selected tests only, and `stop_all()` when the session ends
(a process still running is killed, the folders removed). The test takes `started(start)`, a
`Started`: the process and its folder (the process is started then if it was not, as when the test
is run by itself); `Started.wait(timeout)` waits for it and gives its exit code, stdout and stderr
(text). What the test asserts of the process is unchanged; only when it starts is.
`spawn(folder, command, ...)` starts a process with its output in files of `folder` (a pipe nobody
reads until the test would stop a talkative process when full).

A `start` that raises re-raises its exception in the test that asks for it.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

Start = Callable[[Path], subprocess.Popen]


@dataclass
class Started:
    proc: subprocess.Popen | None
    folder: Path
    error: BaseException | None = None

    def wait(self, timeout: float) -> subprocess.CompletedProcess:
        """Wait for the process (killed after `timeout` seconds: subprocess.TimeoutExpired)."""
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise
        out, err = (self.folder / "stdout").read_text("utf-8", "replace"), (self.folder / "stderr").read_text("utf-8", "replace")
        return subprocess.CompletedProcess(self.proc.args, self.proc.returncode, out, err)


def spawn(folder: Path, command: list[str], **kwargs) -> subprocess.Popen:
    """`subprocess.Popen(command, **kwargs)` with no stdin and its stdout and stderr written to
    `folder`/stdout and `folder`/stderr."""
    with open(folder / "stdout", "wb") as out, open(folder / "stderr", "wb") as err:
        return subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=err, **kwargs)


_started: dict[Start, Started] = {}
_bytecode: list[str] = []


def bytecode_folder() -> str:
    """The session's PYTHONPYCACHEPREFIX for the Python subprocesses (conftest.py sets it for the
    tests; early processes start before it is set): made on first use, removed by `stop_all`."""
    if not _bytecode:
        _bytecode.append(tempfile.mkdtemp(prefix="promptlint-tests-bytecode-"))
    return _bytecode[0]


def environment() -> dict[str, str]:
    """The environment of an early process: this one's, without PROMPTLINT_ settings, with the
    session's bytecode folder as the tests' subprocesses have it (conftest.py)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROMPTLINT_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = bytecode_folder()
    return env


def _start(start: Start) -> Started:
    folder = Path(tempfile.mkdtemp(prefix=f"promptlint-early-{start.__name__}-"))
    try:
        return Started(start(folder), folder)
    except BaseException as error:  # re-raised in the test
        return Started(None, folder, error)


def start_all(items) -> None:
    """Start the `early` processes of the collected `items` (each once)."""
    for item in items:
        for mark in item.iter_markers("early"):
            if mark.args[0] not in _started:
                _started[mark.args[0]] = _start(mark.args[0])


def started(start: Start) -> Started:
    """The process of `start` (started now if it was not)."""
    if start not in _started:
        _started[start] = _start(start)
    found = _started[start]
    if found.error is not None:
        raise found.error
    return found


def stop_all() -> None:
    for found in _started.values():
        if found.proc is not None and found.proc.poll() is None:
            found.proc.kill()
        if found.proc is not None:
            found.proc.wait()
        shutil.rmtree(found.folder, ignore_errors=True)
    _started.clear()
    for folder in _bytecode:
        shutil.rmtree(folder, ignore_errors=True)
    _bytecode.clear()
