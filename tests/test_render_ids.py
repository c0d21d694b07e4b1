"""PRM103: a new id handed to the variables of a prompt rendered by a call whose template is not
read (python/render_ids.py), also made by a helper of the package that draws from an unseeded
random generator (python/converted_ids.py `makes_id`). The fixtures are under fixtures/render_ids/."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.module import load
from promptlint.python.render_ids import render_ids
from promptlint.python.tree import Project

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "render_ids"


def test_a_helper_id_in_a_rendered_prompts_variables_is_info_where_it_is_made():
    report = api.check([FIXTURES], api.Settings(), jobs=1)
    assert [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row, d.span.start.column,
             [r.span.start.row for r in d.related]) for d in report.diagnostics] == [
        ("generate.py", "PRM103", "info", 17, 19, [19])]
    assert report.diagnostics[0].message.startswith(
        "A new id `new_uuid()` is made here and given to the variables the prompt is rendered with")


def test_a_trace_id_and_a_fixed_name_are_no_prompt_variable_id():
    project = Project([FIXTURES])
    path = (FIXTURES / "flows" / "generate.py").resolve()
    module = project.load(path)
    assert [(made.lineno, render.lineno) for made, render in render_ids(module, project)] == [(17, 19)]
    alone = load(path, path.read_text(encoding="utf-8"))
    assert render_ids(alone, None) == []  # the helper is read only through the package tree
