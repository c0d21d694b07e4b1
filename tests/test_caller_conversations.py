"""An item taken by its index from the conversation that several callers hand a converter (one
conversation per caller): the first is an early message (often the system message), not the
user's newest input; the last is the newest message (fixtures/caller_conversations)."""
from __future__ import annotations

from pathlib import Path

from analysis_support import fixture_findings

FIXTURES = Path(__file__).parent.parent / "fixtures" / "caller_conversations"


def test_the_first_message_of_each_callers_conversation_is_no_per_request_content(tmp_path):
    found = [(d.span.start.row, d.severity.value, d.message.split(" at token")[0])
             for d in fixture_findings(FIXTURES, "adapter.py", tmp_path) if d.code == "PRM101"]
    assert found == [
        (15, "info", "Content of unknown volatility `first.content` (an early message of the conversation "
                     "`messages` (often its system message))"),
        (21, "info", "Per-request content `messages[-1]` (the newest message of the conversation `messages`)"),
    ]
