"""Marks of a prompt file's own syntax that the project's Python replaces with the clock
(templates/replaced_fills.py, fixtures/clock_marks): the mark is a timestamp where it is written,
its precision read from the value that fills it, and the value is the finding's related location."""
from __future__ import annotations

import shutil
from pathlib import Path

from promptlint import api
from promptlint.model import Kind, Precision
from promptlint.templates import replaced_fills

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "clock_marks"


def _check(tmp_path, name):
    shutil.copytree(FIXTURE / name, tmp_path / name)
    replaced_fills._project_fills.cache_clear()
    report = api.check([tmp_path / name], api.Settings(), jobs=1)
    return report


def _found(report):
    return [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row, d.span.start.column,
             [(Path(r.span.filename).name, r.span.start.row, r.span.start.column) for r in d.related])
            for d in report.diagnostics]


def test_the_time_marks_a_handler_fills_are_timestamps_at_the_mark(tmp_path):
    report = _check(tmp_path, "marked")
    assert _found(report) == [
        # `[[NOW]]` in a YAML config prompt, replaced by `datetime.now().isoformat()` (handler.py:30)
        ("analyst.yaml", "PRM102", "warning", 6, 21, [("handler.py", 30, 36)]),
        # `<current_time>`, filled through `f"<{name}>"` over the dict's keys: its `%H:%M:%S` value
        ("system.md", "PRM102", "warning", 2, 41, [("handler.py", 9, 80)])]
    marks = {s.expr: (s.kind, s.precision) for p in report.prompts if p.id.endswith("system.md:1")
             for part in p.parts for s in part.segments if not s.is_static}
    assert marks == {"now.strftime('%Y-%m-%d')": (Kind.TIMESTAMP, Precision.DAY),
                     "now.strftime('%H:%M:%S')": (Kind.TIMESTAMP, Precision.SUB_DAY)}


def test_marks_filled_with_no_clock_or_a_clock_for_another_mark_stay_text(tmp_path):
    report = _check(tmp_path, "plain")
    assert _found(report) == []
    prompt = next(p for p in report.prompts if p.id.endswith("system.md:1"))
    assert all(s.is_static for part in prompt.parts for s in part.segments)
    assert "<birthday>" in "".join(s.text for part in prompt.parts for s in part.segments)


def test_a_text_without_marks_does_not_read_the_project(tmp_path):
    (tmp_path / "handler.py").write_text('x = t.replace("<now>", datetime.now().isoformat())\n')
    replaced_fills._project_fills.cache_clear()
    assert replaced_fills.clock_marks(tmp_path / "p.md", "no marks here {x}") == {}
    assert replaced_fills._project_fills.cache_info().currsize == 0
