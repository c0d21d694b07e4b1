"""PRM306: xAI's cache-routing header `x-grok-conv-id` is read where requests carry it: an SDK's
per-request `extra_headers` and the `headers=` of a posted request (any case); a fresh uuid there is
an unstable key, a conversation's id is not. Fixture: fixtures/cache_key_headers/grok.py."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "cache_key_headers" / "grok.py"


def test_a_new_uuid_in_the_routing_header_is_an_unstable_key_and_a_conversation_id_is_not():
    # (main: nothing; only `prompt_cache_key` was read)
    report = api.check([FIXTURE], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row, d.span.start.column) for d in report.diagnostics] == [
        ("PRM306", "error", 16, 59), ("PRM306", "error", 22, 52)]
