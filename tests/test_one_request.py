"""One fault, one finding (promptlint/dedupe.py): a finding inside another's place, and the sends
of one request (fixtures/one_request: its README says what each file shows)."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.dedupe import NESTED, SENT_TOO, dedupe
from promptlint.model import Diagnostic, Position, Related, Severity, Span

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "one_request"


def _found(name):
    report = api.check([FIXTURES / name], api.Settings(), jobs=1)
    return [(d.code, d.span.start.row, [(r.span.start.row, r.message) for r in d.related if not r.evidence])
            for d in report.diagnostics]


def test_the_sends_of_one_request_built_by_one_helper_are_one_finding():
    assert _found("shared.py") == [("PRM302", 20, [(24, SENT_TOO)])]


def test_sends_that_each_convert_the_conversation_themselves_keep_a_finding_each():
    assert _found("copied.py") == [("PRM302", 16, []), ("PRM302", 25, [])]


def test_sends_whose_function_writes_their_text_are_requests_of_their_own():
    # (one system prompt and one helper's chunks, but each send its own user text)
    assert _found("own_text.py") == [("PRM301", 12, []), ("PRM301", 18, [])]


def test_a_window_read_through_a_method_and_its_count_keyword_are_one_finding():
    [(code, row, related)] = _found("loaded.py")
    assert (code, row, related) == ("PRM105", 26, [(27, NESTED)])


def _d(start, end, severity=Severity.INFO, related=0, code="PRM105"):
    span = Span("a.py", Position(*start), Position(*end))
    return Diagnostic(code=code, name="x", severity=severity, message="m", span=span,
                      related=[Related(span, "the kept sequence sliced here")] * related)


def test_a_stronger_inner_finding_is_kept_and_findings_apart_or_of_another_severity_stay():
    outer, inner = _d((3, 5), (5, 1)), _d((4, 9), (4, 20), related=1)
    [kept] = dedupe([outer, inner])
    assert kept.span == inner.span and [r.message for r in kept.related][-1] == NESTED
    apart = _d((9, 1), (9, 5))
    assert len(dedupe([_d((3, 5), (5, 1)), _d((4, 9), (4, 20), severity=Severity.WARNING), apart])) == 3
    assert len(dedupe([_d((3, 5), (5, 1)), _d((4, 9), (4, 20), code="PRM302")])) == 2
