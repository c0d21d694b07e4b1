"""POML files (`.poml`, promptlint/templates/poml.py): found anywhere as their own kind, markup
translated into a template of the same rows, messages cut by speaker, embeds read without reading
what they name, `<!-- -->` suppression comments. Fixtures: fixtures/poml/project (a clean trip
planner in the root, a billing prompt stamped with the time before about 1,400 static tokens
under prompts/, an element never closed under app/)."""
from __future__ import annotations

from pathlib import Path

import pytest

from promptlint import api
from promptlint.discovery import discover
from promptlint.discovery import file_kind as discovered_kind
from promptlint.model import Kind, Volatility
from promptlint.suppress import file_kind as comment_kind
from promptlint.templates import PromptFileError, file_kind, layouts_for_file

PROJECT = Path(__file__).resolve().parent.parent / "fixtures" / "poml" / "project"


def _parts(tmp_path: Path, text: str) -> list[tuple[str, list]]:
    """(role, [static text, its blanks collapsed | (kind, volatility, expr)]) per Part of the one layout."""
    path = tmp_path / "x.poml"
    path.write_text(text, encoding="utf-8")
    [layout] = layouts_for_file(path, "x.poml", text)
    return [(p.role, [" ".join(s.text.split()) if s.kind is None else (s.kind, s.volatility, s.expr)
                      for s in p.segments if s.kind is not None or s.text.strip()]) for p in layout.parts]


# ---------------------------------------------------------------- discovery
def test_a_poml_file_is_its_own_kind_anywhere_and_its_comments_are_xml_comments():
    assert file_kind(Path("chat.poml")) == "poml"
    assert file_kind(Path("src/app/Agent.POML")) == "poml"
    assert file_kind(Path("prompts/chat.poml"), ["prompts/**"], ["prompts/**"]) == "poml"  # globs do not take it
    assert discovered_kind(Path("chat.poml")) == "poml"
    assert comment_kind("prompts/chat.poml") == "xml"
    assert file_kind(Path("poml.md")) is None
    found = sorted(p.relative_to(PROJECT).as_posix() for p in discover([PROJECT]) if p.suffix == ".poml")
    assert found == ["app/broken.poml", "chat.poml", "prompts/support.poml"]


# ---------------------------------------------------------------- speakers
def test_unlabelled_content_is_one_human_message(tmp_path):
    assert _parts(tmp_path, "<poml><role>Guide.</role><p>Plan {{ city }}.</p></poml>") == [
        ("user", ["Guide. Plan", (Kind.TEMPLATE_VARIABLE, Volatility.UNKNOWN, "city"), "."])]


def test_message_components_and_speaker_attributes_cut_the_messages(tmp_path):
    assert _parts(tmp_path, "<poml><system-msg>Be brief.</system-msg><user-msg>{{ question }}</user-msg>"
                            "<ai-msg>Sure.</ai-msg></poml>") == [
        ("system", ["Be brief."]), ("user", [(Kind.USER_INPUT, Volatility.PER_REQUEST, "question")]),
        ("assistant", ["Sure."])]
    # the default speaker is system until a human speaks; unlabelled text after that is human's
    assert _parts(tmp_path, '<poml><p>Rules.</p><p speaker="human">Hi</p><p>More</p><p speaker="ai">Ok</p></poml>') == [
        ("system", ["Rules."]), ("user", ["Hi", "More"]), ("assistant", ["Ok"])]
    # a speaker is inherited by the element's children
    assert _parts(tmp_path, '<poml><p>Rules.</p><section speaker="ai"><p>A</p><p>B</p></section></poml>') == [
        ("system", ["Rules."]), ("assistant", ["A B"])]


# ---------------------------------------------------------------- values and statements
def test_let_values_are_static_and_javascript_expressions_keep_their_first_name(tmp_path):
    assert _parts(tmp_path, "<poml><let name=\"greeting\" value=\"'Hello'\" /><p>{{greeting}} there</p>"
                            "<let name=\"who\">Alice</let><p>{{ who }}, {{ n > 1 ? n : one }} items</p></poml>") == [
        ("user", ["Hello", "there", "Alice", ",", (Kind.TEMPLATE_VARIABLE, Volatility.UNKNOWN, "n"), "items"])]


def test_for_and_if_attributes_are_a_loop_and_a_conditional_section(tmp_path):
    [(role, segs)] = _parts(tmp_path, '<poml><list><item for="rule in rules">{{ rule }}</item></list>'
                                      '<p if="!hidden &amp;&amp; show">A</p><p if="!hidden && show">B</p></poml>')
    assert role == "user"
    assert segs[0] == (Kind.TEMPLATE_VARIABLE, Volatility.UNKNOWN, "for rule in rules")
    # `&amp;&amp;` is `&&`, and JavaScript's operators are written as jinja2's
    assert segs[1:] == [(Kind.CONDITIONAL, Volatility.UNKNOWN, "if not hidden and show")] * 2


