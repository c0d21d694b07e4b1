"""A module-level template kept beside its values in one configuration call (`ProfileConfig(
role=DynConfig("ToolMaster", ...), system_prompt_template=_SYSTEM_TEMPLATE)`): the placeholders and
conditions those keywords fill are configured per instance, fixed for its requests
(python/configured_templates.py); fixtures/configured_templates."""
from __future__ import annotations

import ast
from pathlib import Path

from promptlint import api
from promptlint.python.configured_templates import _names, configured_keys
from promptlint.model import Kind, Segment, Volatility

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "configured_templates"


def _findings(name: str):
    report = api.check([FIXTURES / name], api.Settings(), jobs=1)
    return report, [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics]


def test_placeholders_given_fixed_values_beside_the_template_are_not_reported():
    report, found = _findings("profile_config.py")
    assert found == []
    segs = {s.expr: s for l in report.prompts for p in l.parts for s in p.segments if not s.is_static}
    assert segs["role"].volatility is Volatility.STABLE
    assert "configured per instance, fixed for its requests" in segs["role"].evidence
    assert segs["if name"].volatility is Volatility.STABLE
    assert segs["question"].volatility is not Volatility.STABLE  # the request's: kept


def test_a_value_the_caller_computes_beside_the_template_keeps_its_reading():
    _, found = _findings("computed_role.py")
    assert found == [("PRM101", "info", 5)]  # `role`; `if name` (name="ReAct") is configuration


class _Module:
    def __init__(self, src: str):
        self.tree = ast.parse(src)


def test_fixed_values_only_and_one_value_per_keyword():
    keys = configured_keys(_Module(
        "T = '{{ a }}'\nC = 'x'\n"
        "p = Cfg(a='x', b=Dyn(C, key='k'), c=f(user), d='y', template=T)\n"
        "q = Cfg(d='z', template=T)\n"
        "r = Other(e='w')\n"), "T")
    assert sorted(keys) == ["a", "b"]  # c computed, d given two values, e not beside the template
    assert configured_keys(_Module("T = '{{ query }}'\np = Cfg(query='x', template=T)\n"), "T") == {}  # a name that says it changes


def test_the_names_a_placeholder_or_a_condition_reads():
    def seg(kind, expr):
        return Segment(kind=kind, volatility=Volatility.UNKNOWN, expr=expr)
    assert _names(seg(Kind.CONDITIONAL, "if name and not role")) == {"name", "role"}
    assert _names(seg(Kind.TEMPLATE_VARIABLE, "goal | upper")) == {"goal"}
    assert _names(seg(Kind.CONDITIONAL, "if lang == 'en'")) == {"lang"}
