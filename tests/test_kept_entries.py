"""A request dict rebuilt from its own entries before it is sent (python/flow/kept_entries.py):
fixtures/kept_entries (see its README)."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "kept_entries"


def _found(path):
    report = api.check([path], api.Settings(), jobs=1)
    return report, [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row) for d in report.diagnostics]


def test_a_dict_filtered_of_unset_options_or_of_a_key_is_still_the_request():
    report, found = _found(FIXTURES / "gateway.py")
    assert found == [("gateway.py", "PRM302", "warning", 13), ("gateway.py", "PRM302", "warning", 23)]
    assert report.diagnostics[0].message.startswith("Static prefix of about 2,785 tokens reaches the 1,024-token "
                                                    "minimum of claude-sonnet-4-5 but has no cache breakpoint")


def test_the_rebuilt_request_keeps_its_messages_and_its_breakpoint():
    report, _ = _found(FIXTURES / "gateway.py")
    sent = {p.site.start.row: p for p in report.prompts if p.api == "messages.create"}
    assert sorted(sent) == [20, 26, 36]
    assert [part.role for part in sent[20].parts] == ["system", "history", "user"]
    assert [part.role for part in sent[26].parts] == ["system", "history", "user"]
    assert [len(part.breakpoints) for part in sent[36].parts] == [1, 0, 0]


def test_values_replaced_or_keys_renamed_are_not_the_request():
    _report, found = _found(FIXTURES / "mapped.py")
    assert found == []
