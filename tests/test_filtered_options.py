"""PRM302 at an adapter whose `**mapping` keeps only the sampling options a list names, and whose
callers' prompt arrives as a prompt object turned into text (fixtures/filtered_options; its
README says what each module shows)."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.markers import _whole_parameter

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "filtered_options"


def _found(path):
    report = api.check([path], api.Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row, d.message)
            for d in report.diagnostics]


def test_a_mapping_filtered_to_sampling_options_holds_no_breakpoint():
    found = _found(FIXTURES / "bare")
    assert [f[:4] for f in found] == [
        ("service.py", "PRM302", "info", 22),  # `if k in self.supported_hints` (["temperature"]), `prompt.build()`
        ("service.py", "PRM302", "info", 37),  # a tuple of sampling options at the comprehension, `request.prompt`
        # (`if k in allowed`, a parameter: any key may pass, nothing)
    ]
    assert all(f[4].startswith("Every prompt passed to this function is sent as one user message with no cache "
                               "breakpoint, and no file of the package names one") for f in found)


def test_a_mapping_that_may_keep_a_prompt_key_is_not_reported():
    assert _found(FIXTURES / "wide") == []


def test_a_parameter_turned_into_its_text_is_the_callers_prompt():
    params = {"prompt", "request"}
    assert _whole_parameter("prompt", params)
    assert _whole_parameter("prompt.build()", params)
    assert _whole_parameter("request.prompt", params)
    assert not _whole_parameter("prompt.format(day=today)", params)  # text added to it
    assert not _whole_parameter("self.prompt", params)
    assert not _whole_parameter("other.build()", params)
    assert not _whole_parameter("prompt + suffix", params)
