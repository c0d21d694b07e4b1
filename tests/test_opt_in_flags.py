"""PRM302 where caching is opt-in and off by default (fixtures/opt_in_flags; its README says what
each module shows)."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "opt_in_flags"


def _found(path):
    report = api.check([path], api.Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row, d.message)
            for d in report.diagnostics]


def test_breakpoints_behind_a_flag_off_by_default_are_info_where_the_flag_is_read():
    found = _found(FIXTURES / "off")
    assert [f[:4] for f in found] == [
        ("chat.py", "PRM302", "info", 33),  # `self.cache and "claude" in self.model`, stored by `store_attr()`
        ("chat.py", "PRM302", "info", 43),  # `cache=self.cache`, stored by a tuple assignment
        ("client.py", "PRM302", "info", 20),  # a library's message builder, in a patched method
        ("plugin.py", "PRM302", "info", 20),  # `prompt.options.cache`, a field with `Field(default=None)`
    ]
    assert [f[4].split(" is on,")[0] for f in found] == [
        "Cache breakpoints are set here only when `self.cache`",
        "Cache breakpoints are set here only when `self.cache`",
        "Cache breakpoints are set here only when `self.cache`",
        "Cache breakpoints are set here only when `prompt.options.cache`",
    ]
    assert all("caches nothing without one" in f[4] for f in found)


def test_caching_on_by_default_unconditional_automatic_or_not_anthropic_is_not_reported():
    assert _found(FIXTURES / "on") == []
