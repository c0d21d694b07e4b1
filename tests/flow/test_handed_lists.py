"""A list handed to a function of the tree that appends to it (`collect(task, ready)` whose body
runs `ready.append(task)`, a method's `out.extend(xs)`, an appending loop) holds what it appends
after the call (flow/handed.py), never the empty list it was made as: its text is not empty and
a test of it (`if not ready: return ""`) is not decided. A helper that appends to a copy it makes
leaves the list as it was."""
from __future__ import annotations

from analysis_support import probe

HANDED = """
    def fill(out, xs):
        for x in xs:
            out.append(x)


    def copy_fill(out, xs):
        out = list(out)
        out.append(xs[0])


    class Collector:
        def add(self, out, xs):
            out.extend(xs)

        def section(self, xs):
            found = []
            self.add(found, xs)
            probe(found)


    def ready(xs):
        out = []
        fill(out, xs)
        probe(out)
        probe("Tasks: " + "\\n".join(out))
        kept = []
        copy_fill(kept, xs)
        probe(kept)
"""


def test_a_list_a_helper_appends_to_holds_what_it_appends(tmp_path):
    # (the empty list `[]` before)
    assert probe(tmp_path, HANDED, index=1).described == [("unknown", "unknown", "x")]
    assert probe(tmp_path, HANDED, index=2).described == [("text", "Tasks: "), ("unknown", "unknown", '"\\n".join(out)')]


def test_a_list_a_method_extends_holds_its_items(tmp_path):
    assert probe(tmp_path, HANDED, index=0).described == [("unknown", "unknown", "xs")]


def test_a_helper_that_appends_to_a_copy_leaves_the_list_as_it_was(tmp_path):
    assert probe(tmp_path, HANDED, index=3).described == [("text", "[]")]
