"""Templates kept where their place says prompt, not their name (docs/policies.md, Policy 9):
the module-level templates of a module named for prompts (`planner_prompts.py`, a `prompts/`
folder), whatever their names, and the entries of a prompt registry written at module level
(`PROMPTS["answer"] = \"\"\"...{query}...\"\"\"`) are prompt candidates (python/prompt_modules.py),
judged as any prompt constant: a placeholder before enough static text is reported, one at the
end, before a short tail, or filled with static configuration is not; the same templates in a
module named otherwise are not prompts."""
from __future__ import annotations

import shutil
from pathlib import Path

from promptlint import api
from promptlint.python.prefilter import in_prompt_module, named_for_prompts

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "prompt_modules"


def _check(tmp_path):
    shutil.copytree(FIXTURES, tmp_path / "proj")
    return api.check([tmp_path / "proj"], api.Settings(), jobs=1)


def test_placeholders_before_the_static_text_of_prompt_module_templates_are_reported(tmp_path):
    report = _check(tmp_path)
    got = sorted((d.code, d.severity.value, d.span.filename.split("proj/")[-1],
                  d.span.start.row, d.span.start.column) for d in report.diagnostics)
    assert got == [
        ("PRM101", "info", "app/planner_prompts.py", 7, 24),  # `{task}` of CATEGORIZE_TOOL_REQUEST, before 378 tokens
        ("PRM101", "info", "app/prompts/__init__.py", 19, 1),  # `{query}` of PROMPTS["answer_with_references"]
        ("PRM101", "info", "app/prompts/__init__.py", 63, 1),  # `{domain}` of `extraction_text` (a `prompts/` module)
    ]
    first = next(d for d in report.diagnostics if d.span.filename.endswith("planner_prompts.py"))
    assert "the 378 static tokens after it" in first.message
    assert "of unknown volatility" in first.message  # a placeholder of a template: never a warning alone


def test_the_prompts_of_prompt_modules_are_their_templates_only(tmp_path):
    report = _check(tmp_path)
    where = sorted((p.site.filename.split("proj/")[-1], p.site.start.row, p.source) for p in report.prompts)
    # ANSWER_FORMAT and PROMPTS["answer_query_last"] are prompts without a finding; LABEL_REQUEST
    # (less static text than a candidate needs), GREETING (an f-string of a module constant), MODEL,
    # LOG_LINE, SWE_EXAMPLE (code quoted in an example: its `{}` is no field filled by name),
    # the entry naming `extraction_text`, PROMPTS["greeting_system"] (no value that changes)
    # and all of catalogue.py (not named for prompts) are not prompts
    assert where == [("app/planner_prompts.py", 6, "python-constant"),
                     ("app/planner_prompts.py", 26, "python-constant"),
                     ("app/prompts/__init__.py", 13, "python-constant"),
                     ("app/prompts/__init__.py", 40, "python-constant"),
                     ("app/prompts/__init__.py", 62, "python-constant")]
    assert {p.parts[0].role for p in report.prompts} == {"prompt"}  # where they go in a request is not known


def test_a_module_is_named_for_prompts_by_its_own_name_or_its_folder():
    assert named_for_prompts(Path("app/planner_prompts_v2.py"))
    assert named_for_prompts(Path("fast_graphrag/_prompt.py"))
    assert named_for_prompts(Path("app/prompts/__init__.py"))
    assert named_for_prompts(Path("app/prompts/review.py"))
    assert not named_for_prompts(Path("prompt_toolkit/shortcuts/dialogs.py"))  # the package's name says nothing
    assert not named_for_prompts(Path("promptflow/tools.py"))
    assert not named_for_prompts(Path("my-prompt-app/app.py"))  # a checkout named with the word: not a prompts folder
    assert not named_for_prompts(Path("app/catalogue.py"))
    assert in_prompt_module(Path("app/prompts.py"), 'T = """Task: {task}"""')


def test_text_with_an_empty_field_is_not_a_template_filled_by_name():
    import ast

    from promptlint.python.prompt_modules import filled_by_name
    value = lambda text: ast.parse(text).body[0].value  # noqa: E731
    assert filled_by_name(value('"Task: {task} for {user.name} in {rows[0]}"'))
    assert not filled_by_name(value("""'msg = "must be {} or {}".format(a, b)'"""))
    assert not filled_by_name(value('"{0} then {task}"'))
    assert filled_by_name(value('"Score: {score:.2f} of {total:>8,} ({ratio:{width}})"'))  # format specs
    assert not filled_by_name(value('"counts = {i: 0 for i in range(len(objects))}"'))  # a dict comprehension
    assert not in_prompt_module(Path("app/prompts.py"), 'MODEL = "gpt-4.1"')  # no placeholder: nothing to read
