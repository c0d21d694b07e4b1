"""One diagnostic per root cause (promptlint/dedupe.py, DESIGN.md Policy 8): typed fields decide,
never the wording of a message."""
from __future__ import annotations

from promptlint.dedupe import dedupe
from promptlint.model import Diagnostic, Position, Related, Severity, Span
from promptlint.rules import rule_by_code


def diag(code: str, row: int = 3, severity: Severity = Severity.WARNING, message: str = "m",
         name_only: bool = False, related: int = 0) -> Diagnostic:
    at = Span("a.py", Position(row, 5), Position(row, 9))
    return Diagnostic(code=code, name=rule_by_code(code).name, severity=severity, message=message, span=at,
                      name_only=name_only, related=[Related(at, "value produced here")] * related)


def test_specificity_is_a_rule_attribute_and_the_most_specific_rule_wins():
    assert [rule_by_code(c).specificity for c in ("PRM102", "PRM103", "PRM203", "PRM201", "PRM104", "PRM106",
                                                  "PRM101")] == [0, 0, 0, 1, 2, 3, 4]
    assert rule_by_code("PRM305").specificity is None
    kept = dedupe([diag("PRM101"), diag("PRM102"), diag("PRM305"), diag("PRM101", row=9)])
    assert [(d.code, d.span.start.row) for d in kept] == [("PRM102", 3), ("PRM305", 3), ("PRM101", 9)]


def test_for_one_rule_at_one_place_evidence_beats_a_name_whatever_the_messages_say():
    guess = diag("PRM102", message="a much longer message that does not say where its evidence came from",
                 name_only=True)
    fact = diag("PRM102", message="only the name `now` suggests it")  # wording is not evidence
    assert dedupe([guess, fact]) == [fact]
    assert dedupe([diag("PRM102", severity=Severity.INFO), diag("PRM102", message="w")])[0].message == "w"
    assert dedupe([diag("PRM102"), diag("PRM102", related=1)])[0].related


def test_places_a_finding_only_names_are_no_evidence():
    # a PRM101 finding names the later values it stands for (evidence=False): that is not more
    # evidence about its own value than the other finding's `value produced here`
    at = Span("a.py", Position(3, 5), Position(3, 9))
    named = diag("PRM101", message="m")
    named = Diagnostic(code="PRM101", name=named.name, severity=Severity.INFO, message="a longer message", span=at,
                       related=[Related(Span("a.py", Position(r, 1), Position(r, 9)), "a later value", evidence=False)
                                for r in (5, 7)])
    made = Diagnostic(code="PRM101", name=named.name, severity=Severity.INFO, message="m", span=at,
                      related=[Related(Span("a.py", Position(1, 1), Position(1, 9)), "value produced here")])
    assert dedupe([named, made]) == [made] and dedupe([made, named]) == [made]


def test_one_finding_reached_from_several_requests_is_reported_once():
    at = Span("a.py", Position(21, 5), Position(21, 9))
    sends = [Related(Span("a.py", Position(r, 9), Position(r, 30)), "sent here") for r in (11, 13, 17)]
    found = [Diagnostic(code="PRM302", name="missing-cache-breakpoint", severity=Severity.INFO, message="m", span=at,
                        related=[s]) for s in sends]
    kept = dedupe(found)
    assert len(kept) == 1 and [r.span.start.row for r in kept[0].related] == [11]  # the first send call


def test_one_value_entering_one_prompt_at_several_places_is_one_finding():
    """A helper's `json.dumps` whose result enters one prompt's text at three calls: one finding, the
    most severe then the first, naming the other places; another prompt's, or another origin's, stay."""
    origin = Span("gen.py", Position(50, 42), Position(50, 60))

    def placed(row, severity=Severity.INFO, prompt="p.py:103", at=origin):
        span = Span("gen.py", Position(row, 16), Position(row, 30))
        return Diagnostic(code="PRM201", name="unsorted-json-dumps", severity=severity, message="m", span=span,
                          prompt=prompt, related=[Related(at, "value produced here")])
    other = Span("gen.py", Position(60, 1), Position(60, 9))
    found = dedupe([placed(116), placed(111), placed(113, Severity.WARNING), placed(114, prompt="q.py:9"),
                    placed(120, at=other)])
    assert [(d.span.start.row, d.severity.value, [r.span.start.row for r in d.related]) for d in found] == [
        (113, "warning", [50, 111, 116]), (114, "info", [50]), (120, "info", [60])]


def test_a_loop_several_prompts_reach_keeps_the_places_each_only_names():
    """PRM202 `merges_named`: of its findings at one place (a helper's loop that several prompts
    reach), the strongest is kept with the places the others only name (a caller's `list(s)`,
    evidence=False); their own evidence (where their value is produced) is not added."""
    at = Span("a.py", Position(3, 5), Position(3, 9))

    def found(severity, made_row, listed_row):
        return Diagnostic(code="PRM202", name="unordered-iteration-in-prompt", severity=severity, message="m", span=at,
                          related=[Related(Span("b.py", Position(made_row, 1), Position(made_row, 9)), "value produced here"),
                                   Related(Span("c.py", Position(listed_row, 1), Position(listed_row, 9)), "made a list here",
                                           evidence=False)])

    assert rule_by_code("PRM202").merges_named and not rule_by_code("PRM202").merges_related
    kept = dedupe([found(Severity.INFO, 4, 20), found(Severity.WARNING, 4, 10)])
    assert [(k.severity, [(r.span.filename, r.span.start.row) for r in k.related]) for k in kept] == [
        (Severity.WARNING, [("b.py", 4), ("c.py", 10), ("c.py", 20)])]
    kept = dedupe([found(Severity.WARNING, 4, 10), found(Severity.WARNING, 6, 20)])
    assert [(r.span.filename, r.span.start.row) for r in kept[0].related] == [("b.py", 4), ("c.py", 10), ("c.py", 20)]
