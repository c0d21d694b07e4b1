"""A template written as a Python string literal and rendered as Jinja (`env.from_string(text)
.render(ctx)`) is reported at the literal's own file, row and column plus the placeholder's
offset inside it (Policy 8: where the value enters the prompt text), also when a helper of
another module renders it; and every finding over the fixtures points at a row of its file that
holds text (never a row number counted inside a template laid over another file)."""
from __future__ import annotations

from pathlib import Path

import pytest

from analysis_support import write
from fixture_reports import folder_report

from promptlint.api import check

ROOT = Path(__file__).resolve().parent.parent
HELPER = ROOT / "fixtures/template_locations/helper_render"


def test_template_rendered_by_a_helper_of_another_module_is_placed_in_its_literal(monkeypatch):
    monkeypatch.chdir(HELPER)
    found = [d for d in check(["."]).diagnostics if d.code == "PRM101"]
    assert [(d.span.filename, d.span.start.row, d.span.start.column) for d in found] == [
        ("pkg/summarize.py", 8, 60)]
    lines = (HELPER / "pkg/summarize.py").read_text().splitlines()
    assert lines[7][59:].startswith("{{ instructions }}")
    later = [r for r in found[0].related if "later value" in r.message]
    assert [(r.span.filename, r.span.start.row, r.span.start.column) for r in later] == [
        ("pkg/summarize.py", 11, 1)]
    assert lines[10] == "{{ document }}"


SAME_MODULE = {
    "app/__init__.py": "",
    "app/llm.py": '''
        def call_model(model, messages):
            from .gateway import gateway_client
            return gateway_client().complete(model=model, messages=messages)
    ''',
    "app/summarize.py": '''
        from jinja2 import Environment

        from .llm import call_model

        RULES = "Keep every number and name exactly as written; one fact a sentence; no lists. " * 20


        def summarize(document, config):
            instructions = Environment().from_string(config["prompt"]).render(input=document)
            text = "Summarize\\tthe document below following these instructions: {{ instructions }}\\n" \\
                "The document:\\n{{ document }}\\n" + RULES
            prompt = Environment().from_string(text).render(instructions=instructions, document=document)
            return call_model(config["model"], [{"role": "user", "content": prompt}])
    ''',
}


def test_template_joined_from_escaped_literals_is_placed_in_each_literal(tmp_path, monkeypatch):
    """Escapes (`\\t`, `\\n`) and a literal continued on the next line: each placeholder at the
    characters of the literal that writes it."""
    write(tmp_path, SAME_MODULE)
    monkeypatch.chdir(tmp_path)
    found = [d for d in check(["."]).diagnostics if d.code == "PRM101"]
    assert len(found) == 1
    lines = (tmp_path / "app/summarize.py").read_text().splitlines()
    d = found[0]
    assert d.span.filename == "app/summarize.py"
    assert lines[d.span.start.row - 1][d.span.start.column - 1:].startswith("{{ instructions }}")
    later = [r for r in d.related if "later value" in r.message]
    assert len(later) == 1
    row, col = later[0].span.start.row, later[0].span.start.column
    assert lines[row - 1][col - 1:].startswith("{{ document }}")


def _fixture_roots() -> list[Path]:
    """Each project folder of the fixtures that holds Python files (one level under a group)."""
    out = []
    for group in sorted((ROOT / "fixtures").iterdir()):
        if group.is_dir() and group.name not in ("fix_equivalence", "trace"):
            out.extend(sorted(p for p in group.iterdir() if p.is_dir() and any(p.rglob("*.py"))))
    return out


@pytest.mark.parametrize("root", _fixture_roots(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_finding_points_at_text_of_its_file(root):
    """A finding's location and related locations are rows and columns that exist in their file
    and are not blank there (a position counted inside a template but shown on another file lands
    on an import line or beyond the file's end)."""
    for d in folder_report(root).diagnostics:
        for span in [d.span, *(r.span for r in d.related)]:
            path = root / span.filename
            if not path.is_file() or span.start.row == 0:
                continue
            lines = path.read_text(errors="replace").splitlines() or [""]
            assert 1 <= span.start.row <= len(lines), (d.code, span)
            line = lines[span.start.row - 1]
            assert span.start.column <= len(line) + 1, (d.code, span)
            if d.code != "PRM001":
                assert line[span.start.column - 1:].strip() or line.strip(), (d.code, span)
