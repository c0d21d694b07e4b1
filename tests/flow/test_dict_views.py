"""A set operation of dict views (`a.keys() - b.keys()`, `a.keys() | b.keys()`, `a.items() &
b.items()`) is a set: iterated into prompt text, its order depends on the hash seed (PRM202,
issue 11). A view iterated as it is keeps the dict's order (a dict of literal keys too), and a
dict merge (`a | b` of dicts) is no set."""
from __future__ import annotations

import pytest
from analysis_support import pos, probe

from promptlint.model import Kind, Volatility

VIEWS = """
    def f(a: dict, b: dict):
        probe(", ".join(a.keys() - b.keys()))
        probe(", ".join(k for k in a.keys() | b.keys()))
        probe(", ".join(a.keys()))
        probe(", ".join(sorted(a.keys() & b.keys())))
        probe(", ".join({"x": "1"} | {"y": "2"}))
        probe("\\n".join(f"{k}: {v}" for k, v in {"Task": a, "Rules": b}.items()))
"""


def unordered(p) -> list:
    return [s for s in p.segs if s.kind is Kind.UNORDERED_ITERATION]


@pytest.mark.parametrize("index,needle", [(0, "a.keys() - b.keys()"), (1, "a.keys() | b.keys()")])
def test_a_set_operation_of_dict_views_is_unordered(tmp_path, index, needle):
    seg, = unordered(probe(tmp_path, VIEWS, index=index))
    assert seg.span.start == pos(VIEWS, needle) and "dict keys" in seg.evidence


@pytest.mark.parametrize("index", [2, 3, 4, 5])
def test_a_view_a_sorted_set_a_dict_merge_and_literal_keys_are_ordered(tmp_path, index):
    assert unordered(probe(tmp_path, VIEWS, index=index)) == []


FILLED = """
    def block(ontology):
        props = {}
        for e in ontology.entities:
            props[e.label] = [(p.name, p.type) for p in e.properties]
        for label, fields in props.items():
            probe(label)
        for label, fields in props.items():
            for name, typ in fields:
                probe(name)
"""


@pytest.mark.parametrize("index,expr", [(0, "e.label"), (1, "p.name")])
def test_a_dict_filled_by_key_in_a_loop_keeps_its_keys_and_values(tmp_path, index, expr):
    """`props[e.label] = [...]` in a loop over a parameter's data: a key or a value read back is that
    data (the parameter, of unknown volatility), not an element of a dict of no known source (which
    the newest user message would take for the request's input: graphrag-sdk's ontology block)."""
    seg, = probe(tmp_path, FILLED, index=index).segs
    assert (seg.kind, seg.volatility, seg.source_name) == (Kind.UNKNOWN, Volatility.UNKNOWN, "ontology")
    assert seg.expr == expr


FILLED_FROM_A_SET = """
    def block(config):
        catalog = {}
        for label in set(config.routes):
            catalog[label] = config.describe(label)
        probe("\\n".join(f"- {label}: {text}" for label, text in sorted(catalog.items())))
        probe("\\n".join(f"- {label}: {text}" for label, text in catalog.items()))
"""


def test_a_dict_filled_in_a_loop_over_a_set_is_unordered_until_its_items_are_sorted(tmp_path):
    # crewai's route catalog: `sorted(catalog.items())` puts it in order; the items as they are
    # keep the set's order
    assert unordered(probe(tmp_path, FILLED_FROM_A_SET, index=0)) == []
    seg, = unordered(probe(tmp_path, FILLED_FROM_A_SET, index=1))
    assert seg.span.start == pos(FILLED_FROM_A_SET, "set(config.routes)")
