"""Work the analysis no longer repeats (s23-cpu). Each test pins the work left out, and that
what is found stays the same."""
from __future__ import annotations


def test_the_impacts_of_a_layout_count_the_tokens_before_each_cut_once(monkeypatch):
    from promptlint import impact
    from promptlint.estimates import estimate
    from promptlint.model import Kind, Part, Position, PromptLayout, Segment, Span, Volatility
    from promptlint.profiles import apply_overrides

    def span(row: int) -> Span:
        return Span("app.py", Position(row, 1), Position(row, 10))

    segs = []
    for i in range(6):  # static text, then a value of each request, six times over
        segs.append(Segment(text=f"Step {i}: answer about the order politely and cite its number. " * 20, span=span(2 * i + 1)))
        segs.append(Segment(kind=Kind.USER_INPUT, volatility=Volatility.PER_REQUEST, expr=f"v{i}", span=span(2 * i + 2)))
    apply_overrides([])
    layout = PromptLayout(id="app.py:1", site=span(1), provider="openai", model="gpt-4.1", source="python-call",
                          parts=[Part("system", segs), Part("user", [Segment(text="Go.", span=span(20))])])
    layout.estimates = estimate(layout)
    asked = []
    real = impact.tokens_before

    def counting(lay, cut, *rest):
        asked.append(cut)
        return real(lay, cut, *rest)

    monkeypatch.setattr(impact, "tokens_before", counting)
    found = impact.impacts(layout, remember=False)
    assert [(f.seg.expr, f.first, f.static_after, f.between) for f in found] == [
        ("v0", True, 1407, 5), ("v1", False, 1126, 4), ("v2", False, 845, 3), ("v3", False, 564, 2),
        ("v4", False, 283, 1), ("v5", False, 2, 0)]
    assert len(asked) == len(set(asked))  # each cut counted once (it was asked for again for every later value)
