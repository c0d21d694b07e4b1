"""The isolated worker pool (issue 17) and the CPU count (issue 13).

`promptlint.workers.run` with trivial analyses: a worker that crashes, runs out of memory, exits
or hangs costs only its file (reported through `on_failure`), is replaced, and every other file
is analysed; memory recycling replaces workers without losing files. Workers are forked from a
fork server: they import these functions by name.
"""
from __future__ import annotations

import os
import signal
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from promptlint import engine, workers

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork-based tests")


@dataclass
class Done:
    name: str
    restart: bool = False


def _setup() -> None:
    pass


def _analyse(path: Path, kind: str) -> Done:
    name = path.name
    if name == "segfault":
        os.kill(os.getpid(), signal.SIGSEGV)
    if name == "oom":
        raise MemoryError
    if name == "answered-oom":
        return Done(name, restart=True)
    if name == "hangs":
        threading.Event().wait()
    if name == "spins":  # works without end
        while True:
            pass
    if name == "slow":  # 1.5 s of wall time, a little CPU time now and then: a file on a loaded machine
        end = time.monotonic() + 1.5
        while time.monotonic() < end:
            spin = time.process_time() + 0.03
            while time.process_time() < spin:
                pass
            time.sleep(0.3)
    return Done(name)


def _run(names: list[str], jobs: int = 2) -> tuple[dict[int, str], dict[int, str]]:
    results: dict[int, str] = {}
    failures: dict[int, str] = {}
    tasks = [(i, Path(name), "python") for i, name in enumerate(names)]
    # the fork server imports this module once, as it imports the engine's for `promptlint check`
    # (WORKER_PRELOAD): a replaced worker is forked with it, as in a real run, not importing it anew
    workers.run(tasks, jobs, _setup, (), _analyse, lambda i, r: results.__setitem__(i, r.name),
                lambda i, path, reason: failures.__setitem__(i, reason), preload=(_analyse.__module__,))
    return results, failures


def test_every_file_is_answered_once():
    names = [f"f{i}" for i in range(50)]
    results, failures = _run(names)
    assert failures == {} and results == dict(enumerate(names))


def test_crashes_and_memory_errors_cost_only_their_file(monkeypatch):
    names = [f"f{i}" for i in range(30)]
    names[3], names[11], names[20] = "segfault", "oom", "answered-oom"
    results, failures = _run(names)
    assert failures == {3: "the analysis crashed (killed by SIGSEGV)", 11: "the analysis ran out of memory"}
    assert results == {i: n for i, n in enumerate(names) if i not in (3, 11)}


def test_a_file_that_hangs_is_stopped_when_its_worker_gets_no_cpu_time_for_the_stall_timeout(monkeypatch):
    monkeypatch.setattr(workers, "STALL_TIMEOUT", 1.0)
    names = ["f0", "hangs", "f2", "f3"]
    results, failures = _run(names, jobs=1)
    assert failures == {1: "analysis budget exceeded (no progress in 1 s)"}
    assert results == {0: "f0", 2: "f2", 3: "f3"}


def test_a_file_that_works_without_end_is_stopped_after_the_timeout_of_cpu_time(monkeypatch):
    monkeypatch.setattr(workers, "FILE_TIMEOUT", 1.0)
    names = ["f0", "spins", "f2"]
    results, failures = _run(names, jobs=1)
    assert failures == {1: "analysis budget exceeded (more than 1 s of CPU time)"}
    assert results == {0: "f0", 2: "f2"}


def test_a_file_is_not_stopped_for_the_wall_time_a_loaded_machine_adds(monkeypatch):
    """The budget of a file is its worker's CPU time: one whose wall time passes `FILE_TIMEOUT`
    while its worker waits for a core (here: sleeps) is analysed to its end, so which files are
    reported does not depend on the machine's load. (The budget is checked every `FILE_TIMEOUT`
    seconds: the file's 1.5 s of wall time span two checks past it; its CPU time is about 0.15 s.)"""
    monkeypatch.setattr(workers, "FILE_TIMEOUT", 0.5)
    monkeypatch.setattr(workers, "STALL_TIMEOUT", 1.5)
    names = ["f0", "slow", "f2"]
    results, failures = _run(names, jobs=1)
    assert failures == {}
    assert results == {0: "f0", 1: "slow", 2: "f2"}


