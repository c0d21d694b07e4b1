"""A block built around a cache breakpoint from an item that may not be a dict (`{**base,
"cache_control": cc}` with `base = last if isinstance(last, dict) else {}`): for a string item it is
the breakpoint alone, the text dropped and the breakpoint lost with it (python/marker_blocks.py,
PRM302 info; fixtures/bare_marks)."""
from __future__ import annotations

from pathlib import Path

from analysis_support import fixture_findings, write

from promptlint.python.marker_blocks import bare_marks
from promptlint.python.module import load

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "bare_marks"


def _found(tmp_path, name):
    return [(d.code, d.severity.value, d.span.start.row, d.span.start.column)
            for d in fixture_findings(FIXTURE, name, tmp_path)]


def test_a_string_item_copied_into_a_marker_block_loses_its_text_and_the_breakpoint(tmp_path):
    assert _found(tmp_path, "tagged.py") == [("PRM302", "info", 17, 23)]
    assert "When `last` is not a dict" in fixture_findings(FIXTURE, "tagged.py", tmp_path)[0].message


def test_a_string_item_made_a_text_block_is_fine(tmp_path):
    assert _found(tmp_path, "tagged_text.py") == []


def test_the_shapes_of_an_item_that_is_empty_unless_a_dict(tmp_path):
    write(tmp_path, {"app.py": '''
        def f(x, cc):
            a = {**(x if isinstance(x, dict) else {}), "cache_control": cc}
            b = {**({} if not isinstance(x, (dict,)) else x), "cachePoint": cc}
            c = {**(x if isinstance(x, dict) else {}), "type": "text", "text": "t", "cache_control": cc}
            d = {**(x or {}), "cache_control": cc}
            e = {**(x if isinstance(x, str) else {}), "cache_control": cc}
            return a, b, c, d, e
    '''})
    path = tmp_path / "app.py"
    found = bare_marks(load(path, path.read_text()))
    assert [(node.lineno, item) for node, item in found] == [(2, "x"), (3, "x")]
