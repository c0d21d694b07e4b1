"""Worker processes that analyse files, isolated: a file that kills its worker is that file's
PRM001 and the run goes on.

Each worker gets batches of consecutive files, long ones first and shorter near the end (a
package's files stay together, so the modules they import are parsed once per worker, and the
workers finish together), and sends one result per file as soon as it has
it. Workers take their batches from the two ends of the list of files, as many from each (`side`):
with two workers each goes through its own packages and they share at most the one where they
meet (from one end both analysed the same package at once and parsed its modules twice: 59 to 68
M characters parsed on the corpus instead of 44 M in one process). The parent keeps every worker busy and watches them:
- a worker that dies (a signal such as SIGSEGV or SIGKILL from the out-of-memory killer, or an
  exit after a MemoryError) is replaced; the file it was analysing gets a PRM001 "the analysis
  crashed ..." and the rest of its batch is analysed again by the others;
- a file that takes more than `FILE_TIMEOUT` seconds of its worker's CPU time (counted from when
  its worker is set up and free for it), or whose worker gets no CPU time at all for `STALL_TIMEOUT`
  seconds (a deadlock: waiting, not working), has its worker killed and gets a PRM001 "analysis
  budget exceeded" (a guard against a hang the analysis' own bounds miss). CPU time, not wall
  time: on a loaded machine a worker gets a share of a core, so a file's wall time grows with the
  load while its CPU time does not, and which files are reported must not depend on the load
  (where a process's CPU time cannot be read, wall time is the fallback);
- a worker whose resident set passed `RECYCLE_BYTES` after a file exits and is replaced (the rest
  of its batch goes to another), so memory stays bounded on any tree; on Linux a worker's data
  segment is also limited to `MEMORY_LIMIT_BYTES`, so a runaway allocation is a MemoryError in that
  worker rather than the machine swapping.

On Linux workers are forked from a fork server started once (`multiprocessing`'s "forkserver",
with the `preload` modules imported), not from the parent: a worker then starts small, whatever
the parent holds by then (every result so far, the fixes' syntax trees), so its resident set is
its own and a replaced worker does not copy the parent's pages. (Forked from a parent of 200 MiB,
workers began at 200 MiB, passed 450 MiB on a 2.2 M-line tree, and telling their private pages
from those shared with the parent took the kernel a walk of every page after every file.)
Elsewhere workers are spawned. Either way a worker holds only what it is given: the setup
arguments, and the current folder and the unsaved texts of the parent (`source.OVERLAY`), set
anew in each worker.

Nothing here is cached: a crash or a timeout may depend on the machine, so the file is analysed
again by the next run.
"""
from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import time
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from pathlib import Path
from typing import Callable

FILE_TIMEOUT = 300.0  # seconds of a worker's CPU time for one file: far above any real file's (2 s on the corpus)
STALL_TIMEOUT = 120.0  # seconds of wall time in which a worker with a file gets no CPU time: a deadlock
RECYCLE_BYTES = 250 * 1024 * 1024  # resident memory after which a worker is replaced
MEMORY_LIMIT_BYTES = 3 * 1024 * 1024 * 1024  # a worker's data segment (Linux RLIMIT_DATA)
#: Files sent at once: a share of what is left (guided scheduling: `GUIDED` batches per worker),
#: at most `BATCH`. Long runs of consecutive files keep a package's files in one worker, so the
#: modules they import are parsed by one worker, not by each; batches shrink near the end so
#: the workers finish together.
BATCH = 128
GUIDED = 4
EXIT_AFTER_MEMORY_ERROR = 3  # the file's result (a PRM001) was sent, then the worker left
EXIT_OUT_OF_MEMORY = 4  # a MemoryError before the file's result could be sent


@dataclass
class _Worker:
    process: multiprocessing.process.BaseProcess
    conn: object
    pending: list = field(default_factory=list)  # tasks sent, not answered yet, in order
    since: float | None = None  # when its current file started (monotonic seconds; None: setting up)
    cpu: float | None = None  # its CPU time (seconds) when its current file started (None: unknown)
    moved: tuple[float, float | None] = (0.0, None)  # (when its CPU time last changed, that CPU time)
    side: int = 0  # the end of the list of files it takes its batches from (0: the first files, 1: the last)


