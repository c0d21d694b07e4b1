"""PRM302 facts: a breakpoint set only when the request's headers name the prompt-caching beta
(python/gated_markers.beta_gates; fixtures/beta_gates/tools.py)."""
from pathlib import Path

from promptlint import api
from promptlint.python.gated_markers import beta_gates
from promptlint.python.module import load

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "beta_gates" / "tools.py"


def test_the_test_of_the_beta_header_that_guards_a_breakpoint_is_the_fact():
    module = load(FIXTURE, FIXTURE.read_text())
    # `chat`, not `header_only` (no breakpoint behind its test)
    assert [g.lineno for g in beta_gates(module)] == [7]


def test_it_is_info_at_the_test():
    report = api.check([FIXTURE], api.Settings(), jobs=1)
    found = [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics
             if d.code == "PRM302" and "prompt-caching beta" in d.message]
    assert found == [("PRM302", "info", 7)]
