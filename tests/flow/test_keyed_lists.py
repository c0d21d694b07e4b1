"""Lists a dict holds, grown by key in a loop (`groups[k].append(x)`, `groups.setdefault(k,
[]).append(x)`): in the loop's order, so a set iterated there orders each list (PRM202); and a
parameter of a nested function whose default reads a name of the function around it (`def
score(*, keys=keys)`) holds that binding where the function is defined (issue 11)."""
from __future__ import annotations

import pytest
from analysis_support import pos, probe

from promptlint.model import Kind


def unordered(p) -> list:
    return [s for s in p.segs if s.kind is Kind.UNORDERED_ITERATION]


GROUPS = """
    def f(names, tags: set):
        groups = {}
        for name in set(names):
            groups.setdefault(name[0], []).append(name)
        fixed = {}
        for name in sorted(names):
            fixed.setdefault(name[0], []).append(name)
        by_tag = {}
        for tag in tags:
            if tag[0] not in by_tag:
                by_tag[tag[0]] = []
            by_tag[tag[0]].append(tag)
        probe(", ".join(groups["a"]))
        probe(", ".join(fixed["a"]))
        probe(", ".join(by_tag["x"]))
"""


def test_a_list_grown_by_key_in_a_set_loop_is_in_the_set_order(tmp_path):
    seg, = unordered(probe(tmp_path, GROUPS, index=0))
    assert seg.span.start == pos(GROUPS, "set(names):")


def test_a_list_grown_by_key_in_a_sorted_loop_is_ordered(tmp_path):
    assert unordered(probe(tmp_path, GROUPS, index=1)) == []


def test_a_list_set_then_appended_by_key_in_a_set_loop(tmp_path):
    seg, = unordered(probe(tmp_path, GROUPS, index=2))
    assert seg.span.start == pos(GROUPS, "tags:\n")


CAPTURED = """
    def f(names):
        picked = list(set(names))
        fixed = sorted(names)

        def inner(*, chosen=picked, kept=fixed, other=None):
            probe(", ".join(chosen))
            probe(", ".join(kept))
            probe(other)
        return inner
"""


def test_a_captured_default_is_the_enclosing_binding(tmp_path):
    seg, = unordered(probe(tmp_path, CAPTURED, index=0))
    assert seg.expr == "chosen" and seg.origin.start == pos(CAPTURED, "set(names)")


@pytest.mark.parametrize("index", [1, 2])
def test_other_defaults_hold_no_order(tmp_path, index):
    assert unordered(probe(tmp_path, CAPTURED, index=index)) == []
