"""promptlint/collect.py: garbage collection off while files are analysed; after a block of this
process (`paced`), the objects it made that live on are in the oldest generation, so the
collector turned back on does not walk them all at its next young pass."""
from __future__ import annotations

import gc

from promptlint import collect


class Held:
    """An object the collector tracks (an instance with a `__dict__`)."""


def test_the_survivors_of_a_paced_block_are_in_the_oldest_generation():
    assert gc.isenabled()
    with collect.paced():
        assert not gc.isenabled()
        made = [Held() for _ in range(1000)]
    assert gc.isenabled()
    young = {id(o) for o in gc.get_objects(generation=0)}
    old = {id(o) for o in gc.get_objects(generation=2)}
    assert not any(id(o) in young for o in made)
    assert all(id(o) in old for o in made)
    assert gc.get_count()[0] < 1000  # the young generation is not full of them


def test_the_collector_stays_off_after_a_block_when_it_was_off():
    gc.disable()
    try:
        with collect.paced():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_garbage_made_in_a_block_is_still_collected():
    with collect.paced():
        cycle = Held()
        cycle.me = cycle
        kept = id(cycle)
        del cycle
    gc.collect()
    assert kept not in {id(o) for o in gc.get_objects()}
