"""Findings a new user's trial judged false or hard to read (fixtures/trial32/), by kind: each kind
has a case whose finding goes (or reads better) and one that is still reported as before."""
from __future__ import annotations

from pathlib import Path

from promptlint.api import check
from promptlint.config import Settings
from promptlint.judged import prompts_analysed

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "trial32"


def _row(path: Path, needle: str, nth: int = 0) -> int:
    return [i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line][nth]


def _found(folder: str):
    result = check([FIXTURES / folder], Settings(), jobs=1)
    return [(d.code, d.severity.value, Path(d.span.filename).name, d.span.start.row) for d in result.diagnostics], \
        result


def test_templates_a_method_chooses_and_the_constructor_fills_are_judged_where_they_are_filled():
    """`self.choose_prompt(spec).format(prompt=spec)` in `__init__`, `spec` made of what the
    instance is built with (typed lists, a class whose `forward(text)` serves calls): both
    templates hold a stable value at `{prompt}`, and neither is judged alone with `{prompt}`
    unknown (two infos before)."""
    found, result = _found("chosen_template")
    assert found == []
    assert len(prompts_analysed(result.prompts)) == 1  # the filled text, where it is filled


def test_templates_a_method_chooses_and_a_call_fills_with_its_input_keep_their_findings():
    app = FIXTURES / "chosen_per_call" / "extractor.py"
    found, _ = _found("chosen_per_call")
    assert found == [("PRM101", "info", "extractor.py", _row(app, "{prompt}", 0)),
                     ("PRM101", "info", "extractor.py", _row(app, "{prompt}", 1)),
                     ("PRM101", "info", "extractor.py", _row(app, "prompt = self.choose_prompt(text)"))]


def test_each_of_two_templates_filled_by_replace_with_settings_is_judged_where_it_is_filled():
    """`choose_prompt().replace("{user_prompt}", f" {self._prompt}")`, `prompt` a keyword of
    `__init__` with a default: the richer (English) template was judged where it is filled, the
    other (Chinese) one alone, its `{user_prompt}` taken by its name for the user's message
    (PRM107 before the history). Both are filled with the same setting now: no finding."""
    found, result = _found("replaced_templates")
    assert found == []
    assert len(prompts_analysed(result.prompts)) == 1  # the filled text, where it is filled


def test_a_choice_between_two_counts_is_named_by_the_placeholder_it_fills():
    """`OUTLINE_PROMPT.format(max_sections=A if agent else B)`: the message named one variant's
    value ("Conditional content `10`"); it names what the code writes there, the variant as a note."""
    tpl = FIXTURES / "counted_sections" / "prompts.py"
    found, result = _found("counted_sections")
    assert found == [("PRM104", "info", "prompts.py", _row(tpl, "{max_sections}"))]
    assert result.diagnostics[0].message.startswith(
        "Conditional content `max_sections` (one variant reads `10`) at token 24 of this prompt")


def test_a_task_before_the_material_it_is_applied_to_is_no_question_before_a_document():
    """`Task: {query}` before `{content}`: the query is the run's task, the same for every resource
    it is applied to, so it belongs first (PRM106 before); the values before the static output
    specification are PRM101's info. `Question: {query}` before the material is still PRM106."""
    tpl = FIXTURES / "task_first" / "prompts.py"
    found, result = _found("task_first")
    assert found == [("PRM101", "info", "prompts.py", _row(tpl, "Task: {query}")),
                     ("PRM106", "info", "prompts.py", _row(tpl, "Question: {query}"))]
    assert result.diagnostics[0].message.startswith("Per-request content `{query}` at token 12 of this prompt")


def test_explain_draws_a_choice_between_counts_at_its_placeholder_with_one_variant(tmp_path, monkeypatch):
    """explain said '^ the value of `10`' under `{max_sections}`: one of two values, as if it were
    the only one."""
    import shutil

    from click.testing import CliRunner

    from promptlint.cli import main
    shutil.copytree(FIXTURES / "counted_sections", tmp_path / "counted_sections")
    monkeypatch.chdir(tmp_path / "counted_sections")
    out = CliRunner().invoke(main, ["explain", "prompts.py:4", "--no-cache"]).output
    lines = [x.strip() for x in out.splitlines()]
    at = next(i for i, x in enumerate(lines) if x.startswith("{max_sections}"))
    assert lines[at + 1] == "^ one variant reads `10`"
