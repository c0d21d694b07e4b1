"""Values that reach a prompt through a container step the evaluator reads (fixtures/container_hops):
the parts of a prompt joined after `filter(None, parts)` drops the missing ones, names bound from
a nested tuple target (`turns, (opened, width) = restore(log)`), and a record handed in whose keys
the code sets with `update({...})` before spreading it into a template (`T.format(**fields)`)."""
from __future__ import annotations

from pathlib import Path

from analysis_support import fixture_findings

FIXTURES = Path(__file__).parent.parent / "fixtures" / "container_hops"


def _found(name, tmp_path):
    return [(d.code, d.severity.value, d.span.start.row, d.message.split(" at token")[0])
            for d in fixture_findings(FIXTURES, name, tmp_path)]


def test_a_set_joined_into_parts_kept_by_filter_is_reported_and_its_sorted_twin_is_not(tmp_path):
    assert _found("joined_parts.py", tmp_path) == [
        ("PRM202", "warning", 9, "Prompt text built from `{kind for _, kind in pairs}` (a set comprehension: "
                                 "iteration order depends on the hash seed)"),
    ]


def test_a_clock_unpacked_from_a_nested_tuple_is_a_timestamp_and_fixed_texts_are_clean(tmp_path):
    # (the second function unpacks two constants the same way: nothing changes, nothing to report)
    assert _found("nested_unpack.py", tmp_path) == [
        ("PRM102", "warning", 22, "Timestamp `time.time()` (sub-day precision)"),
    ]


def test_keys_set_on_a_record_handed_in_are_known_where_it_fills_a_template(tmp_path):
    # the id set by `update` before the guide is reported; the template that puts it last is clean
    assert _found("updated_record.py", tmp_path) == [
        ("PRM103", "warning", 9, "Unique id `uuid.uuid4().hex`"),
    ]


def test_rows_gathered_for_a_set_and_zipped_with_it_keep_its_order_and_no_fix_splits_the_pairs(tmp_path):
    found = [(d.code, d.span.start.row, d.fix is not None)
             for d in fixture_findings(FIXTURES, "gathered_rows.py", tmp_path)]
    # the set zipped with its rows: reported where it is made, no fix (sorting one side of a zip
    # pairs names with other rows); the rows alone: at the iteration gather runs, sorted there;
    # the sorted names zipped with their rows: nothing (the pairs' text is known, not "unknown")
    assert found == [("PRM202", 16, False), ("PRM202", 25, True)]
