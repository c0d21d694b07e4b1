"""PRM302 facts: a converter that feeds LiteLLM and hands a content block to a library function that
rebuilds it from its data alone drops the block's cache breakpoint (python/library_blocks.py;
fixtures/library_blocks/)."""
from pathlib import Path

from promptlint import api
from promptlint.python.library_blocks import library_blocks, might_rebuild_blocks
from promptlint.python.module import load

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "library_blocks"


def _found(name: str):
    path = FIXTURES / name
    return [(n.lineno, n.col_offset) for n in library_blocks(load(path, path.read_text()))]


def test_a_block_rebuilt_by_the_library_for_litellm_is_the_fact():
    # convert_content's call; not convert_carried (it copies the block's cache_control over)
    assert _found("gateway.py") == [(10, 24)]


def test_a_converter_for_a_target_that_takes_no_cache_control_is_not():
    assert _found("openai_target.py") == []


def test_it_is_info_at_the_call():
    # (main: nothing)
    report = api.check([FIXTURES], api.Settings(), jobs=1)
    found = [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row) for d in report.diagnostics
             if d.code == "PRM302"]
    assert found == [("gateway.py", "PRM302", "info", 10)]
    assert "feeds LiteLLM" in next(d.message for d in report.diagnostics if d.code == "PRM302")


def test_the_cheap_test():
    assert might_rebuild_blocks("import litellm\nconvert_to_openai_data_block(b)")
    assert not might_rebuild_blocks("convert_to_openai_data_block(b)")