def test_workers_over_the_memory_bound_are_replaced_without_losing_files(monkeypatch):
    monkeypatch.setattr(workers, "RECYCLE_BYTES", 0)  # every worker leaves after each batch
    names = [f"f{i}" for i in range(16)]  # a new worker for each file
    results, failures = _run(names)
    assert failures == {} and results == dict(enumerate(names))


def _state(path: Path, kind: str) -> Done:
    from promptlint import source
    return Done(f"{os.getcwd()}|{source.overlay_text(path)}|{workers._resident_bytes()}")


def test_a_worker_starts_small_with_the_parents_folder_and_unsaved_texts(tmp_path, monkeypatch):
    """Workers come from the fork server, not from the parent: a worker does not hold the
    parent's memory (here 300 MiB), but it works in the parent's current folder and sees its
    unsaved texts (`source.OVERLAY`)."""
    from promptlint import source
    monkeypatch.chdir(tmp_path)
    unsaved = tmp_path / "app.py"
    monkeypatch.setitem(source.OVERLAY, unsaved.resolve(), "PROMPT = 'unsaved'\n")
    ballast = b"x" * (300 * 1024 * 1024)
    got: dict[int, str] = {}
    workers.run([(0, unsaved, "python")], 1, _setup, (), _state, lambda i, r: got.__setitem__(i, r.name),
                lambda i, path, reason: got.__setitem__(i, reason))
    cwd, text, resident = got[0].split("|")
    assert (cwd, text) == (str(tmp_path), "PROMPT = 'unsaved'\n")
    assert 0 < int(resident) < len(ballast)
    del ballast


@pytest.mark.parametrize(("content", "expected"), [("200000 100000\n", 2.0), ("max 100000\n", None),
                                                    ("150000 100000\n", 1.5)])
def test_the_cgroup_quota_bounds_the_cpus(tmp_path, content, expected):
    (tmp_path / "cpu.max").write_text(content, encoding="ascii")
    assert engine._cgroup_quota(tmp_path) == expected


def test_available_cpus_respects_the_affinity_mask():
    cpus = engine.available_cpus()
    assert 1 <= cpus <= len(os.sched_getaffinity(0))


def test_the_command_line_limits_its_own_memory_too():
    import subprocess
    import sys
    from promptlint.workers import MEMORY_LIMIT_BYTES
    script = ("import resource; from click.testing import CliRunner; from promptlint.cli import main; "
              "CliRunner().invoke(main, ['rules']); print(resource.getrlimit(resource.RLIMIT_DATA)[0])")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert int(out.split()[-1]) <= MEMORY_LIMIT_BYTES


@dataclass
class Where:
    name: str
    pid: int


def _analyse_where(path: Path, kind: str) -> Where:
    import time
    time.sleep(0.01)  # (both workers are up long before the files run out)
    return Where(path.name, os.getpid())


def test_two_workers_take_the_two_ends_of_the_list():
    """The first worker takes batches from the first files on, the second from the last files
    back: each file is analysed once, and the files of each worker are one run of consecutive
    files (a package's files in one worker, its modules parsed there only), the first file's
    worker not the last file's."""
    pids: dict[int, int] = {}
    names = [f"f{i}" for i in range(120)]
    tasks = [(i, Path(name), "python") for i, name in enumerate(names)]
    workers.run(tasks, 2, _setup, (), _analyse_where, lambda i, r: pids.__setitem__(i, r.pid),
                lambda i, path, reason: pytest.fail(reason))
    assert sorted(pids) == list(range(120))
    order = [pids[i] for i in range(120)]
    runs = [pid for k, pid in enumerate(order) if k == 0 or pid != order[k - 1]]
    assert len(runs) == 2 and runs[0] != runs[1]
