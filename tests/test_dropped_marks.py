"""PRM302: a converter into Bedrock Converse blocks that rebuilds a text block from its text only,
naming no breakpoint key, drops the `cache_control` the block may carry (python/dropped_marks.py);
one that carries it over as a `cachePoint`, or keeps the whole block, does not
(fixtures/dropped_marks/)."""
from __future__ import annotations

from pathlib import Path

from promptlint.api import check
from promptlint.config import Settings
from promptlint.python.dropped_marks import dropped_marks, might_drop
from promptlint.python.module import load

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "dropped_marks" / "converse.py"


def test_the_converse_text_block_rebuilt_without_its_breakpoint_is_the_fact():
    module = load(FIXTURE, FIXTURE.read_text())
    assert [(d.lineno, d.col_offset) for d in dropped_marks(module)] == [(26, 23)]


def test_it_is_info_where_the_block_is_rebuilt():
    # (main: nothing)
    result = check([FIXTURE], Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row) for d in result.diagnostics] == [("PRM302", "info", 26)]


def test_a_module_that_names_only_one_formats_breakpoint_is_not_read():
    assert might_drop('x = b["cache_control"]\nconverse = [{"cachePoint": {}}]')
    assert not might_drop('x = b["cache_control"]')  # no Converse breakpoint: another target format
    assert not might_drop('y = {"cachePoint": {"type": "default"}}')  # no Anthropic blocks read
