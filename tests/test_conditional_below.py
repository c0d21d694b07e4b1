"""PRM104 in prompt text built apart from its request whose static text stays below every minimum
(session 29, lazyllm's review prompts): the message says, as PRM101's does, that the variants
cost something only in a request that sends more, and that alone the prompt stays below the
minimum, instead of promising that each variant caches its static tokens. Fixture:
fixtures/conditional_below/review.py."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "conditional_below" / "review.py"


def test_a_conditional_section_of_a_prompt_below_every_minimum_says_so():
    # (main: "each variant caches the 504 static tokens after it, and whatever the request adds
    # after this prompt (in a chat, the history), separately")
    found = api.check([FIXTURE], api.Settings(), jobs=1).diagnostics
    assert [(d.code, d.severity.value, d.span.start.row, d.span.start.column) for d in found] == [
        ("PRM104", "info", 8, 52)]
    assert found[0].message.endswith(
        ": each variant caches the 504 static tokens after it separately in a request that sends more than this "
        "prompt (static text before it, or a conversation after it); alone, this prompt stays below the "
        "1,024-token minimum of openai:gpt-4.1 whichever variant it holds")
