"""Per-call content merged into the system block that carries the cache breakpoint: written into
its text in place (`system[-1]["text"] += ...`: flow/keyed_targets.path_binding, the `setpath`
binding), by replacing the block with a copy, or by a helper that rebuilds the list around a slice
of it (`[*system[:-1], {...}]`: flow/values.sublist reads a slice of a list written out, outside a
loop, as those items). The breakpoint then closes per-request content (PRM305); a block of its own
after the marked one, or static text added to it, is fine (fixtures/merged_instructions)."""
from __future__ import annotations

import shutil
from pathlib import Path

from analysis_support import probe, segs

from promptlint import api

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "merged_instructions"


def _found(tmp_path, name):
    for f in (name, "policy.py"):
        shutil.copy(FIXTURE / f, tmp_path / f)
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics]


def test_the_time_merged_into_the_marked_block_moves_the_breakpoint_after_it(tmp_path):
    assert _found(tmp_path, "in_place.py") == [
        ("PRM305", "warning", 12), ("PRM102", "warning", 13),   # `system[-1]["text"] += ...`
        ("PRM305", "warning", 19), ("PRM102", "warning", 20),   # `system[-1] = {**system[-1], "text": ...}`
        ("PRM102", "warning", 27), ("PRM305", "warning", 31)]   # `[*system[:-1], {**last, "text": ...}]`


def test_the_time_in_a_block_of_its_own_or_static_text_merged_is_fine(tmp_path):
    assert _found(tmp_path, "apart.py") == []


def _value(tmp_path, body, index=0):
    return probe(tmp_path, "def f(extra, xs):\n" + body, index=index).value


def test_an_item_written_through_constant_keys_is_read_back(tmp_path):
    value = _value(tmp_path, '''
    blocks = [{"type": "text", "text": "A"}, {"type": "text", "text": "B"}]
    blocks[-1]["text"] += extra
    blocks[0] = {"type": "text", "text": "C"}
    blocks[1]["title"] = "T"
    probe(blocks)
''')
    assert [segs(b.items["text"].segs) for b in value.items] == [
        [("text", "C")], [("text", "B"), ("unknown", "unknown", "extra")]]
    assert segs(value.items[1].items["title"].segs) == [("text", "T")]


def test_a_list_of_other_origin_or_written_in_a_loop_is_left_as_it_was(tmp_path):
    grown = _value(tmp_path, '''
    blocks = []
    blocks.append({"type": "text", "text": "A"})
    blocks[-1]["text"] += extra
    probe(blocks)
''')
    assert segs(grown.items[0].items["text"].segs) == [("text", "A")]  # a list grown by appends: not followed
    looped = _value(tmp_path, '''
    blocks = [{"type": "text", "text": "A"}]
    for x in xs:
        blocks[-1]["text"] += x
    probe(blocks)
''')
    assert segs(looped.items[0].items["text"].segs) == [("text", "A")]


def test_a_slice_of_a_list_written_out_is_its_items_and_in_a_loop_a_list_of_them(tmp_path):
    body = '''
    blocks = ["A", "B", "C"]
    probe(blocks[:-1])
    probe(blocks[1:])
    probe(blocks[::2])
    for x in xs:
        probe(blocks[:-1])
'''
    found = [_value(tmp_path, body, i) for i in range(4)]
    assert [[segs(i.segs)[0][1] for i in v.items] for v in found] == [["A", "B"], ["B", "C"], ["A", "C"],
                                                                      ["A", "B", "C"]]
    assert [v.repeated for v in found] == [False, False, False, True]
