"""PRM302 on requests assembled across methods and sent as `client.messages.create(**request)`
(fixtures/request_dicts; its README says what each module shows): read through a property, a tuple
returned and unpacked, a `|` merge and a helper that adds the tools; not reported where a helper
marks the request; only info where the dict may hold keys the code does not show."""
from __future__ import annotations

from pathlib import Path

from analysis_support import fixture_findings

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "request_dicts"


def _found(tmp_path, name):
    return [(d.code, d.severity.value, d.span.start.row, d.span.start.column, d.message)
            for d in fixture_findings(FIXTURE, name, tmp_path)]


def test_a_request_assembled_by_helper_methods_is_read(tmp_path):
    found = _found(tmp_path, "assembled.py")
    assert [f[:4] for f in found] == [("PRM302", "warning", 32, 29)]  # `request["system"] = system`
    assert found[0][4] == ("Static prefix of about 2,277 tokens reaches the 1,024-token minimum of claude-sonnet-4-5 "
                           "but has no cache breakpoint: it is never cached")


def test_a_request_a_helper_marks_is_not_reported(tmp_path):
    assert _found(tmp_path, "marked.py") == []


def test_a_request_merged_with_keys_not_known_is_only_info(tmp_path):
    found = _found(tmp_path, "unknown_keys.py")
    assert [f[:4] for f in found] == [("PRM302", "info", 16, 87), ("PRM302", "info", 21, 96),
                                      ("PRM302", "info", 24, 70)]
    assert all("a `**mapping` of keys not known is sent with it, and may hold a top-level `cache_control`" in f[4]
               for f in found)


def test_an_attribute_completed_by_key_is_sent_with_its_keys(tmp_path):
    found = _found(tmp_path, "attributes.py")
    # `self.params["system"] = POLICY` in `__init__`: sent by `Assistant.ask`; `CachedAssistant`'s
    # requests carry the `cache_control` that `enable_cache` sets once it has run: nothing there
    assert [f[:4] for f in found] == [("PRM302", "warning", 12, 33)]
