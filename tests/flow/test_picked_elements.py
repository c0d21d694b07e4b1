"""An element picked at random (`random.choice(nodes)`) is a new pick on every call, but what is
read from it (`.code`) or a method of it gives (`.render()`) is that element's content, per
request, not a random value (issue 11: no PRM103 for the code of a node picked to work on); the
pick itself used as text, or a str method of it, stays a random value. An element of a sorted listing (`for p in sorted(dirs)`) is one value with no order of its
own: its text holds no unordered iteration."""
from __future__ import annotations

from analysis_support import probe

PICKED = """
    import random

    def f(nodes, names):
        node = random.choice(nodes)
        probe(node.code)
        probe(random.choice(["short", "long"]))
        probe(random.choice(names).upper())
        probe(node.render(names))
        probe(random.choice(nodes).get("kind"))
"""


def test_what_is_read_from_a_random_pick_is_per_request_content(tmp_path):
    assert probe(tmp_path, PICKED, index=0).described == [("unknown", "per-request", "node.code")]


def test_a_random_pick_itself_is_a_random_value(tmp_path):
    assert probe(tmp_path, PICKED, index=1).described == [("unique-id", "per-request", 'random.choice(["short", "long"])')]
    assert probe(tmp_path, PICKED, index=2).described == [("unique-id", "per-request", "random.choice(names)")]


def test_what_a_method_of_a_random_pick_gives_is_per_request_content(tmp_path):
    # (a unique id before: the pick's random value carried into what the element's method returns)
    found = probe(tmp_path, PICKED, index=3)
    assert found.described == [("unknown", "per-request", "node.render(names)")]
    assert found.segs[0].evidence == "read from call to `random.choice()`: elements picked at random"
    # a method of a picked record (a dict's `get`, `keys`) reads the draw's data: still the draw
    assert [d[:2] for d in probe(tmp_path, PICKED, index=4).described] == [("unique-id", "per-request")]


LISTED = """
    from pathlib import Path

    def f(path):
        dirs = [p for p in Path(path).iterdir() if p.is_dir()]
        out = []
        for p in sorted(dirs):
            out.append(p.name)
        probe("\\n".join(out))
        probe("\\n".join(p.name for p in dirs))
"""


def test_an_element_of_a_sorted_listing_holds_no_order(tmp_path):
    assert [d[0] for d in probe(tmp_path, LISTED, index=0).described] == ["unknown"]


def test_the_listing_itself_keeps_its_order_problem(tmp_path):
    assert [d[0] for d in probe(tmp_path, LISTED, index=1).described] == ["unordered-iteration"]
