"""When a random draw repeats: facts of seeding for the draws of `library` and `methods`.

A draw repeats on every call of its function when the generator it draws from is seeded afresh in
that call before it: a generator made there with a seed (`rng = random.Random(42)` then
`rng.sample(pool, 4)`, or `random.Random(seed).sample(...)` in one expression), or the process-wide
generator seeded there (`random.seed(0)` then `random.sample(pool, 4)`). The draw is then the
seed's: the same on every call with the same seed. Not so for a draw in a loop that the seeding
is outside of (each pass draws the next values of the sequence), nor for a generator seeded once
and kept (`self.rng = random.Random(seed)` in `__init__`, a module's `RNG = random.Random(0)`):
its sequence repeats across runs, but each call draws the next values, new on every call.
"""
from __future__ import annotations

import ast

from ..walk import subtree

#: Seeding the process-wide generator (`random.seed(0)`).
PROCESS_SEEDS = frozenset({"random.seed", "numpy.random.seed"})
_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _within(inner: ast.AST, outer: ast.AST) -> bool:
    """True when `inner` is `outer` or a node of its subtree."""
    return any(n is inner for n in subtree(outer))


def _looped_apart(func, draw: ast.AST, seed: ast.AST) -> bool:
    """True when a loop of `func` holds the draw but not the seeding: each pass draws anew."""
    return any(_within(draw, loop) and not _within(seed, loop) for loop in subtree(func) if isinstance(loop, _LOOPS))


def seeded_here(frame, draw: ast.AST, made: ast.AST | None) -> bool:
    """True when the generator made at `made` (its constructor call, with a seed) is made in the
    function `frame` reads, before the draw `draw`, and no loop holds the draw without it."""
    func = frame.func
    if func is None or made is None or not _within(made, func) or (made.lineno, made.col_offset) > (draw.lineno, draw.col_offset):
        return False
    return not _looped_apart(func, draw, made)


def process_seeded(frame, draw: ast.AST) -> bool:
    """True when the function `frame` reads seeds the process-wide generator (`random.seed(n)`)
    on a line before the draw `draw`, with no loop holding the draw without the seeding."""
    func = frame.func
    if func is None:
        return False
    seeds = [n for n in subtree(func) if isinstance(n, ast.Call) and n.lineno < draw.lineno
             and frame.module.qualified_name(n.func) in PROCESS_SEEDS]
    return any(not _looped_apart(func, draw, s) for s in seeds)
