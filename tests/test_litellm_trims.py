"""LiteLLM's `trim_messages(messages, model)` keeps the system messages and the newest others that
fit the model's context: a sliding window of a replayed conversation (PRM105), whatever the
caller's list is named and however it is imported (flow/library._trim_messages); a one-shot
message list it trims is no conversation. The fixture is fixtures/litellm_trims/chat.py."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "litellm_trims" / "chat.py"
SOURCE = FIXTURE.read_text()


def _found(tmp_path, text: str):
    path = tmp_path / "chat.py"
    path.write_text(text)
    return [(d.code, d.severity.value, d.span.start.row, d.span.start.column)
            for d in api.check([path], api.Settings(), jobs=1).diagnostics]


def test_a_conversation_trimmed_by_litellm_is_a_sliding_window(tmp_path):
    assert _found(tmp_path, SOURCE) == [("PRM105", "warning", 16, 20)]


def test_the_same_list_sent_untrimmed_is_clean(tmp_path):
    assert _found(tmp_path, SOURCE.replace("messages = trim(raw_messages, model)", "messages = raw_messages")) == []


def test_a_trim_of_another_library_is_not_litellms(tmp_path):
    # a function of the same name defined in the project is not known to cut anything
    text = SOURCE.replace("        from litellm.utils import trim_messages as trim\n",
                          "        def trim(msgs, model):\n            return msgs\n")
    assert _found(tmp_path, text) == []