def run(tasks: list[tuple[int, Path, str]], jobs: int, setup: Callable, setup_args: tuple,
        analyse: Callable, on_result: Callable[[int, object], None],
        on_failure: Callable[[int, Path, str], None], preload: tuple[str, ...] = ()) -> None:
    """Analyse `tasks` ([(index, path, kind)]) in `jobs` worker processes.

    In each worker `setup(*setup_args)` runs once, then `analyse(path, kind)` per file (it
    returns a picklable result; it should catch MemoryError itself, returning a result with
    `restart` set true, after which the worker exits). `setup` and `analyse` are module-level
    functions (workers import them by name); `preload` names modules the fork server imports
    once for every worker. The parent calls `on_result(index, result)` per file as results
    arrive, and `on_failure(index, path, reason)` for a file whose worker died or timed out.
    Returns when every task was answered one way or the other.
    """
    ctx = _context(preload)
    queue = list(reversed(tasks))  # pop() takes the next one
    workers: list[_Worker] = []
    from . import source
    state = (os.getcwd(), dict(source.OVERLAY), RECYCLE_BYTES)

    def start() -> None:
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_main, args=(child, setup, setup_args, analyse, state), daemon=True)
        with _interpreter_start():  # (a spawned worker is a new interpreter)
            proc.start()
        child.close()
        ends = sum(w.side for w in workers)  # (the end fewer workers take from)
        workers.append(_Worker(proc, parent, side=1 if ends < len(workers) - ends else 0))

    def feed(w: _Worker) -> None:
        size = min(max(1, min(BATCH, len(queue) // (jobs * GUIDED))), len(queue))
        if w.side == 0:
            batch = [queue.pop() for _ in range(size)]
        else:  # the last files, in their order
            batch = queue[size - 1::-1] if size else []
            del queue[:size]
        if not batch:
            return
        try:
            w.conn.send([(i, str(p), k) for i, p, k in batch])
        except OSError:  # it died meanwhile: its sentinel tells, and the batch goes back where it was
            if w.side == 0:
                queue.extend(reversed(batch))
            else:
                queue[:0] = reversed(batch)
            return
        if not w.pending and w.since is not None:
            _started(w)
        w.pending.extend(batch)

    for _ in range(min(jobs, len(tasks))):
        start()
    for w in workers:
        feed(w)
    try:
        while workers:
            ready = wait([w.conn for w in workers] + [w.process.sentinel for w in workers],
                         timeout=min(5.0, FILE_TIMEOUT, STALL_TIMEOUT))
            for w in list(workers):
                if w.conn in ready:
                    if not _receive(w, on_result):
                        _retire(w, workers, queue, on_failure)
                        continue
                elif w.process.sentinel in ready:
                    while _receive(w, on_result, block=False):
                        pass
                    _retire(w, workers, queue, on_failure)
                elif w.pending and w.since is not None:
                    reason = _over_budget(w)
                    if reason is not None:
                        w.process.kill()
                        _retire(w, workers, queue, on_failure, reason)
            for w in list(workers):
                if len(w.pending) <= 1 and queue:
                    feed(w)  # the next batch waits in the pipe: no idle round trip
                elif not w.pending:
                    _stop(w, workers)
            while queue and len(workers) < min(jobs, len(queue) + len(workers)):
                start()
                feed(workers[-1])
    finally:
        for w in workers:
            w.process.kill()
            w.process.join()
        _stop_server(ctx)


def _receive(w: _Worker, on_result, block: bool = True) -> bool:
    """Read one message of `w`; False when its pipe is closed."""
    try:
        if not block and not w.conn.poll():
            return False
        index, result = w.conn.recv()
    except (EOFError, OSError):
        return False
    if index is None:  # set up: the clock of its first file starts now
        _started(w)
        return True
    if w.pending and w.pending[0][0] == index:
        w.pending.pop(0)
    _started(w)
    on_result(index, result)
    return True


def _started(w: _Worker) -> None:
    """The clocks of `w`'s next file start now: its wall time and its CPU time."""
    w.since = time.monotonic()
    w.cpu = _cpu_seconds(w.process.pid)
    w.moved = (w.since, w.cpu)


def _over_budget(w: _Worker) -> str | None:
    """Why `w`'s current file is stopped (the reason of its PRM001), or None: more than
    `FILE_TIMEOUT` seconds of the worker's CPU time since the file started, or no CPU time at all
    for `STALL_TIMEOUT` seconds (a deadlock); where CPU time cannot be read, `FILE_TIMEOUT`
    seconds of wall time."""
    now = time.monotonic()
    cpu = _cpu_seconds(w.process.pid) if w.cpu is not None else None
    if cpu is None:
        return f"analysis budget exceeded (more than {FILE_TIMEOUT:.0f} s)" if now - w.since > FILE_TIMEOUT else None
    if cpu - w.cpu > FILE_TIMEOUT:
        return f"analysis budget exceeded (more than {FILE_TIMEOUT:.0f} s of CPU time)"
    if cpu != w.moved[1]:
        w.moved = (now, cpu)
    elif now - w.moved[0] > STALL_TIMEOUT:
        return f"analysis budget exceeded (no progress in {STALL_TIMEOUT:.0f} s)"
    return None


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") and "SC_CLK_TCK" in getattr(os, "sysconf_names", {}) else 100


def _cpu_seconds(pid: int) -> float | None:
    """The CPU time (user + system, seconds) process `pid` has used, from Linux's /proc; None
    where it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS
    except (OSError, ValueError, IndexError):
        return None


def _retire(w: _Worker, workers: list, queue: list, on_failure, reason: str | None = None) -> None:
    """A worker that ended: its current file failed (when it had one: `reason`, else what its
    exit status says), the rest of its files go back to the queue."""
    w.process.join()
    workers.remove(w)
    w.conn.close()
    if not w.pending:
        return
    code = w.process.exitcode
    if reason is None and code in (0, EXIT_AFTER_MEMORY_ERROR):
        # it left on its own after answering its file (memory recycled, or a MemoryError that
        # is in that file's result): whatever was sent after is analysed by another worker
        queue.extend(reversed(w.pending))
        w.pending.clear()
        return
    index, path, _ = w.pending.pop(0)
    if reason is None and code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        reason = f"the analysis crashed (killed by {name}" + (", probably out of memory)" if -code == signal.SIGKILL else ")")
    elif reason is None and code == EXIT_OUT_OF_MEMORY:
        reason = "the analysis ran out of memory"
    elif reason is None:
        reason = f"the analysis stopped (exit status {code})"
    on_failure(index, path, reason)
    queue.extend(reversed(w.pending))
    w.pending.clear()


def _stop(w: _Worker, workers: list) -> None:
    try:
        w.conn.send(None)
    except OSError:
        pass
    w.process.join()
    workers.remove(w)
    w.conn.close()


def _context(preload: tuple[str, ...]):
    """The multiprocessing context of the workers: a fork server on Linux (its preload set
    before it starts; `_stop_server` ends it with the run), spawn elsewhere."""
    if not sys.platform.startswith("linux"):
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    if preload:
        ctx.set_forkserver_preload(list(preload))  # ignored once the server runs
    # The server imports from this process's import path (made absolute: '' was the folder of
    # then; before Python 3.13 the import path is not handed over), less the current folder
    # unless promptlint itself is imported from there.
    from multiprocessing import forkserver
    saved = os.environ.get("PYTHONPATH")
    here, own = os.getcwd(), os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in map(os.path.abspath, sys.path) if p != here or p == own)
    try:
        with _interpreter_start():
            os.chdir(os.path.dirname(os.__file__))
            forkserver.ensure_running()
    finally:
        os.chdir(here)
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved
    return ctx


@contextlib.contextmanager
def _interpreter_start():
    """While a new interpreter starts (the fork server, a spawned worker): PYTHONSAFEPATH set.
    Started by `python -c` in the folder being checked, it would put that folder first on its
    import path and import the project's own `types/` or `json.py` in place of the standard
    library's (then fail, or run the project's code); PYTHONSAFEPATH (Python 3.11+) keeps it off,
    the fork server also starts in the standard library's folder (`_context`), and a worker drops
    '' from its path before it moves to the current folder (`_main`)."""
    saved = os.environ.get("PYTHONSAFEPATH")
    os.environ["PYTHONSAFEPATH"] = "1"
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("PYTHONSAFEPATH", None)
        else:
            os.environ["PYTHONSAFEPATH"] = saved


def _stop_server(ctx) -> None:
    """Stop the fork server and wait for it (it waited for the workers): the run's CPU time and
    peak memory then count in this process's `RUSAGE_CHILDREN`, as forked workers' did, and the
    next run starts a server from the state of then (folder, imported code). Uses the method
    CPython's own tests use (`ForkServer._stop`); where it is missing, the server stays."""
    if ctx.get_start_method() != "forkserver":
        return
    from multiprocessing import forkserver
    stop = getattr(getattr(forkserver, "_forkserver", None), "_stop", None)
    if stop is not None:
        try:
            stop()
        except OSError:
            pass


def _main(conn, setup, setup_args, analyse, state) -> None:
    """A worker: set up, then analyse batches until told to stop (None) or its memory is high.
    `state`: the parent's current folder, unsaved texts and memory bound."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    import faulthandler
    faulthandler.disable()  # a crash is reported by the parent, as the file's PRM001
    from . import source
    cwd, overlay, recycle = state
    sys.path[:] = [p for p in sys.path if p not in ("", ".")]  # '' would be the checked folder after chdir
    os.chdir(cwd)
    source.OVERLAY.clear()
    source.OVERLAY.update(overlay)
    limit_memory()
    setup(*setup_args)
    conn.send((None, None))  # ready
    while True:
        try:
            batch = conn.recv()
        except (EOFError, OSError):
            return
        if batch is None:
            return
        for index, path, kind in batch:
            try:
                result = analyse(Path(path), kind)
                conn.send((index, result))
            except MemoryError:
                os._exit(EXIT_OUT_OF_MEMORY)
            if getattr(result, "restart", False):
                conn.close()
                os._exit(EXIT_AFTER_MEMORY_ERROR)
            if _resident_bytes() > recycle:
                conn.close()  # a fresh worker takes over (the rest of the batch goes back): memory stays bounded
                os._exit(0)


def limit_memory() -> None:
    """Limit this process's data segment to `MEMORY_LIMIT_BYTES` (Linux `RLIMIT_DATA`; a lower
    limit already set stays): a runaway analysis is a MemoryError, which the engine reports as
    that file's PRM001, not a process the kernel kills with the machine out of memory. A no-op
    where the limit cannot be set."""
    try:
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
        limit = MEMORY_LIMIT_BYTES if hard == resource.RLIM_INFINITY else min(MEMORY_LIMIT_BYTES, hard)
        if soft == resource.RLIM_INFINITY or soft > limit:
            resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    except (ImportError, ValueError, OSError, AttributeError):
        pass


def _resident_bytes() -> int:
    """This process's resident set size now (bytes; 0 where unknown)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0
