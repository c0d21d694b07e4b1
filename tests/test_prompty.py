"""Prompty files (`.prompty`, promptlint/templates/prompty.py): found anywhere as their own kind,
front matter read as configuration (provider, model, thread inputs), the Jinja2 body split into
messages at role-marker lines, malformed front matter a one-line PRM001 while the run goes on.
Fixtures: fixtures/prompty/project (a clean chat in the project root, a system prompt stamped with
the time before 1,700 static tokens under prompts/, one with front matter only, one with broken
front matter, a thread input under app/flows/)."""
from __future__ import annotations

from pathlib import Path

import pytest

from promptlint import api
from promptlint.discovery import discover
from promptlint.discovery import file_kind as discovered_kind
from promptlint.model import Kind
from promptlint.suppress import file_kind as comment_kind
from promptlint.templates import PromptFileError, file_kind, layouts_for_file
from promptlint.templates.prompty import FrontMatterError, model_facts, split_front_matter

PROJECT = Path(__file__).resolve().parent.parent / "fixtures" / "prompty" / "project"


def _layouts(tmp_path: Path, text: str, name: str = "x.prompty"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return layouts_for_file(path, name, text)


def _roles(layout) -> list[str]:
    return [p.role for p in layout.parts]


def _texts(part) -> str:
    return "".join(s.text if s.kind is None else f"<{s.expr}>" for s in part.segments)


# ---------------------------------------------------------------- discovery
def test_a_prompty_file_is_its_own_kind_in_the_root_under_prompts_and_anywhere():
    assert file_kind(Path("chat.prompty")) == "prompty"
    assert file_kind(Path("prompts/chat.prompty")) == "prompty"
    assert file_kind(Path("src/app/flows/Answer.PROMPTY")) == "prompty"
    # globs that would make it a plain template or prompt text do not take it
    assert file_kind(Path("prompts/chat.prompty"), ["prompts/**"], ["prompts/**"]) == "prompty"
    assert discovered_kind(Path("chat.prompty")) == "prompty"
    # not a prompty: other names stay what they were
    assert file_kind(Path("prompty.md")) is None
    assert file_kind(Path("chat.prompt")) == "prompt-text"


def test_discovery_finds_every_prompty_file_of_the_project():
    found = sorted(p.relative_to(PROJECT).as_posix() for p in discover([PROJECT]) if p.suffix == ".prompty")
    assert found == ["app/flows/answer.prompty", "chat.prompty", "prompts/broken.prompty",
                     "prompts/settings_only.prompty", "prompts/stamped.prompty"]


def test_comments_in_a_prompty_file_are_jinja_comments():
    assert comment_kind("chat.prompty") == "jinja"
    assert comment_kind("chat.prompt") is None


# ---------------------------------------------------------------- the fixtures, checked
@pytest.fixture(scope="module")
def report():
    return api.check([PROJECT], api.Settings(select=["ALL"]), jobs=1)


def _layout(report, name):
    return next(lay for lay in report.prompts if _named(lay.id, f"{name}:1"))


def _named(filename: str, name: str) -> bool:
    return filename == name or filename.endswith(f"/{name}")


def test_the_clean_chat_in_the_project_root_is_system_history_user_with_no_finding(report):
    layout = _layout(report, "chat.prompty")
    assert _roles(layout) == ["system", "history", "user"]
    assert layout.newest_user == 2
    assert (layout.provider, layout.model, layout.source) == ("openai", "gpt-4.1", "template")
    system = _texts(layout.parts[0])
    assert system.startswith("You are the support assistant of Acme Cloud.")
    assert "name:" not in system and "sample" not in system and "system:" not in system
    history = layout.parts[1].segments
    assert [(s.kind, s.expr, s.name_only) for s in history] == [(Kind.HISTORY, "for item in chat_history", True)]
    assert [(s.kind, s.expr) for s in layout.parts[2].segments] == [(Kind.USER_INPUT, "question")]
    assert [d for d in report.diagnostics if _named(d.span.filename, "chat.prompty")] == []


def test_a_time_before_a_long_static_system_text_is_a_warning_at_its_placeholder(report):
    layout = _layout(report, "prompts/stamped.prompty")
    assert _roles(layout) == ["system", "user"]  # `SYSTEM:` and `User:`: any case
    assert (layout.provider, layout.model) == ("openai", "gpt-4.1")
    found = [(d.code, d.severity.value, d.span.start.row, d.span.start.column)
             for d in report.diagnostics if _named(d.span.filename, "prompts/stamped.prompty")]
    assert found == [("PRM102", "warning", 13, 15)]
    message = next(d.message for d in report.diagnostics if d.code == "PRM102")
    assert "at token 4 of this prompt" in message and "1,731 static tokens after it" in message


def test_front_matter_only_is_no_prompt_and_no_finding(report):
    assert not [lay for lay in report.prompts if "settings_only.prompty" in lay.id]
    assert [d for d in report.diagnostics if _named(d.span.filename, "prompts/settings_only.prompty")] == []


def test_broken_front_matter_is_one_line_prm001_and_the_run_goes_on(report):
    errors = [d for d in report.diagnostics if _named(d.span.filename, "prompts/broken.prompty")]
    assert [(d.code, d.span.start.row) for d in errors] == [("PRM001", 6)]
    assert errors[0].message == ("Cannot analyse this file: front matter is not valid YAML: "
                                 "did not find expected ',' or ']'")
    assert "\n" not in errors[0].message
    assert any(d.code == "PRM102" for d in report.diagnostics)  # the other files were checked


def test_a_thread_input_of_the_front_matter_is_the_history(report):
    layout = _layout(report, "app/flows/answer.prompty")
    assert _roles(layout) == ["system", "history", "user"]
    assert (layout.provider, layout.model) == (None, "gpt-4o")
    [seg] = layout.parts[1].segments
    assert (seg.kind, seg.expr, seg.name_only) == (Kind.HISTORY, "conversation", False)


# ---------------------------------------------------------------- the body's messages
def test_markers_are_whole_lines_any_case_with_hash_or_arguments(tmp_path):
    [layout] = _layouts(tmp_path, "---\nname: x\n---\nYou are terse.\n# User:\nHi {{ name }}\n"
                                  'assistant[name="bot"]:\nHello.\nuser:\n{{ q }} user:\nTOOL :\nok\n')
    assert _roles(layout) == ["system", "user", "assistant", "user", "tool"]
    assert _texts(layout.parts[0]) == "You are terse.\n"
    assert _texts(layout.parts[3]) == "<q> user:\n"  # not alone on its line: text
    # spans stay the file's own rows and columns
    assert layout.parts[1].segments[1].span.start.row == 6 and layout.parts[1].segments[1].span.start.column == 4
    assert layout.newest_user == 3


def test_no_marker_is_one_system_message_and_no_front_matter_is_allowed(tmp_path):
    [layout] = _layouts(tmp_path, "Summarise: {{ text }}\n")
    assert _roles(layout) == ["system"] and layout.newest_user is None


def test_a_loop_writing_messages_of_examples_is_of_unknown_role_and_the_text_after_takes_its_last_role(tmp_path):
    text = ("---\nname: x\n---\nsystem:\nClassify.\n{% for ex in examples %}\nuser:\n{{ ex.q }}\nassistant:\n"
            "{{ ex.a }}\n{% endfor %}\nA closing note.\nuser:\n{{ question }}\n")
    [layout] = _layouts(tmp_path, text)
    assert _roles(layout) == ["system", "unknown", "assistant", "user"]
    assert layout.parts[1].segments[0].kind is Kind.TEMPLATE_VARIABLE
    assert _texts(layout.parts[2]).strip() == "A closing note."


def test_a_loop_of_dynamic_roles_over_a_history_and_a_thread_marker_are_history_parts(tmp_path):
    text = ("system:\nBe kind.\n{% for m in chat_history %}\n{{ m.role }}:\n{{ m.content }}\n{% endfor %}\n"
            "![thread]\nuser:\n{{ question }}\n")
    [layout] = _layouts(tmp_path, text)
    assert _roles(layout) == ["system", "history", "history", "user"]
    assert [s.expr for p in layout.parts[1:3] for s in p.segments] == ["for m in chat_history", "![thread]"]
    # a loop without markers stays in its message
    [plain] = _layouts(tmp_path, "system:\nRules:\n{% for r in rules %}- {{ r }}\n{% endfor %}\nuser:\n{{ q }}\n")
    assert _roles(plain) == ["system", "user"]
    assert [s.kind for s in plain.parts[0].segments] == [None, Kind.TEMPLATE_VARIABLE, None]


def test_a_volatile_call_in_the_body_is_classified_as_in_any_template(tmp_path):
    [layout] = _layouts(tmp_path, "system:\nToday is {{ now() }}.\nYou help.\n")
    assert [(s.kind, s.expr) for s in layout.parts[0].segments if s.kind is not None] == [(Kind.TIMESTAMP, "now()")]


def test_a_mustache_body_is_read_with_plain_placeholders(tmp_path):
    [layout] = _layouts(tmp_path, "---\ntemplate:\n  format:\n    kind: mustache\n---\nsystem:\nHi {{name}}\n"
                                  "{{#items}}x{{/items}}\nuser:\n{{question}}\n")
    assert _roles(layout) == ["system", "user"]


def test_a_jinja_syntax_error_of_the_body_is_located_in_the_file(tmp_path):
    with pytest.raises(PromptFileError) as exc:
        _layouts(tmp_path, "---\nname: x\n---\nsystem:\n{% if x %}\nno end\n")
    assert exc.value.row == 5  # the `{% if %}` left open, at its row of the file
    assert str(exc.value).startswith("template syntax error:")


# ---------------------------------------------------------------- front matter
def test_front_matter_errors():
    with pytest.raises(FrontMatterError) as exc:
        split_front_matter("---\nname: x\nsystem:\nhi\n")
    assert (exc.value.row, exc.value.message) == (
        1, "front matter opened by `---` at line 1 is never closed by a `---` line")
    with pytest.raises(FrontMatterError) as exc:
        split_front_matter("---\n- a\n- b\n---\nhi\n")
    assert exc.value.message == "front matter is not a YAML mapping (a list)"
    levels = ["l0: &l0 [" + ", ".join(["x"] * 10) + "]"]
    levels += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]" for i in range(1, 7)]
    with pytest.raises(FrontMatterError) as exc:  # aliases that expand to millions of nodes: refused
        split_front_matter("---\n" + "\n".join(levels) + "\n---\nhi\n")
    assert exc.value.message.startswith("front matter: YAML document too large once its aliases are expanded")
    assert split_front_matter("\n---\nname: x\n---\nhi\n").body_row == 5
    assert split_front_matter("hi\n---\n").body_row == 1  # a rule of text later is no front matter
    assert split_front_matter("---\n---\nhi\n").data == {}


