"""PRM302 at a request whose system prompt is configuration set elsewhere, whole, sent with no
breakpoint in a package where no file names one (fixtures/configured_system; its README says what
each module shows)."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.model import Kind, Part, Segment, Volatility
from promptlint.python.markers import configured_system

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "configured_system"


def _found(path):
    report = api.check([path], api.Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row, d.message, d.related)
            for d in report.diagnostics]


def test_a_configured_system_prompt_sent_with_no_breakpoint_is_info():
    found = _found(FIXTURES / "bare")
    assert [f[:4] for f in found] == [("agent.py", "PRM302", "info", 20)]
    assert found[0][4].startswith("The system prompt is text set outside the request (`self.config.prompt_preamble`), "
                                  "sent whole on every request with no cache breakpoint, and no file of the package "
                                  "names one")
    assert "its size is not known here" in found[0][4]
    assert [(r.span.start.row, r.message) for r in found[0][5]] == [(23, "the configured system prompt")]


def test_automatic_caching_at_the_top_level_is_not_reported():
    assert _found(FIXTURES / "marked") == []


def _seg(expr, volatility, static=""):
    if static:
        return Segment(text=static)
    return Segment(text="", kind=Kind.UNKNOWN, volatility=volatility, expr=expr)


def test_only_a_system_prompt_named_as_one_and_set_outside_the_request_is_configured():
    stable = Part(role="system", segments=[_seg("self.agent_config.prompt_preamble", Volatility.STABLE)])
    assert configured_system([stable]).expr == "self.agent_config.prompt_preamble"
    attribute = Part(role="system", segments=[_seg("self.system_prompt", Volatility.UNKNOWN)])
    assert configured_system([attribute]).expr == "self.system_prompt"
    parameter = Part(role="system", segments=[_seg("system_prompt", Volatility.UNKNOWN)])
    assert configured_system([parameter]) is None  # a parameter: its callers' (the adapter shape)
    setting = Part(role="system", segments=[_seg("self.config.language", Volatility.STABLE)])
    assert configured_system([setting]) is None  # not named as a prompt
    per_request = Part(role="system", segments=[_seg("self.prompt", Volatility.PER_REQUEST)])
    assert configured_system([per_request]) is None
    own = Part(role="system", segments=[_seg("", None, "You are a careful assistant. " * 10),
                                        _seg("self.config.prompt_preamble", Volatility.STABLE)])
    assert configured_system([own]) is None  # the code's own text: its size is known
    user = Part(role="user", segments=[_seg("self.config.prompt_preamble", Volatility.STABLE)])
    assert configured_system([user]) is None
