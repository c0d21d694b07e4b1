"""PRM302 at a request whose message list is a parameter of the sending function whatever the
parameter's name (`input`, `batch[1:]`): fixtures/passed_lists (its README says what each module
shows)."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "passed_lists"


def _found(path):
    report = api.check([path], api.Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row, d.message)
            for d in report.diagnostics]


def test_a_list_taken_from_a_parameter_of_any_name_is_sent_with_no_breakpoint():
    found = _found(FIXTURES / "bare")
    assert [f[:4] for f in found] == [
        # `messages=input` through a local `kwargs` dict, the system prompt popped from it
        ("engine.py", "PRM302", "info", 17),
        # `messages=batch[1:]`, `system=batch[0]["content"]`
        ("engine.py", "PRM302", "info", 21),
        # (`Engine.reply` sends `list(self.pending)`: not a parameter, nothing)
        # `messages=input` where a branch rebinds `input` by unpacking it (`input, schema = input`):
        # the callers' list either way
        ("engine.py", "PRM302", "info", 40),
    ]
    assert all(f[4].startswith("Every prompt passed to this function is sent whole as the message list its callers "
                               "give with no cache breakpoint, and no file of the package names one") for f in found)


def test_a_package_that_names_a_breakpoint_key_is_not_reported():
    assert _found(FIXTURES / "marked") == []
