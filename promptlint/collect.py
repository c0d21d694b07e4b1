"""Garbage collection while files are analysed: off, with one explicit pass now and then.

Syntax trees are millions of objects that live as long as their parsed module, and neither they
nor the evaluator's values form reference cycles (they are freed by reference counting when a
module or the evaluator's caches are dropped). The collector's automatic passes over them cost
about a fifth of the CPU of a cold run (12 to 16 s of 76 s with `--jobs 1` on the corpus) and free
next to nothing. So automatic collection is off while analysing; after every `COLLECT_EVERY`
files one collection looks at the objects made since the previous one and freezes the survivors
(`gc.freeze`): a safety net, not a need. A pass costs 1.2 to 1.6 s there (it reads every tree the
project keeps) and found 3,600 unreachable objects in the whole corpus once the code that made
cycles on every call was gone (`ast.dump`'s nested closure: 180,000 objects; use
`python.walk.node_key`; avoid nested recursive functions in code run per node or per value).
Workers are also replaced when their memory grows (`promptlint.workers`), which bounds any leak.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager

COLLECT_EVERY = 10_000  # files analysed between two explicit collections


class Pacer:
    """Counts analysed files and collects garbage every `COLLECT_EVERY` of them."""

    def __init__(self) -> None:
        self.files = 0

    def tick(self) -> None:
        """One more file analysed (call it after the file's analysis is over)."""
        self.files += 1
        if self.files % COLLECT_EVERY == 0:
            gc.collect()
            gc.freeze()


def start() -> Pacer:
    """Turn automatic collection off for the rest of the process (a worker that lives for the
    run), the objects that exist now (imported modules) frozen; returns the pacer to tick."""
    gc.freeze()
    gc.disable()
    return Pacer()


@contextmanager
def paced():
    """`start` for a block of this process: yields the pacer; the previous state comes back after.
    What the block made and is still alive (the analysis' parsed modules, its results) goes to the
    oldest generation with what was frozen: left in the youngest, the collector turned back on
    would walk all of it at its next young pass (0.5 s per 6 million objects; about 1 s of CPU
    after a `--jobs 1` corpus run, paid by every run of fewer than `PARALLEL_MIN_FILES` files)."""
    was = gc.isenabled()
    pacer = start()
    try:
        yield pacer
    finally:
        gc.freeze()  # (the block's survivors join the objects frozen before it...)
        gc.unfreeze()  # (...and all of them go to the oldest generation)
        if was:
            gc.enable()
