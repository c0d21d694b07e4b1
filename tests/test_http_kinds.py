"""What is not a prompt: a body with `instructions` posted to a URL whose host the code writes and
whose path is not the Responses API's (a Zapier action, crewai-tools' zapier_adapter) is another
service's request; Python that generates the source of a tokenizer's chat template (Jinja that
singles out the system message, mistral-common's template generator) is not prompt text; a Jinja
template that renders a grammar for constrained decoding
(`base_grammar.lark.jinja`, mistral-common) is not text the model reads. A Responses body posted to
`/responses`, or to a URL the code does not write, is still read. Fixtures under fixtures/http_kinds/."""
from __future__ import annotations

import shutil
from pathlib import Path

from promptlint import api
from promptlint.templates import file_kind

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "http_kinds"


def _prompts(path: Path):
    report = api.check([path], api.Settings(), jobs=1)
    return [(Path(p.site.filename).name, p.site.start.row, p.api) for p in report.prompts]


def test_instructions_posted_to_another_services_url_is_no_request():
    # (main: read as an OpenAI Responses request, named in every run's summary as holding no text)
    assert _prompts(FIXTURES / "zapier.py") == []


def test_a_responses_body_posted_to_responses_or_an_unknown_url_is_still_read():
    assert _prompts(FIXTURES / "responses.py") == [("responses.py", 7, "http.post (responses.create)"),
                                                   ("responses.py", 12, "http.post (responses.create)")]


def test_a_template_that_renders_a_grammar_is_not_a_prompt(tmp_path):
    # (main: counted as a prompt template)
    assert file_kind(Path("data/base_grammar.lark.jinja")) is None
    assert file_kind(Path("prompts/system.md.j2")) == "template"
    shutil.copytree(FIXTURES / "grammar", tmp_path / "grammar")
    assert _prompts(tmp_path / "grammar") == []


def test_python_that_generates_a_chat_templates_source_is_not_a_prompt(tmp_path):
    # (main: `_generate_system_prompt_handling` was a prompt, its Jinja source drawn as a system part)
    shutil.copytree(FIXTURES / "chat_template", tmp_path / "chat_template")
    assert _prompts(tmp_path / "chat_template") == []
