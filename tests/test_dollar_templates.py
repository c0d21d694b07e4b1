"""Prompt templates written with string.Template's `$name` placeholders (python/dollar_templates.py,
Policy 9): a prompt-named constant, a template of a module named for prompts, or a class attribute
of a prompt class (`template_en` of `OpenIETriplePrompt(PromptABC)`) is a template whose `$`
placeholders are filled per render when a module that fills text with `string.Template` fills it
(names the constant, or defines the class's base); then a placeholder before enough static text is
reported as any template's is. Where no such module fills it (a tree that never uses
string.Template, or one that fills only other text), a `$word` is text and such a class attribute
is no prompt."""
from __future__ import annotations

import ast
import shutil
from pathlib import Path

from promptlint import api
from promptlint.python.dollar_templates import dollar_fields, dollar_first, dollar_template, prompt_class

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "dollar_templates"


def _check(tmp_path, name):
    shutil.copytree(FIXTURES / name, tmp_path / name)
    report = api.check([tmp_path / name], api.Settings(), jobs=1)
    found = sorted((d.code, d.severity.value, d.span.filename.split(f"{name}/")[-1], d.span.start.row,
                    d.span.start.column) for d in report.diagnostics)
    return report, found


def test_dollar_placeholders_before_static_text_are_reported_where_the_tree_fills_them(tmp_path):
    report, found = _check(tmp_path, "filled")
    assert found == [
        ("PRM101", "info", "kg/prompts/answer.py", 3, 1),  # `$docs` before 319 static tokens ("{{i.output}}" is text)
        ("PRM101", "info", "kg/triple.py", 8, 15),  # `$input` of the prompt class's template, before 488 tokens
    ]
    by_file = {d.span.filename.split("filled/")[-1]: d for d in report.diagnostics}
    assert "`$input` (template variable `input`)" in by_file["kg/triple.py"].message
    assert "the 488 static tokens after it" in by_file["kg/triple.py"].message
    assert "the 319 static tokens after it" in by_file["kg/prompts/answer.py"].message
    # the report layout (not a prompt class), the price (`US$5`) and the tools prompt (its `${var_abc123}`
    # an example: report.py fills only its own page with string.Template) are no prompts
    assert sorted(p.site.filename.split("filled/")[-1] for p in report.prompts) == ["kg/prompts/answer.py",
                                                                                   "kg/triple.py"]


def test_dollar_words_are_text_in_a_tree_that_never_fills_string_templates(tmp_path):
    report, found = _check(tmp_path, "unfilled")
    # the class attribute is no prompt; the answer template is read as written otherwise (its
    # `{{i.output}}` as a Jinja placeholder, as before), never at `$docs`
    assert found == [("PRM101", "info", "kg/prompts/answer.py", 7, 64)]
    assert [p.site.filename.split("unfilled/")[-1] for p in report.prompts] == ["kg/prompts/answer.py"]
    assert "$docs" not in report.diagnostics[0].message


def test_which_literals_are_dollar_templates():
    value = lambda text: ast.parse(text).body[0].value  # noqa: E731
    assert dollar_template(value('"Input: $input, outline: ${current_outline}"'))
    assert not dollar_template(value('"The plan costs US$5 a month, a$b is code"'))
    assert not dollar_template(value('"Escaped: $$input"'))
    assert not dollar_template(value('f"{x} $y"'))  # an f-string: built in place, not a template
    assert dollar_fields("$a and ${b} but $$c") == ["a", "b"]
    assert dollar_first('Docs: $docs, "{{i.output}}" is the ith answer')
    assert not dollar_first("{{ a }} {{ b }} cost $5 and $x")  # a Jinja template quoting a `$` word


def test_a_prompt_class_is_named_so_or_derives_from_one():
    cls = lambda text: ast.parse(text).body[0]  # noqa: E731
    assert prompt_class(cls("class OpenIETriplePrompt(Base): pass"))
    assert prompt_class(cls("class Outline(kag.interface.PromptABC): pass"))
    assert not prompt_class(cls("class ReportLayout(Page): pass"))
