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
    assert _parts(tmp_path, "<poml><system-msg>Be brief.</system-msg><human-msg>{{ question }}</human-msg>"
                            "<ai-msg>Sure.</ai-msg></poml>") == [
        ("system", ["Be brief."]), ("user", [(Kind.USER_INPUT, Volatility.PER_REQUEST, "question")]),
        ("assistant", ["Sure."])]
    # as POML's writer: the default speaker is system until a human speaks; a named speaker holds for
    # the element's children and for the sibling elements after it
    assert _parts(tmp_path, '<p>Rules.</p><p speaker="human">Hi</p><p>More</p><p speaker="ai">Ok</p><p>Again</p>') == [
        ("system", ["Rules."]), ("user", ["Hi More"]), ("assistant", ["Ok Again"])]
    assert _parts(tmp_path, "<poml><human-msg>hi</human-msg><system-msg>sys</system-msg><p>after</p></poml>") == [
        ("user", ["hi"]), ("system", ["sys after"])]
    assert _parts(tmp_path, '<poml><p>Rules.</p><section speaker="ai"><p>A</p></section><p>after</p></poml>') == [
        ("system", ["Rules."]), ("assistant", ["A after"])]


def test_examples_in_chat_form_are_turns_and_tool_messages_are_read(tmp_path):
    assert _parts(tmp_path, "<poml><role>R</role><example><input>Q1</input><output>A1</output></example>"
                            "<human-msg>{{ question }}</human-msg></poml>") == [
        ("system", ["R"]), ("user", ["Q1"]), ("assistant", ["A1"]),
        ("user", [(Kind.USER_INPUT, Volatility.PER_REQUEST, "question")])]
    assert _parts(tmp_path, '<poml><examples chat="false"><example><input>Q1</input><output>A1</output></example>'
                            "</examples><p>t</p></poml>") == [("user", ["Q1 A1 t"])]
    assert _parts(tmp_path, '<poml><p>Go.</p><tool-request id="1" name="s" parameters="{{ params }}"/>'
                            '<tool-response id="1" name="s">{{ question }}</tool-response></poml>') == [
        ("system", ["Go."]), ("assistant", [(Kind.TEMPLATE_VARIABLE, Volatility.UNKNOWN, "params")]),
        ("tool", [(Kind.USER_INPUT, Volatility.PER_REQUEST, "question")])]


# ---------------------------------------------------------------- values and statements
def test_let_values_are_static_and_javascript_expressions_are_read_as_jinja2_reads_them(tmp_path):
    assert _parts(tmp_path, "<poml><let name=\"greeting\" value=\"'Hello'\" /><p>{{greeting}} there</p>"
                            "<let name=\"who\">Alice</let><p>{{ who }}, {{ n > 1 ? n : one }} items</p>"
                            '<let>{"city": "Paris"}</let></poml>') == [
        ("user", ["Hello", "there", "Alice", ",", (Kind.CONDITIONAL, Volatility.UNKNOWN, "((n) if (n > 1) else (one))"),
                  "items"])]


def test_a_javascript_clock_id_or_random_number_is_known_and_a_ternary_keeps_both_branches(tmp_path):
    [(_, segs)] = _parts(tmp_path, "<poml><p>{{ new Date().toISOString() }} {{ new Date().getFullYear() }} "
                                   "{{ crypto.randomUUID() }} {{ debug ? '' : current_time }} "
                                   "{{ `Now ${current_time}` }}</p></poml>")
    kinds = [(s[0], s[1]) for s in segs if not isinstance(s, str)]
    assert kinds == [(Kind.TIMESTAMP, Volatility.PER_REQUEST), (Kind.TIMESTAMP, Volatility.PER_DAY),
                     (Kind.UNIQUE_ID, Volatility.PER_REQUEST), (Kind.CONDITIONAL, Volatility.UNKNOWN),
                     (Kind.TIMESTAMP, Volatility.PER_REQUEST), (Kind.TIMESTAMP, Volatility.PER_REQUEST)]


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


def test_embeds_a_named_file_a_fetched_page_a_value_and_data(tmp_path):
    [(_, segs)] = _parts(tmp_path, '<poml><document src="faq.pdf"/><img src="{{ photo }}"/>'
                                   '<webpage url="https://example.com/news"/><doc src="{{ upload }}"/>'
                                   '<table records="{{ rows }}"/><obj data=\'{"a": 1}\'/><let name="d" src="d.json"/>'
                                   "<p>{{ d.rules }}</p></poml>")
    assert segs == [(Kind.UNKNOWN, Volatility.STABLE, "faq.pdf"),
                    (Kind.TEMPLATE_VARIABLE, Volatility.UNKNOWN, "photo"),
                    (Kind.UNKNOWN, Volatility.UNKNOWN, "https://example.com/news"),
                    (Kind.TEMPLATE_VARIABLE, Volatility.UNKNOWN, "upload"),
                    (Kind.TEMPLATE_VARIABLE, Volatility.UNKNOWN, "rows"), '{"a": 1}',
                    (Kind.UNKNOWN, Volatility.STABLE, "d.json")]


