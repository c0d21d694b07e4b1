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


RESPONSES = FIXTURE.with_name("grok_responses.py")


def test_a_responses_body_posted_with_the_method_named_carries_the_routing_header_of_its_helper():
    # (main: nothing; `client.stream("POST", ...)` was read as a model's stream and a body with
    # `input` and no `messages` was no request). The key enters at the helper's uuid; the one
    # built from the conversation's id, the GET without a body and an embeddings body (`input`
    # alone, posted to no `/responses` URL) are no finding and no request.
    report = api.check([RESPONSES], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row, d.span.start.column) for d in report.diagnostics] == [
        ("PRM306", "error", 15, 49)]
    sends = sorted((p.site.start.row, p.provider, p.api) for p in report.prompts if p.source == "python-call")
    assert sends == [(24, "xai", "http.post (responses.create)"), (30, "xai", "http.post (responses.create)")]