def test_model_facts_name_only_what_is_known():
    assert model_facts({"model": {"configuration": {"type": "azure_openai", "azure_deployment": "gpt-4o-mini"}}}) == (
        "azure-openai", None)  # a deployment's name is no model name
    assert model_facts({"model": {"id": "claude-sonnet-4-5", "provider": "anthropic"}}) == ("anthropic", "claude-sonnet-4-5")
    assert model_facts({"model": {"configuration": {"type": "openai", "name": "${env:MODEL}"}}}) == ("openai", None)
    assert model_facts({"model": {"configuration": {"type": "serverless", "model": "phi-3"}}}) == (None, "phi-3")
    assert model_facts({"model": "gpt-4o"}) == (None, "gpt-4o")
    assert model_facts({}) == (None, None)


def test_a_suppression_comment_in_the_body_silences_its_finding(tmp_path):
    rules = "\n".join(f"Rule {i}: answer billing question {i} with the plan limits and the price table." for i in range(80))
    text = f"---\nname: s\n---\nsystem:\nNow: {{{{ current_time }}}}\n{rules}\nuser:\n{{{{ q }}}}\n"
    (tmp_path / "a.prompty").write_text(text, encoding="utf-8")
    (tmp_path / "b.prompty").write_text(text.replace("}}\n", "}} {# promptlint: ignore[PRM102] #}\n", 1),
                                        encoding="utf-8")
    found = api.check([tmp_path], api.Settings(), jobs=1).diagnostics
    assert sorted((d.span.filename.rsplit("/", 1)[-1], d.code) for d in found) == [("a.prompty", "PRM102")]