def test_a_conversation_is_the_history_and_its_newest_messages_a_window(tmp_path):
    path = tmp_path / "x.poml"
    text = ('<poml><system-msg>Rules.</system-msg>\n<conversation messages="{{ chat_history }}" selectedMessages="-6:"/>'
            "\n<human-msg>{{ question }}</human-msg></poml>")
    [layout] = layouts_for_file(path, "x.poml", text)
    assert [p.role for p in layout.parts] == ["system", "history", "user"]
    [history] = layout.parts[1].segments
    assert (history.kind, history.expr, history.window is not None) == (Kind.HISTORY, "chat_history", True)


def test_styles_runtime_options_comments_and_declarations_are_not_prompt_text(tmp_path):
    assert _parts(tmp_path, '<?xml version="1.0"?>\n<!DOCTYPE poml>\n<poml><!-- {{ secret }} -->'
                            '<stylesheet>{ "p": {{ style }} }</stylesheet><meta minVersion="0.5.0">'
                            '<runtime model="gpt-4o"/><p>Only this {% raw %} <![CDATA[<b>]]></p></poml>') == [
        ("user", ["Only this { % raw %} <b>"])]  # a Jinja delimiter in POML text is text; `<meta>` holds nothing


def test_an_element_never_closed_or_closed_by_another_is_a_syntax_error_at_its_row(tmp_path):
    path = tmp_path / "x.poml"
    text = "<poml>\n  <list>\n    <item for=\"s in steps\">{{ s }}\n"
    with pytest.raises(PromptFileError) as exc:
        layouts_for_file(path, "x.poml", text)
    assert (exc.value.row, exc.value.message) == (3, "`<item>` with `for`, `if` or `<let>` content is never closed")
    with pytest.raises(PromptFileError) as exc:
        layouts_for_file(path, "x.poml", text + "  </list>\n</poml>\n")
    assert (exc.value.row, exc.value.message) == (
        3, "`<item>` with `for`, `if` or `<let>` content is closed by `</list>` at line 4, not by its own end tag")


def test_text_that_looks_like_tags_is_read_in_linear_time(tmp_path):
    # (a tag pattern that could cross `<` backtracked quadratically on such text)
    text = "<poml>\n" + "".join(f"<p>Compare a<b and c<d then e{i}</p>\n" for i in range(3000)) + "</poml>\n"
    [(role, segs)] = _parts(tmp_path, text)
    assert role == "user" and segs[0].startswith("Compare a<b and c<d then e0")


def test_rows_and_columns_are_the_files(tmp_path):
    path = tmp_path / "x.poml"
    text = ('<poml>\n  <role>Now: {{ current_time }}.</role>\n<img src="a"/><img src="b"/> {{ question }}\n'
            '<task caption="Task #{{ index }}">Do it.</task>\n</poml>\n')
    [layout] = layouts_for_file(path, "x.poml", text)
    # (an embed's placeholder is longer than `<img src="a"/>`: it starts earlier in its tag, and the
    # columns after the tag stay the file's)
    found = [(s.expr, s.span.start.row, s.span.start.column) for p in layout.parts for s in p.segments
             if s.kind is not None]
    assert found == [("current_time", 2, 14), ("a", 3, 5), ("b", 3, 19), ("question", 3, 30), ("index", 4, 22)]


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
    # in CDATA it is text, not a comment
    (tmp_path / "d.poml").write_text(source.replace("</role>", "<![CDATA[ <!-- promptlint: ignore[PRM102] --> ]]></role>",
                                                    1), encoding="utf-8")
    found = api.check([tmp_path], api.Settings(select=["ALL"]), jobs=1).diagnostics
    assert sorted((Path(d.span.filename).name, d.code) for d in found) == [
        ("a.poml", "PRM102"), ("c.poml", "PRM102"), ("c.poml", "PRM901"), ("d.poml", "PRM102")]


def test_the_editor_quick_fix_writes_an_xml_comment_at_the_end_of_the_line(report):
    from promptlint.lsp.suppression import comment_syntax, suppression_edit
    path = PROJECT / "prompts" / "support.poml"
    [finding] = [d for d in report.diagnostics if d.code == "PRM102"]
    edit = suppression_edit(path.read_text(encoding="utf-8"), finding, comment_syntax(path))
    assert comment_syntax(path) == "xml"
    assert (edit.content, edit.start.row, edit.start.column) == ("<!-- promptlint: ignore[PRM102] -->", 4, 85)


def test_fix_removes_an_unused_suppression_comment_as_in_python_and_checks_the_result(tmp_path):
    from promptlint.fixer import parse_check_for
    path = tmp_path / "a.poml"
    path.write_text("<poml>\n  <!-- promptlint: ignore[PRM102] -->\n  <role>You help.</role> <!-- noqa: PRM103 -->\n"
                    "  <p>Hi {{ question }}</p>\n</poml>\n", encoding="utf-8")
    api.fix([path], api.Settings())
    # the comment alone on its line goes with its line; one after markup goes with the blanks before it
    assert path.read_text(encoding="utf-8") == "<poml>\n  <role>You help.</role>\n  <p>Hi {{ question }}</p>\n</poml>\n"
    check = parse_check_for(path, path.read_text(encoding="utf-8"))
    assert check("<poml><p>ok</p></poml>") and not check('<poml><item for="s in steps">{{ s }}')
