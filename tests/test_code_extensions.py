"""Source code and markup kept beside prompts is not prompt text (session 29): a LaTeX template and a
pandoc Lua filter under `templates/`, named by the package's Python, were read as system prompts
(lazyllm's writer). The extensions that are never prompt text are one registry
(`promptlint/templates/extensions.py`): programming and shell languages, typeset and styled markup,
grammars, data, binaries. Fixture: fixtures/templates/code_beside_prompts/."""
from __future__ import annotations

from pathlib import Path

import pytest

from promptlint.templates import extensions, file_kind, forget_project_readings

LATEX = Path(__file__).resolve().parents[1] / "fixtures" / "templates" / "code_beside_prompts" / "writer" / \
    "templates" / "latex"


@pytest.fixture(autouse=True)
def fresh_readings():
    forget_project_readings()
    yield
    forget_project_readings()


@pytest.mark.parametrize("name", ["basic_en.tex", "basic_zh.tex", "filters/writer.lua"])
def test_code_and_markup_the_package_names_under_templates_are_not_prompts(name):
    # (main: "prompt-text", judged as a system prompt)
    assert file_kind(LATEX / name) is None


def test_a_text_file_beside_them_stays_a_prompt():
    assert file_kind(LATEX / "outline.txt") == "prompt-text"


def test_the_registry_holds_languages_and_markup_and_leaves_prose_formats_out():
    for suffix in (".lua", ".tex", ".sty", ".bib", ".js", ".rb", ".kt", ".swift", ".php", ".sh", ".css", ".html"):
        assert suffix in extensions.NOT_PROMPT_TEXT, suffix
    for suffix in (".txt", ".md", ".rst", ".prompt", ".xml", ""):
        assert suffix not in extensions.NOT_PROMPT_TEXT, suffix


def test_a_template_of_code_is_not_a_prompt_template():
    assert file_kind(Path("prompts/filter.lua.j2")) is None
    assert file_kind(Path("prompts/report.tex.jinja")) is None
    assert file_kind(Path("prompts/system.md.j2")) == "template"
