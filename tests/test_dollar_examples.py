"""A `{...}` in a prompt constant is a template variable only where something can fill it (session 29,
agent-framework's security instructions: `write_file(content="${var_abc123}")  # wrong syntax`, an
example in the text, was read as a variable of unknown volatility, PRM101). A `${var}` is
string.Template's (or a shell's, JavaScript's) syntax: a variable only where the module fills the
constant with `string.Template` or `.format`. A text with a field no `.format(...)` can fill (a
JSON example written unescaped) keeps its `{field}`s: such texts are filled by `.replace(...)`.
Fixtures under fixtures/dollar_examples/."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "dollar_examples"


def _found(name: str):
    report = api.check([FIXTURES / name], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row, d.span.start.column) for d in report.diagnostics]


def test_a_dollar_example_in_plain_text_is_text():
    # (main: PRM101 info at 37:22, "template variable `var_abc123`")
    assert _found("plain.py") == []


def test_a_json_example_beside_a_field_keeps_the_field_a_variable():
    # such templates are filled by `.replace("{" + name + "}", value)` (crawl4ai): the field stays
    assert _found("json_example.py") == [("PRM101", "info", 35, 79)]


def test_a_dollar_field_the_module_substitutes_stays_a_variable():
    assert _found("substituted.py") == [("PRM101", "info", 4, 29)]
