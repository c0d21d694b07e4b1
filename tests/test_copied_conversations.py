"""A message list built with a system message and then a loop that copies each message of a
conversation onto it (`out = []; out.append({"role": "system", ...}); for m in messages: if
"role" in m: out.append({"role": m["role"], "content": m["content"]})`), handed on, returned or
sent: the system message, then the conversation, so what changes in the system message is judged
with the history after it. Loops over other lists (documents) are no conversation. Fixtures under
fixtures/copied_conversations/."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "copied_conversations"


def _found(name: str):
    report = api.check([FIXTURES / name], api.Settings(), jobs=1)
    return sorted((d.span.start.row, d.code, d.severity.value) for d in report.diagnostics), report


def test_a_request_sending_a_copied_conversation_after_a_timestamped_system_message_is_a_warning():
    # (main: no finding at line 10; the list was read as the system message and one message
    # standing for any other, no history after it)
    found, report = _found("requests.py")
    assert found == [(10, "PRM102", "warning"), (19, "PRM101", "info"), (27, "PRM102", "info")]
    [sent] = [p for p in report.prompts if p.site.start.row == 14]
    assert [p.role for p in sent.parts] == ["system", "history"]
    [warning] = [d for d in report.diagnostics if d.span.start.row == 10]
    assert "the 4 static tokens and the conversation history after it are processed uncached" in warning.message


def test_a_copied_conversation_handed_on_or_returned_keeps_its_history():
    found, _ = _found("handed_on.py")
    # handed to a method the analysis does not follow (line 12) and returned (line 24): the time
    # before the history; a list cut back to its system message before it is handed on (line 30)
    # has no history after it: judged as its system text alone, below every minimum (info)
    assert found == [(12, "PRM102", "warning"), (24, "PRM102", "warning"), (30, "PRM102", "info")]
