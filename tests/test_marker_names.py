"""PRM302 names the breakpoint marker of the request's own API, in its message and its help line
(promptlint/marker_names.py; fixtures/marker_names: its README says what each package shows)."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.marker_names import breakpoint_advice, no_breakpoint, unplaced
from promptlint.model import PromptLayout, Position, Span

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "marker_names"


def _prm302(name):
    report = api.check([FIXTURES / name], api.Settings(), jobs=1)
    return [(d.span.start.row, d.message, d.advice) for d in report.diagnostics if d.code == "PRM302"]


def test_a_converse_request_is_told_of_cachepoint_blocks_in_its_message_and_help():
    [(row, message, advice)] = _prm302("converse")
    assert row == 10
    assert message.endswith("a `cachePoint` block after the system prompt (and one after the last message) would "
                            "cache them")
    assert advice == "Add a `cachePoint` block after the static prefix (and one after the last message)"
    assert "cache_control" not in message + advice


def test_a_messages_api_request_is_told_of_cache_control():
    [(row, message, advice)] = _prm302("messages")
    assert row == 15
    assert "a `cache_control` on the system block" in message
    assert advice == "Add `cache_control` at the end of the static prefix"


def test_a_fact_of_the_module_is_helped_by_the_fix_its_message_ends_with():
    [(row, message, advice)] = _prm302("gate")
    assert row == 13
    assert message.endswith("; turn `self.cache_system_prompt` on by default")
    assert advice == "Turn `self.cache_system_prompt` on by default"


def _layout(api_name, **kw):
    at = Position(1, 1)
    return PromptLayout(id="x.py:1", site=Span("x.py", at, at), source="python-call", provider="bedrock",
                        api=api_name, **kw)


def test_every_phrase_that_names_a_marker_follows_the_api():
    converse, messages = _layout("converse_stream"), _layout("messages.create")
    assert no_breakpoint(converse) == "no `cachePoint` block"
    assert no_breakpoint(messages) == "no `cache_control` breakpoint"
    assert "cachePoint" in unplaced(converse) and "cache_control" not in unplaced(converse)
    assert "cache_control" in unplaced(_layout("messages.create", unplaced_markers=True))
    assert breakpoint_advice(_layout("completions")).startswith("Send it to the Messages API")
    assert breakpoint_advice(_layout("chat.completions.create", openai_compat=True)).startswith(
        "Send it with the Anthropic SDK")


def test_claude_on_bedrock_is_told_of_block_breakpoints_and_the_claude_api_of_a_top_level_one_too():
    from dataclasses import replace

    from promptlint.marker_names import blocks_only, shared_breakpoint, system_breakpoint
    from promptlint.rules._breakpoint_places import fix_phrase

    bedrock = _layout("invoke_model")
    claude_api = replace(bedrock, provider="anthropic", api="messages.create")
    assert blocks_only(bedrock) and not blocks_only(claude_api) and not blocks_only(_layout("converse"))
    assert system_breakpoint(bedrock) == "a `cache_control` on the system block"
    assert shared_breakpoint(bedrock) == "a `cache_control` on a block that ends the text the prompts share"
    assert fix_phrase(bedrock) == "a `cache_control` on the last block of the last message would cache it"
    assert system_breakpoint(claude_api) == "a `cache_control` on the system block, or a top-level one,"
    assert fix_phrase(claude_api).startswith("a top-level `cache_control` (automatic caching)")
