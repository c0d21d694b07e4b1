"""Fan-out (python/fanout.py, PRM106 from the callers' evidence): a function that writes a value
differing between its calls before one its calls share (the same diff, manual or document with
another instruction each) is reported where the differing value enters the text; the shared
value first, one call, calls that exclude each other, a shared literal, the user's message, and
a text joined into one request are not. fixtures/fanout."""
from __future__ import annotations

import json
from pathlib import Path

from promptlint import api
from promptlint.cache.codec import decode, encode
from promptlint.model import Fanout, Position, Span

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "fanout"


def _check(name: str):
    return api.check([FIXTURES / name], api.Settings(), jobs=1)


def _found(name: str, code: str = "PRM106") -> list[tuple[str, str, int, str]]:
    report = _check(name)
    return [(d.span.filename.rsplit("/", 1)[-1], d.severity.value, d.span.start.row, d.message)
            for d in report.diagnostics if d.code == code]


def test_a_goal_written_before_the_diff_each_call_of_a_loop_shares_through_wrappers():
    found = _found("review")
    assert [(f, sev, row) for f, sev, row, _ in found] == [("goals.py", "info", 8)]
    message = found[0][3]
    assert "`goal` comes before `git_diff`" in message
    assert "`request_goal` is called once per element of a loop (line 16)" in message
    assert "its size is not known here" in message
    report = _check("review")
    fan = next(p for p in report.prompts if p.fanouts).fanouts[0]
    assert (fan.builder, fan.varying_name, fan.shared_name, fan.how, fan.shared_expr) == (
        "request_goal", "goal", "git_diff", "loop", "git_diff")
    assert fan.varying.start.row == 8 and fan.shared.start.row == 10 and fan.evidence.start.row == 16


def test_two_calls_of_one_function_with_the_same_document_and_another_instruction():
    found = _found("calls.py")
    assert [(sev, row) for _, sev, row, _ in found] == [("info", 7)]
    assert "2 calls of `ask` in one function (from line 12) pass the same `document`" in found[0][3]


def test_a_shared_document_whose_whole_text_is_known_and_large_is_a_warning():
    found = _found("same_document.py")
    assert [(sev, row) for _, sev, row, _ in found] == [("warning", 9)]
    assert "(its 2,438 tokens)" in found[0][3]


def test_a_loop_value_before_text_every_pass_shares_stays_prm101s_finding():
    assert _found("methods.py") == []
    assert [(sev, row) for _, sev, row, _ in _found("methods.py", "PRM101")] == [("info", 3)]


def test_no_finding_without_a_fan_out():
    # document first; one call per branch, per try and handler; literal documents; the user's
    # message; a text joined into one request
    report = _check("clean.py")
    assert [d for d in report.diagnostics if d.code in ("PRM106", "PRM101")] == []
    assert all(not p.fanouts for p in report.prompts)


def test_a_fanout_survives_the_cache_codec():
    span = Span("a.py", Position(3, 1), Position(3, 7))
    fan = Fanout(varying=span, shared=span, builder="ask", varying_name="goal", shared_name="doc", how="calls",
                 evidence=span, shared_expr="doc", calls=2, shared_tokens=None, part=1, at=2)
    assert decode(Fanout, json.loads(json.dumps(encode(fan)))) == fan
