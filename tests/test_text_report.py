"""The human report's code frame: source lines with a caret under the finding's column; a line
of minified or generated code is cut to a window around the column."""
from __future__ import annotations

from promptlint.model import Diagnostic, Position, Report, Severity, Span
from promptlint.report import text


def finding(row: int, column: int) -> Diagnostic:
    return Diagnostic(code="PRM001", name="syntax-error", severity=Severity.ERROR, message="Cannot analyse",
                      span=Span("app.py", Position(row, column), Position(row, column)))


def frame(lines: list[str], row: int, column: int) -> list[str]:
    return text._frame(finding(row, column), lambda _name, r: lines[r - 1] if r <= len(lines) else None)


def test_a_short_line_is_shown_whole_with_the_caret_under_the_column():
    assert frame(["import os", "x = os.getpid()"], 2, 5) == [
        "    1 | import os", "    2 | x = os.getpid()", "      |     ^"]


def test_a_long_line_is_cut_around_the_column_and_the_caret_stays_under_it():
    line = "x = " + "(" * 5000 + "1" + ")" * 5000
    shown = frame(["import os", line], 2, 4 + 5000 + 1)  # the "1"
    assert len(shown) == 2  # the line before ends left of the window
    body = shown[0].split(" | ", 1)[1]
    assert body.startswith("…") and body.endswith("…") and len(body) == text.FRAME_WIDTH + 2
    caret = shown[1].split("| ", 1)[1]
    assert body[len(caret) - 1] == "1"


def test_a_long_line_with_an_early_column_is_cut_at_the_end_only():
    line = "prompt = f'{now}" + "a" * 500 + "'"
    body, caret = [s.split("| ", 1)[1] for s in frame([line], 1, 12)]
    assert body == line[:text.FRAME_WIDTH] + "…"
    assert body[len(caret) - 1] == "{"


def test_the_rendered_report_never_prints_a_whole_huge_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app.py").write_text("y = [" + "0, " * 10000 + "]\n", encoding="utf-8")
    out = text.render(Report(diagnostics=[finding(1, 20000)], files=1))
    assert "    1 | … 0, 0, 0" in out
    assert max(len(s) for s in out.splitlines()) < 300
