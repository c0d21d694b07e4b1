"""Work the analysis no longer repeats (s23-cpu). Each test pins the work left out, and that
what is found stays the same."""
from __future__ import annotations

from pathlib import Path

from promptlint.python import tree as tree_mod
from promptlint.python.tree import Project


def _modules(tmp_path: Path, count: int, size: int) -> list[Path]:
    paths = []
    for i in range(count):
        path = tmp_path / f"m{i}.py"
        path.write_text(f"X{i} = 1\n" + "# pad\n" * (size // 6), encoding="utf-8")
        paths.append(path)
    return paths


def test_a_trim_that_finds_every_module_pinned_is_not_tried_again_while_nothing_is_unpinned(tmp_path, monkeypatch):
    monkeypatch.setattr(tree_mod, "MAX_CACHED_CHARS", 100)
    paths = _modules(tmp_path, 6, 60)
    project = Project([tmp_path])
    walked = []
    real = Project.trim

    def trim(self, bound=100):
        walked.append(len(self._modules))
        return real(self, bound)

    monkeypatch.setattr(Project, "trim", trim)
    project.start()
    for path in paths:
        project.load(path)
    # past the bound from the second module on: one trim finds both pinned, the later loads trim no more
    assert walked == [2]
    assert len(project._modules) == 6  # the analysis holds them all
    project.finish()  # the analysis is over: its modules may go
    assert walked == [2, 6]
    assert project.cached_chars <= 100
    assert len(project._modules) == 1


def test_a_module_unpinned_by_a_name_search_makes_the_next_load_trim_again(tmp_path, monkeypatch):
    monkeypatch.setattr(tree_mod, "MAX_CACHED_CHARS", 100)
    monkeypatch.setattr(Project.trim, "__defaults__", (100,))
    (tmp_path / "a.py").write_text("A = 1\n" + "# pad\n" * 10, encoding="utf-8")
    (tmp_path / "b.py").write_text("def f():\n    WANTED = 2\n" + "# pad\n" * 10, encoding="utf-8")  # no module-level WANTED
    (tmp_path / "c.py").write_text("C = 3\n" + "# pad\n" * 10, encoding="utf-8")
    (tmp_path / "d.py").write_text("D = 4\n", encoding="utf-8")
    project = Project([tmp_path])
    project.start()
    project.load(tmp_path / "a.py")
    project.load(tmp_path / "c.py")  # over the bound: both pinned, nothing dropped
    assert project._all_pinned
    assert project.definitions("WANTED", tmp_path / "a.py") == []  # b.py read, found nothing: unpinned
    assert not project._all_pinned
    project.load(tmp_path / "d.py")  # a new parse: trims again
    resolved = (tmp_path / "b.py").resolve()
    assert resolved not in project._modules  # dropped by the next trim (nothing of it escaped)


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
