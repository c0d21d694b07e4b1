"""The first message of a conversation read into a prompt (`history.pop(0)["content"]`, a client's
system message re-sent every turn) is read as `history[0]` is: an early message, of unknown
volatility (info at most; none when only the history follows it), not per-request content; the
newest message read the same way is per-request. Fixtures: fixtures/conversation_heads."""
from __future__ import annotations

from pathlib import Path

from analysis_support import fixture_findings

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "conversation_heads"


def test_only_the_newest_message_read_into_the_system_prompt_is_per_request(tmp_path):
    found = [(d.code, d.severity.value, d.span.start.row, d.message.split(" at token")[0])
             for d in fixture_findings(FIXTURE, "heads.py", tmp_path)]
    early = "(an early message of the conversation `history` (often its system message))"
    assert found == [
        ("PRM101", "info", 26, f'Content of unknown volatility `history[0]["content"]` {early}'),
        ("PRM101", "warning", 32, "Per-request content `history[-1]` (the newest message of the conversation `history`)"),
    ]
