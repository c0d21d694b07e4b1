"""PRM302: a converter that rebuilds a typed content block as a new dict of some of its fields
drops the breakpoint a caller put on it: where the target is a Claude request and the converter
carries none (`rebuilt_marks`), or where another branch of it carries the block's breakpoint and
this one does not (`branch_marks`); a converter that copies the breakpoint or the whole block, one
that writes OpenAI's format, or one that converts a response's blocks, is not one
(python/rebuilt_blocks.py, fixtures/rebuilt_blocks/)."""
from __future__ import annotations

from pathlib import Path

from promptlint.api import check
from promptlint.config import Settings
from promptlint.python.module import load
from promptlint.python.rebuilt_blocks import flattened_contents, might_rebuild, rebuilt_blocks

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "rebuilt_blocks"


def _facts(name: str):
    path = FIXTURES / name
    rebuilt, branch = rebuilt_blocks(load(path, path.read_text()))
    return [(d.lineno, d.col_offset) for d in rebuilt], [(d.lineno, d.col_offset) for d in branch]


def test_a_text_block_rebuilt_for_claude_without_its_breakpoint_is_the_fact():
    # convert_part only: convert_kept copies cache_control, convert_copied spreads the block,
    # response_text converts a response's blocks
    assert _facts("claude_adapter.py") == ([(11, 15)], [])


def test_a_converter_into_openai_format_is_not_one():
    assert _facts("openai_target.py") == ([], [])


def test_a_branch_that_drops_what_the_others_carry_is_the_fact():
    # format_content's image branch; format_all carries it in every branch, to_responses copies
    # the block it does not rebuild and carries no breakpoint anywhere, to_openai_message puts the
    # tool call it rebuilds elsewhere than the blocks that keep theirs
    assert _facts("branches.py") == ([], [(19, 29)])


def test_a_branch_that_writes_a_type_picked_among_strings_is_the_fact():
    # format_blocks's image branch (`{"type": doc_type, ...}`, `doc_type` "document" or "image");
    # not format_passed_type's, whose type is the block's own field (what it is, is not known)
    # (main: nothing)
    assert _facts("picked_types.py") == ([], [(18, 23)])


def _flattened(name: str):
    path = FIXTURES / name
    return [(c.lineno, c.col_offset) for c in flattened_contents(load(path, path.read_text()))]


def test_a_message_rebuilt_with_its_blocks_joined_for_a_request_that_may_go_to_claude_is_the_fact():
    # chat_completions only: count_words joins the text for no message
    assert _flattened("gateway.py") == [(11, 31)]


def test_it_is_not_where_no_request_can_go_to_claude():
    assert _flattened("local_gateway.py") == []


def test_they_are_info_where_the_block_is_rebuilt():
    # (main: nothing)
    result = check([FIXTURES], Settings(), jobs=1)
    assert [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row) for d in result.diagnostics] == [
        ("branches.py", "PRM302", "info", 19), ("claude_adapter.py", "PRM302", "info", 11),
        ("gateway.py", "PRM302", "info", 11), ("picked_types.py", "PRM302", "info", 18)]
    assert "copies no `cache_control`" in next(d.message for d in result.diagnostics if "claude" in d.span.filename)


def test_the_cheap_test():
    assert might_rebuild('import anthropic\nif b["type"] == "text": pass')
    assert might_rebuild('if b.get("type") == "text": _apply_cache_breakpoint(b, x)')
    assert not might_rebuild('import anthropic\nx = 1')  # no type test
    assert not might_rebuild('if b["type"] == "text": pass')  # no Claude SDK, no breakpoint word
