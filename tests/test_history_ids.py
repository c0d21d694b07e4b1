"""PRM103: a converter of the whole conversation that makes a new id or a temporary file's random
name for each message it walks and puts it in what it returns (python/converted_ids.py,
`history_ids`). The fixtures are under fixtures/history_ids/."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.history_ids import CONVERTS_HISTORY, history_ids
from promptlint.python.module import load

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "history_ids"


def _report(name):
    report = api.check([FIXTURES / name], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related], d.message)
            for d in report.diagnostics]


def test_a_uuid_file_name_per_message_of_a_sent_conversion_is_a_warning_with_the_request_related():
    (code, severity, row, related, message), = _report("responses_thread.py")
    assert (code, severity, row, related) == ("PRM103", "warning", 25, [51])
    assert "each time `to_input_items` converts the conversation (`chat_history`)" in message


def test_a_temporary_file_name_written_into_a_deep_copy_of_each_message_is_info_when_not_sent():
    (code, severity, row, related, message), = _report("media_chat.py")
    assert (code, severity, row, related) == ("PRM103", "info", 17, [])
    assert message.startswith("A new random file name `tempfile.NamedTemporaryFile(")


def test_ids_kept_on_the_callers_messages_or_only_logged_are_no_fact():
    for name, expected in (("responses_thread.py", ["to_input_items"]), ("media_chat.py", ["attach_media"])):
        module = load(FIXTURES / name, (FIXTURES / name).read_text(encoding="utf-8"))
        assert CONVERTS_HISTORY.search(module.source) is not None
        assert [f[1] for f in history_ids(module, None, [])] == expected
