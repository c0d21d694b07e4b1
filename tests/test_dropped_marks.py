"""PRM302: a converter into Bedrock Converse blocks that rebuilds a text block from its text only,
naming no breakpoint key, drops the `cache_control` the block may carry (python/dropped_marks.py);
one that carries it over as a `cachePoint`, or keeps the whole block, does not
(fixtures/dropped_marks/)."""
from __future__ import annotations

from pathlib import Path

from promptlint.api import check
from promptlint.config import Settings
from promptlint.python.dropped_marks import dropped_marks, names_marker, writes_converse
from promptlint.python.module import load

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "dropped_marks" / "converse.py"


def test_the_converse_text_block_rebuilt_without_its_breakpoint_is_the_fact():
    module = load(FIXTURE, FIXTURE.read_text())
    assert [(d.lineno, d.col_offset) for d in dropped_marks(module)] == [(26, 23)]


def test_it_is_info_where_the_block_is_rebuilt():
    # (main: nothing)
    result = check([FIXTURE], Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row) for d in result.diagnostics] == [("PRM302", "info", 26)]


def test_a_module_is_read_when_it_writes_converse_blocks():
    assert writes_converse('converse = [{"cachePoint": {}}]')
    assert writes_converse('{"toolResult": {"toolUseId": i}}')
    assert not writes_converse('x = b["cache_control"]')  # no Converse block: another target format
    assert names_marker("x = b['cache_control']")
    assert not names_marker("cache_control = True")


PACKAGES = FIXTURE.parent


def _package(tmp_path, name: str) -> Path:
    """A copy of the fixture package `name` alone in a folder (no other file of the tree is its)."""
    folder = tmp_path / "src" / name
    folder.mkdir(parents=True)
    for source in (PACKAGES / name).glob("*.py"):
        (folder / source.name).write_text(source.read_text())
    return folder


def test_a_converse_adapter_is_read_when_another_file_of_its_package_reads_the_breakpoints(tmp_path):
    # (main: nothing, the module names neither breakpoint key)
    result = check([_package(tmp_path, "read_elsewhere")], Settings(), jobs=1)
    assert [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row) for d in result.diagnostics] == [
        ("bedrock_utils.py", "PRM302", "info", 8)]


def test_it_is_not_when_no_file_of_its_package_reads_one(tmp_path):
    assert check([_package(tmp_path, "unread")], Settings(), jobs=1).diagnostics == []