def test_a_caption_with_an_expression_is_prompt_text(tmp_path):
    assert _parts(tmp_path, '<poml><task caption="Task #{{index}}">Do it.</task></poml>') == [
        ("user", [(Kind.TEMPLATE_VARIABLE, Volatility.UNKNOWN, "index"), "Do it."])]


def test_embeds_a_named_file_a_fetched_page_and_a_value(tmp_path):
    [(_, segs)] = _parts(tmp_path, '<poml><document src="faq.pdf"/><img src="{{ photo }}"/>'
                                   '<webpage url="https://example.com/news"/><p>Q</p></poml>')
    assert segs == [(Kind.UNKNOWN, Volatility.STABLE, "faq.pdf"),
                    (Kind.TEMPLATE_VARIABLE, Volatility.UNKNOWN, "photo"),
                    (Kind.UNKNOWN, Volatility.UNKNOWN, "https://example.com/news"), "Q"]


def test_styles_runtime_options_and_comments_are_not_prompt_text(tmp_path):
    assert _parts(tmp_path, '<poml><!-- {{ secret }} --><stylesheet>{ "p": {{ style }} }</stylesheet>'
                            '<runtime model="gpt-4o"/><p>Only this {% raw %}</p></poml>') == [
        ("user", ["Only this { % raw %}"])]  # a Jinja delimiter in POML text is text


def test_an_element_never_closed_is_a_syntax_error_at_its_row(tmp_path):
    path = tmp_path / "x.poml"
    text = "<poml>\n  <list>\n    <item for=\"s in steps\">{{ s }}\n"
    with pytest.raises(PromptFileError) as exc:
        layouts_for_file(path, "x.poml", text)
    assert (exc.value.row, exc.value.message) == (3, "`<item>` with `for`, `if` or `<let>` content is never closed")


def test_rows_and_columns_are_the_files(tmp_path):
    path = tmp_path / "x.poml"
    text = "<poml>\n  <role>Now: {{ current_time }}.</role>\n</poml>\n"
    [layout] = layouts_for_file(path, "x.poml", text)
    [seg] = [s for p in layout.parts for s in p.segments if s.kind is not None]
    assert (seg.span.start.row, seg.span.start.column) == (2, 14)


# ---------------------------------------------------------------- the project, end to end
@pytest.fixture(scope="module")
def report():
    return api.check([PROJECT], api.Settings(select=["ALL"]), jobs=1)


def _name(d) -> str:
    return Path(d.span.filename).relative_to(PROJECT).as_posix() if Path(d.span.filename).is_absolute() \
        else d.span.filename.split("project/", 1)[-1]


def test_the_project_gives_one_warning_at_the_time_and_one_prm001(report):
    found = sorted((_name(d), d.code, d.severity.value, d.span.start.row, d.span.start.column)
                   for d in report.diagnostics)
    assert found == [("app/broken.poml", "PRM001", "error", 4, 1),  # the `<item for=...>` never closed
                     ("prompts/support.poml", "PRM102", "warning", 4, 59)]
    [prm001] = [d for d in report.diagnostics if d.code == "PRM001"]
    assert prm001.message == ("Cannot analyse this file: template syntax error: `<item>` with `for`, `if` or `<let>` "
                              "content is never closed")


def test_the_billing_prompt_is_a_system_message_then_the_question(report):
    [layout] = [lt for lt in report.prompts if lt.id.endswith("support.poml:1")]
    assert [p.role for p in layout.parts] == ["system", "user"]
    assert layout.newest_user == 1


def test_a_suppression_comment_on_the_line_silences_its_finding(tmp_path):
    source = (PROJECT / "prompts" / "support.poml").read_text(encoding="utf-8")
    (tmp_path / "a.poml").write_text(source, encoding="utf-8")
    (tmp_path / "b.poml").write_text(source.replace("</role>", "</role> <!-- promptlint: ignore[PRM102] -->", 1),
                                     encoding="utf-8")
    (tmp_path / "c.poml").write_text(source.replace("<poml>", "<poml> <!-- noqa: PRM104 -->", 1), encoding="utf-8")
    found = api.check([tmp_path], api.Settings(select=["ALL"]), jobs=1).diagnostics
    assert sorted((Path(d.span.filename).name, d.code) for d in found) == [
        ("a.poml", "PRM102"), ("c.poml", "PRM102"), ("c.poml", "PRM901")]


def test_the_editor_quick_fix_writes_an_xml_comment_at_the_end_of_the_line(report):
    from promptlint.lsp.suppression import comment_syntax, suppression_edit
    path = PROJECT / "prompts" / "support.poml"
    [finding] = [d for d in report.diagnostics if d.code == "PRM102"]
    edit = suppression_edit(path.read_text(encoding="utf-8"), finding, comment_syntax(path))
    assert comment_syntax(path) == "xml"
    assert (edit.content, edit.start.row, edit.start.column) == ("<!-- promptlint: ignore[PRM102] -->", 4, 85)
