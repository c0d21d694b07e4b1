"""When a random draw repeats: facts of seeding for the draws of `library` and `methods`.

A draw repeats on every call of its function when the generator it draws from is seeded afresh in
that call before it: a generator made there with a seed (`rng = random.Random(42)` then
`rng.sample(pool, 4)`, or `random.Random(seed).sample(...)` in one expression), or the process-wide
generator seeded there (`random.seed(0)` then `random.sample(pool, 4)`). Every draw of the call is
then the seed's: the same in every call with the same seed, also each draw of a loop after the
seeding (the passes differ from each other, not from call to call: a benchmark's fixed pool built
pass by pass). Not so for a generator seeded once and kept (`self.rng = random.Random(seed)` in
`__init__`, a module's `RNG = random.Random(0)`): its sequence repeats across runs, but each call
draws its next values, new on every call.
"""
from __future__ import annotations

import ast

from ..walk import subtree

#: Seeding the process-wide generator (`random.seed(0)`).
PROCESS_SEEDS = frozenset({"random.seed", "numpy.random.seed"})


def _before(a: ast.AST, b: ast.AST) -> bool:
    """True when node `a` starts at or before node `b` in the source."""
    return (a.lineno, a.col_offset) <= (b.lineno, b.col_offset)


def seeded_here(frame, draw: ast.AST, made: ast.AST | None) -> bool:
    """True when the generator made at `made` (its constructor call, with a seed) is made in the
    function `frame` reads, before the draw `draw`."""
    func = frame.func
    return func is not None and made is not None and _before(made, draw) and any(n is made for n in subtree(func))


def process_seeded(frame, draw: ast.AST) -> bool:
    """True when the function `frame` reads seeds the process-wide generator (`random.seed(n)`)
    on a line before the draw `draw`."""
    func = frame.func
    return func is not None and any(isinstance(n, ast.Call) and n.lineno < draw.lineno
                                    and frame.module.qualified_name(n.func) in PROCESS_SEEDS for n in subtree(func))
