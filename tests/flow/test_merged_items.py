"""`d |= other` and `d["k"] |= other` merge dicts in place (the right side's keys win, in the
order they come); an in-place `|=` of an attribute or of an item at a key not known leaves the
dict as it was (and reads no further)."""
from __future__ import annotations

from analysis_support import probe

from promptlint.python.flow.values import Mapping

MERGED = """
    class Flags:
        def f(self, extra, key):
            d = {"Intro": "Hello", "Rules": {}}
            d["Rules"] |= {"Format": "Be brief"}
            d["Rules"] |= {"Tone": "Be kind", "Format": "Be very brief"}
            d |= {"Outro": "Bye"}
            self.flags |= {"a": 1}
            d[key] |= {"x": "y"}
            probe(d)
"""


def test_items_merged_in_place_keep_their_order(tmp_path):
    value = probe(tmp_path, MERGED).value
    assert isinstance(value, Mapping) and list(value.items) == ["Intro", "Rules", "Outro"]
    rules = value.items["Rules"]
    assert isinstance(rules, Mapping) and list(rules.items) == ["Format", "Tone"]
    assert rules.items["Format"].segs[0].text == "Be very brief"
