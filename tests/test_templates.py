"""Templates, prompt files and config prompt strings -> segments and layouts (issue 3).

Every position asserted here was counted by hand in the fixture files under fixtures/templates/
and fixtures/cases/. No test renders a template: test_never_renders proves the code path does not.
"""
from __future__ import annotations

import sys
from pathlib import Path

import jinja2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from promptlint.model import Kind, Position, Precision, Segment, Span, Volatility  # noqa: E402
from promptlint.templates import (  # noqa: E402
    PromptFileError, config_prompts, file_kind, is_prompt_file, layouts_for_file, locate_value,
    located_segments, prompt_text_segments, template_segments,
)

ROOT = Path(__file__).resolve().parents[1] / "fixtures"
TPL = ROOT / "templates"
PROJECT = TPL / "project"


def dynamic(segments):
    return [s for s in segments if s.kind is not None]


def at(span: Span) -> tuple[int, int]:
    return span.start.row, span.start.column


# ----------------------------------------------------------------------------- the two cases
def test_case_jinja_system_timestamp_placeholder():
    path = ROOT / "cases/jinja-system-timestamp/prompts/system.md.j2"
    result = template_segments(path, "prompts/system.md.j2")
    assert result.errors == [] and result.templates == ["prompts/system.md.j2"]
    stamp = dynamic(result.segments)[0]
    assert stamp.kind is Kind.TIMESTAMP and stamp.precision is Precision.SUB_DAY
    assert stamp.volatility is Volatility.PER_REQUEST and stamp.name_only
    assert stamp.span == Span("prompts/system.md.j2", Position(2, 30), Position(2, 53))
    assert stamp.expr == "current_date_time" and "`current_date_time`" in stamp.evidence
    assert "only evidence" in stamp.evidence
    # the static text before it is line 1 plus "The current date and time is "
    first = result.segments[0]
    assert first.kind is None and first.span.start == Position(1, 1)
    assert first.text.endswith("machine.\nThe current date and time is ")
    # the loop over extensions is a template variable of unknown volatility, not a finding
    loop = dynamic(result.segments)[1]
    assert (loop.kind, loop.volatility, at(loop.span)) == (Kind.TEMPLATE_VARIABLE, Volatility.UNKNOWN, (7, 1))
    assert loop.expr == "for ext in extensions"


def test_case_jinja_binding_from_python():
    path = ROOT / "cases/jinja-system-timestamp/prompts/system.md.j2"
    origin = Span("prompt_render.py", Position(16, 27), Position(16, 84))
    bound = Segment(span=origin, kind=Kind.TIMESTAMP, volatility=Volatility.PER_REQUEST,
                    precision=Precision.SUB_DAY, expr="datetime.now(timezone.utc).strftime(...)",
                    evidence="call to `datetime.now()` formatted with `%H:%M:%S`")
    result = template_segments(path, "prompts/system.md.j2", bindings={"current_date_time": bound})
    stamp = dynamic(result.segments)[0]
    assert stamp.span.start == Position(2, 30) and stamp.span.filename == "prompts/system.md.j2"
    assert stamp.origin == origin and not stamp.name_only
    assert stamp.evidence == "call to `datetime.now()` formatted with `%H:%M:%S`"
    assert stamp.expr == "current_date_time"


def test_case_ocs_toml_placeholder_and_locate_value():
    path = ROOT / "cases/ocs-datetime-in-system-template/assistant.toml"
    text = path.read_text()
    prompts = config_prompts(path, "assistant.toml", text)
    assert [p.keys for p in prompts] == [["assistant", "system_prompt"]]
    prompt = prompts[0]
    assert prompt.key_span.start == Position(6, 1) and prompt.span.start == Position(7, 1)
    stamp = dynamic(prompt.segments)[0]
    assert stamp.kind is Kind.TIMESTAMP and stamp.expr == "{current_datetime}"
    assert stamp.span == Span("assistant.toml", Position(7, 24), Position(7, 42))
    value, start, verbatim = locate_value(path, text, ["assistant", "system_prompt"])
    assert value.startswith("Current date and time: {current_datetime}\n\nYou are")
    assert start == Position(7, 1) and verbatim is True
    assert Segment(text=value, span=Span("assistant.toml", start, start)).position_at(23) == Position(7, 24)
    segs = located_segments(path, "assistant.toml", text, ["assistant", "system_prompt"])
    assert at(dynamic(segs)[0].span) == (7, 24)
    assert locate_value(path, text, ["assistant", "temperature"]) is None
    assert locate_value(path, text, ["nope"]) is None


# ----------------------------------------------------------------------------- jinja
def test_set_blocks_expression_sets_filters_and_loops():
    path = PROJECT / "prompts/sets.md.j2"
    segs = template_segments(path, "prompts/sets.md.j2").segments
    intro = next(s for s in segs if s.kind is None and "careful" in s.text)
    assert intro.span.start == Position(1, 16)  # inlined from the set block, at its own place
    dyn = {s.expr: s for s in dynamic(segs)}
    stamp = dyn["STAMP"]  # {% set STAMP = current_time %} ... {{ STAMP }}
    assert stamp.kind is Kind.TIMESTAMP and at(stamp.span) == (6, 8) and at(stamp.origin) == (4, 1)
    unordered = dyn["for tag in set(tags)"]
    assert unordered.kind is Kind.UNORDERED_ITERATION and at(unordered.span) == (7, 1)
    sorted_loop = dyn["for item in items | sort"]
    assert sorted_loop.kind is Kind.TEMPLATE_VARIABLE and sorted_loop.volatility is Volatility.UNKNOWN
    assert "item.created_at" not in dyn  # a loop variable is never classified by its name
    assert dyn["profile | tojson"].kind is Kind.SERIALIZED and dyn["profile | tojson"].ordered is True
    day = dyn['now().strftime("%Y-%m-%d")']
    assert (day.kind, day.precision, day.volatility) == (Kind.TIMESTAMP, Precision.DAY, Volatility.PER_DAY)
    assert at(day.span) == (9, 24)
    assert dyn["session.id"].kind is Kind.UNIQUE_ID and dyn["session.id"].name_only
    assert dyn["agent.name"].kind is Kind.TEMPLATE_VARIABLE
    cond = dyn["if show_time"]
    assert (cond.kind, cond.volatility, at(cond.span)) == (Kind.CONDITIONAL, Volatility.UNKNOWN, (10, 1))
    inner = dyn["timestamp"]  # a timestamp inside the if body is kept, at its placeholder
    assert inner.kind is Kind.TIMESTAMP and at(inner.span) == (10, 25)
    assert not any(s.kind is None and "No time" in s.text for s in segs)  # conditional text dropped


def test_extends_block_super_and_templates_list():
    result = template_segments(PROJECT / "prompts/child.md.j2", "prompts/child.md.j2")
    assert result.templates == ["prompts/child.md.j2", "prompts/base.md.j2"]
    texts = [(s.text, s.span.filename, at(s.span)) for s in result.segments if s.kind is None]
    assert texts[0] == ("You are Wren, a support agent for a bicycle shop.", "prompts/base.md.j2", (1, 21))
    assert ("\n- Answer in at most five sentences.\n", "prompts/base.md.j2", (3, 18)) in texts  # super()
    today = dynamic(result.segments)[0]
    assert today.kind is Kind.TIMESTAMP and today.precision is Precision.DAY
    assert (today.span.filename, at(today.span)) == ("prompts/child.md.j2", (2, 42))


def test_include_resolves_and_inlines_with_own_spans():
    result = template_segments(PROJECT / "prompts/with_include.md.j2", "prompts/with_include.md.j2")
    assert result.templates == ["prompts/with_include.md.j2", "prompts/partials/clock.j2"]
    clock = dynamic(result.segments)
    assert len(clock) == 1  # the missing include is `ignore missing`
    assert clock[0].kind is Kind.TIMESTAMP and clock[0].expr == "now()"
    assert (clock[0].span.filename, at(clock[0].span)) == ("prompts/partials/clock.j2", (1, 13))
    assert result.segments[-1].text == "\nStatic closing line."


def test_include_through_search_path_and_unresolved(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "part.j2").write_text("Part {{ run_id }}")
    main = tmp_path / "main.j2"
    main.write_text('{% include "part.j2" %}\n{% include "absent.j2" %}')
    found = template_segments(main, "main.j2", search_paths=[tmp_path / "lib"])
    assert [s.kind for s in dynamic(found.segments)] == [Kind.UNIQUE_ID, Kind.UNKNOWN]
    assert found.templates == ["main.j2", "lib/part.j2"]
    missing = dynamic(found.segments)[1]
    assert at(missing.span) == (2, 1) and "not found" in missing.evidence


def test_import_and_macros_are_inlined():
    result = template_segments(PROJECT / "prompts/uses_macros.md.j2", "prompts/uses_macros.md.j2")
    assert "prompts/macros.j2" in result.templates
    ids = [s for s in dynamic(result.segments) if s.kind is Kind.UNIQUE_ID]
    assert len(ids) == 2 and all(at(s.span) == (1, 40) and s.span.filename == "prompts/macros.j2" for s in ids)
    labels = [s for s in dynamic(result.segments) if s.expr == "label"]
    assert all(s.kind is Kind.TEMPLATE_VARIABLE and s.volatility is Volatility.UNKNOWN for s in labels)


def test_agent_id_attribute_is_a_unique_id_by_name():
    result = template_segments(PROJECT / "prompts/agent_card.jinja", "prompts/agent_card.jinja")
    dyn = dynamic(result.segments)
    agent_id = next(s for s in dyn if s.expr == "agent.id")
    assert agent_id.kind is Kind.UNIQUE_ID and agent_id.volatility is Volatility.PER_CONVERSATION
    assert agent_id.name_only and "`agent.id`" in agent_id.evidence
    assert at(agent_id.span) == (5, 9)
    assert next(s for s in dyn if s.expr == "agent.name").kind is Kind.TEMPLATE_VARIABLE


def test_bound_static_and_unknown_values():
    text = "A {{ label }} B {{ when }} C {{ current_time }}"
    unknown = Segment(span=Span("app.py", Position(3, 5), Position(3, 9)), kind=Kind.UNKNOWN,
                      volatility=Volatility.UNKNOWN, expr="helper()")
    result = template_segments(Path("t.j2"), "t.j2", text, bindings={
        "label": Segment(text="Kestrel", span=Span("app.py", Position(2, 1), Position(2, 9))),
        "when": Segment(span=Span("app.py", Position(4, 1), Position(4, 9)), kind=Kind.TIMESTAMP,
                        volatility=Volatility.PER_DAY, precision=Precision.DAY, evidence="date.today()"),
        "current_time": unknown,
    })
    label, when, current = result.segments[1], result.segments[3], result.segments[5]
    assert label.kind is None and label.text == "Kestrel" and at(label.span) == (1, 3)
    assert when.kind is Kind.TIMESTAMP and when.precision is Precision.DAY and at(when.origin) == (4, 1)
    assert current.kind is Kind.TIMESTAMP and current.name_only and at(current.origin) == (3, 5)


def test_syntax_error_is_reported_with_its_row():
    result = template_segments(PROJECT / "prompts/broken.j2", "prompts/broken.j2")
    assert result.segments == [] and result.errors and result.errors[0][0] == 2  # the unclosed if
    assert "endif" in result.errors[0][1]
    with pytest.raises(PromptFileError) as exc:
        layouts_for_file(PROJECT / "prompts/broken.j2", "prompts/broken.j2",
                         (PROJECT / "prompts/broken.j2").read_text())
    assert exc.value.row == 2 and exc.value.filename == "prompts/broken.j2"


def test_never_renders(monkeypatch, tmp_path):
    """A template whose rendering would run a shell command, call a filter that does not exist
    and delete a file is analysed fine, with every compile/render entry point made to fail."""
    def forbidden(*args, **kwargs):
        raise AssertionError("a template was compiled or rendered")

    for owner, name in [(jinja2.Environment, "compile"), (jinja2.Environment, "from_string"),
                        (jinja2.Environment, "get_template"), (jinja2.Template, "render"),
                        (jinja2.Template, "__new__"), (jinja2.Template, "generate")]:
        monkeypatch.setattr(owner, name, forbidden)
    result = template_segments(TPL / "unsafe/evil.md.j2", "unsafe/evil.md.j2")
    assert result.errors == []
    assert result.templates == ["unsafe/evil.md.j2", "unsafe/evil_include.j2"]
    assert [s.expr for s in dynamic(result.segments)] == [
        'cycler.__init__.__globals__.os.system("touch " ~ marker)', "payload | explode_on_render",
        'lipsum.__globals__["os"].remove(target)']
    assert all(s.kind is Kind.TEMPLATE_VARIABLE for s in dynamic(result.segments))


_TEXT = st.text(alphabet="ab \n.:-", min_size=0, max_size=12)
_TAG = st.sampled_from(["{{ x }}", "{{- x }}", "{{ x -}}", "{{-x-}}", "{{ now() }}", "{# c #}",
                        "{% if c %}y{% endif %}", "{%- if c -%} {{ uuid }} {%- endif %}"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_TEXT, _TAG), max_size=6), _TEXT)
def test_positions_are_exact(pieces, tail):
    text = "".join(a + b for a, b in pieces) + tail
    lines = text.split("\n")
    result = template_segments(Path("p.j2"), "p.j2", text)
    assert result.errors == []
    for seg in result.segments:
        row, col = at(seg.span)
        if seg.kind is None:
            offset = sum(len(line) + 1 for line in lines[:row - 1]) + col - 1
            assert text[offset:offset + len(seg.text)] == seg.text
        elif seg.kind is Kind.CONDITIONAL:
            assert lines[row - 1][col - 1:].startswith("{%")
        else:
            assert lines[row - 1][col - 1:].startswith("{{")


# ----------------------------------------------------------------------------- prompt files
def test_is_prompt_file_and_file_kind(tmp_path):
    """A text file in a prompts folder is a prompt when the project's code names it (Policy 7)."""
    for rel in ("app/preprompts/generate", "pkg/prompt_templates/agents/system.md", "pkg/prompts/notes.md",
                "pkg/prompts/docs/guide.md", "pkg/prompts/tone.txt"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("You are helpful.\n", encoding="utf-8")
    (tmp_path / "app" / "steps.py").write_text('ROADMAP = db["generate"]\n', encoding="utf-8")
    (tmp_path / "pkg" / "load.py").write_text(
        'SYSTEM = read("agents/system.md")\nTONES = sorted(PROMPTS.glob("*.txt"))\n', encoding="utf-8")
    assert is_prompt_file(tmp_path / "app/preprompts/generate")  # named by its key
    assert is_prompt_file(tmp_path / "pkg/prompt_templates/agents/system.md")  # named by its path
    assert is_prompt_file(tmp_path / "pkg/prompts/tone.txt")  # matched by a glob of its folder
    assert not is_prompt_file(tmp_path / "pkg/prompts/notes.md")  # no code names it
    assert not is_prompt_file(tmp_path / "pkg/prompts/docs/guide.md")  # documentation next to the prompts
    assert is_prompt_file(Path("anywhere/ask.prompt"))
    assert not is_prompt_file(Path("prompts/helpers.py"))
    assert not is_prompt_file(Path("prompts/README.md"))
    assert not is_prompt_file(Path("docs/guide.md"))
    assert is_prompt_file(Path("docs/guide.md"), ["docs/*.md"])
    assert file_kind(Path("prompts/system.md.j2")) == "template"
    assert file_kind(Path("a/agent.jinja")) == "template"
    assert file_kind(Path("x.jinja2")) == "template"
    assert file_kind(Path("runtime/Dockerfile.j2")) is None
    assert file_kind(Path("viz/page.html.j2")) is None
    assert file_kind(Path("conf/assistant.toml")) == "config"
    assert file_kind(Path("prompts/code_agent.yaml")) == "config"
    assert file_kind(tmp_path / "app/preprompts/generate") == "prompt-text"
    assert file_kind(tmp_path / "pkg/prompts/docs/guide.md") is None
    assert file_kind(Path("src/module.py")) is None
    assert file_kind(Path("/home/u/promptlint/profiles/notes.txt")) is None  # "promptlint" is no prompt folder
    assert config_prompts(Path("promptlint/data.toml"), "data.toml", 'note = "three words here"\n') == []
    assert len(config_prompts(Path("prompts/data.toml"), "data.toml", 'note = "three words here"\n')) == 1


def test_prompt_text_placeholders():
    path = TPL / "prompt_dir/prompts/greeting"
    segs = prompt_text_segments(path, "prompts/greeting", path.read_text())
    dyn = [(s.expr, s.kind, at(s.span)) for s in dynamic(segs)]
    assert dyn == [("{user_name}", Kind.TEMPLATE_VARIABLE, (1, 7)),
                   ("{current_date:%Y}", Kind.TIMESTAMP, (1, 32)),
                   ("$name", Kind.TEMPLATE_VARIABLE, (2, 25)),
                   ("${request_id}", Kind.UNIQUE_ID, (2, 34))]
    assert dynamic(segs)[1].precision is Precision.YEAR
    assert "".join(s.text or s.expr for s in segs) == path.read_text()  # $HOME, $5, JSON stay text


def test_a_str_format_prompt_file_keeps_doubled_braces_as_text():
    # `{max_actions}` is a field; `{{step}}` and `{{"url": ...}}` are str.format's escapes
    text = 'Step <step_{{step}}> of at most {max_actions} actions.\nAnswer {{"url": "..."}} only.\n'
    segs = prompt_text_segments(Path("prompts/system.md"), "prompts/system.md", text)
    assert [(s.expr, at(s.span)) for s in dynamic(segs)] == [("{max_actions}", (1, 33))]
    handlebars = "{{#if a}}Hello {{user_name}}{{/if}}, here is {topic}.\n"  # no escape: both are placeholders
    segs = prompt_text_segments(Path("prompts/hello.md"), "prompts/hello.md", handlebars)
    assert [s.expr for s in dynamic(segs)] == ["{{user_name}}", "{topic}"]


def test_a_str_format_text_with_positional_fields_is_no_jinja_template(tmp_path):
    # `{}` is the field the code fills (`.format(question)`), `{{2}}` an escape no Jinja expression
    # writes: its doubled braces are LaTeX text (`\\frac{{D}}{{2}}`), not placeholders, Jinja's or another's
    text = ("Answer: the area is $\\pi \\left(\\frac{{D}}{{2}}\\right)^2$ and $P = {{Power}}$.\n"
            "Answer the following multiple choice question. There is only one correct answer, and the last line\n"
            "of your response should be in the format Answer: LETTER, where LETTER is one of the options given.\n"
            "Question:\n{}\nAnswer: think step by step.\n")
    segs = prompt_text_segments(Path("prompts/five-shot.txt"), "prompts/five-shot.txt", text)
    assert [(s.expr, at(s.span)) for s in dynamic(segs)] == [("{}", (5, 1))]
    (tmp_path / "prompt").mkdir()
    yaml_file = tmp_path / "prompt" / "five-shot.yaml"  # (a file of a prompt folder: its prose is a prompt)
    yaml_file.write_text("prompt_format:\n  - |\n" + "".join("    " + line + "\n" for line in text.splitlines()),
                         encoding="utf-8")
    (prompt,) = config_prompts(yaml_file, "prompt/five-shot.yaml", yaml_file.read_text())
    assert [(s.expr, at(s.span)) for s in dynamic(prompt.segments)] == [("{}", (7, 5))]
    jinja = "Question: {{ question }}\nReturn {} when there is nothing.\n"  # no escape: Jinja, `{}` is text
    segs = prompt_text_segments(Path("prompts/q.txt"), "prompts/q.txt", jinja)
    assert [s.expr for s in dynamic(segs)] == ["question"]
    # a Jinja statement says Jinja, whatever else the text holds: `{{ '{{' }}` is an expression there
    raw = "{% raw %}Answer for {Z}.{% endraw %}\n{Z}={{ '{{' }} {{ prompt }} {{ '}}' }}\n"
    segs = prompt_text_segments(Path("prompts/raw.txt"), "prompts/raw.txt", raw)
    assert "prompt" in [s.expr for s in dynamic(segs)] and "{Z}" not in [s.expr for s in dynamic(segs)]


def test_prompt_text_jinja_and_handlebars_fallback():
    summary = TPL / "prompt_dir/prompts/summary.md"
    segs = prompt_text_segments(summary, "prompts/summary.md", summary.read_text())
    assert [(s.expr, s.kind) for s in dynamic(segs)] == [
        ("document", Kind.TEMPLATE_VARIABLE), ("user", Kind.TEMPLATE_VARIABLE), ("if urgent", Kind.CONDITIONAL)]
    ask = TPL / "prompt_dir/src/ask.prompt"  # Handlebars: not Jinja, read with plain placeholders
    segs = prompt_text_segments(ask, "src/ask.prompt", ask.read_text())
    assert [(s.expr, at(s.span)) for s in dynamic(segs)] == [("{{topic}}", (1, 25)), ("{timestamp}", (1, 47))]
    mustache = TPL / "prompt_dir/prompts/mustache.txt"
    segs = prompt_text_segments(mustache, "prompts/mustache.txt", mustache.read_text())
    assert [(s.kind, at(s.span)) for s in dynamic(segs)] == [(Kind.UNIQUE_ID, (1, 10))]


# ----------------------------------------------------------------------------- config strings
def test_yaml_prompts_positions_and_messages():
    path = TPL / "config/assistant.yaml"
    prompts = config_prompts(path, "assistant.yaml", path.read_text())
    assert [p.keys for p in prompts] == [["system_prompt"], ["greeting_prompt"], ["messages"]]
    system = prompts[0]
    assert system.key_span.start == Position(3, 1) and system.span.start == Position(4, 3)
    assert [(s.expr, at(s.span)) for s in dynamic(system.segments)] == [("current_time", (5, 15))]
    assert system.segments[-1].text == ".\nBe brief."
    greeting = prompts[1]  # double-quoted with an escape
    assert greeting.segments[0].text == "Hello,\tfriend " and at(dynamic(greeting.segments)[0].span) == (7, 34)
    messages = prompts[2]  # a folded scalar and a user message
    assert [p.role for p in messages.parts] == ["system", "user"]
    session = dynamic(messages.parts[0].segments)[0]
    assert session.kind is Kind.UNIQUE_ID and at(session.span) == (12, 34)
    assert at(dynamic(messages.parts[1].segments)[0].span) == (14, 15)


def test_toml_prompts_strings_of_every_kind():
    path = TPL / "config/settings.toml"
    prompts = {p.key: p for p in config_prompts(path, "settings.toml", path.read_text())}
    assert sorted(prompts) == ["assistant.continued_prompt", "assistant.escaped_prompt",
                               "assistant.instructions", "assistant.system_prompt", "messages"]
    first = lambda key: dynamic(prompts[key].segments)[0]  # noqa: E731
    assert at(first("assistant.system_prompt").span) == (5, 24)
    assert at(first("assistant.instructions").span) == (8, 25)  # literal string
    assert at(first("assistant.escaped_prompt").span) == (9, 29)  # after a \t escape
    assert prompts["assistant.continued_prompt"].segments[0].text == "Joined line "
    assert at(first("assistant.continued_prompt").span) == (12, 10)  # line-ending backslashes
    messages = prompts["messages"]  # [[messages]] array of tables
    assert [p.role for p in messages.parts] == ["system", "user"] and messages.key_span.start == Position(14, 1)
    assert at(dynamic(messages.parts[1].segments)[0].span) == (20, 12)


def test_locate_value_yaml_json_and_non_verbatim():
    yaml_path = TPL / "config/assistant.yaml"
    value, start, verbatim = located = locate_value(yaml_path, yaml_path.read_text(), ["system_prompt"])
    assert value == "You are the desk assistant.\nThe time is {{ current_time }}.\nBe brief."
    assert start == Position(4, 3) and verbatim is False  # indented block
    assert located.position_at(value.index("{{")) == Position(5, 15)
    assert locate_value(yaml_path, yaml_path.read_text(), ["messages", 1, "content"])[1] == Position(14, 15)
    json_path = TPL / "config/prompts.json"
    value, start, verbatim = located = locate_value(json_path, json_path.read_text(), ["agent", "system_prompt"])
    assert value == "Line one\nTime: {now}" and start == Position(1, 30) and verbatim is False
    assert located.position_at(value.index("{now}")) == Position(1, 46)
    cafe = locate_value(json_path, json_path.read_text(), ["list", 1])
    assert cafe.text == "Caf\u00e9 {x}" and cafe.position_at(5) == Position(2, 27)
    assert locate_value(TPL / "x.yaml", "a: [unclosed", ["a"]) is None


def test_yaml_message_lists_with_type_keys_and_placeholder_items():
    # `type: system` names a role as `role:` does; an item that is one placeholder expands to
    # messages where it stands (role "unknown"); content blocks typed `text` are no roles
    text = ('steps:\n'
            '  - name: reply\n'
            '    messages:\n'
            '      - type: system\n'
            '        content: "You answer ferry passengers. Timetable notes: {{ notes }}"\n'
            '      - "{{ history | as_messages }}"\n'
            '      - type: user\n'
            '        content: "{{ question }}"\n'
            '  - name: blocks\n'
            '    messages:\n'
            '      - type: text\n'
            '        content: "Just a block of text with several words"\n'
            '      - "{{ history }}"\n')
    prompts = config_prompts(Path("ferry.yaml"), "ferry.yaml", text)
    reply = next(p for p in prompts if p.keys == ["steps", 0, "messages"])
    assert [p.role for p in reply.parts] == ["system", "unknown", "user"]
    assert [(s.expr, at(s.span)) for s in dynamic(reply.parts[1].segments)] == [("history | as_messages", (6, 10))]
    # the second list holds no message of a role: its strings stay prompts of their own, or nothing
    assert not any(p.keys == ["steps", 1, "messages"] for p in prompts)


def test_a_section_keeps_the_placeholders_of_its_body():
    text = ("Help the Quayside ferry's passengers.\n"
            "{% if notes %}Notes: {{ notes }}{% for stop in stops %} {{ stop.name }}{% endfor %}{% endif %}\n"
            "{% for turn in history %}{{ turn.text }}{% endfor %}\n")
    segs = template_segments(Path("ferry.j2"), "ferry.j2", text).segments
    section, loop = dynamic(segs)
    assert (section.kind, section.expr) == (Kind.CONDITIONAL, "if notes")
    assert [(s.expr, at(s.span)) for s in section.inner] == [
        ("notes", (2, 22)), ("for stop in stops", (2, 33)), ("stop.name", (2, 57))]
    assert loop.expr == "for turn in history" and [s.expr for s in loop.inner] == ["turn.text"]


def test_config_files_without_prompts_or_unparsable():
    assert config_prompts(Path("ci.yaml"), "ci.yaml", "name: build\nuser: admin\nsteps:\n  - run: make\n") == []
    assert config_prompts(Path("bad.yaml"), "bad.yaml", "a: {{ b }}\n  c: [") == []
    assert config_prompts(Path("bad.toml"), "bad.toml", "a = \n") == []


# ----------------------------------------------------------------------------- layouts
def test_layouts_for_template_prompt_text_and_config():
    case = ROOT / "cases/jinja-system-timestamp/prompts/system.md.j2"
    (layout,) = layouts_for_file(case, "prompts/system.md.j2", case.read_text())
    assert (layout.id, layout.source, layout.templates) == (
        "prompts/system.md.j2:1", "template", ["prompts/system.md.j2"])
    assert [p.role for p in layout.parts] == ["system"] and layout.newest_user is None
    user = PROJECT / "prompts/user_prompt.j2"
    (user_layout,) = layouts_for_file(user, "prompts/user_prompt.j2", user.read_text())
    assert user_layout.parts[0].role == "user" and user_layout.newest_user == 0
    text = TPL / "prompt_dir/prompts/greeting"
    (text_layout,) = layouts_for_file(text, "prompts/greeting", text.read_text())
    assert text_layout.source == "prompt-text" and text_layout.id == "prompts/greeting:1"
    toml = ROOT / "cases/ocs-datetime-in-system-template/assistant.toml"
    (config_layout,) = layouts_for_file(toml, "assistant.toml", toml.read_text())
    assert (config_layout.id, config_layout.source, config_layout.templates) == (
        "assistant.toml:6", "config-string", ["assistant.toml"])
    settings_path = TPL / "config/settings.toml"
    layouts = layouts_for_file(settings_path, "settings.toml", settings_path.read_text())
    messages = next(lo for lo in layouts if lo.id == "settings.toml:14")
    assert [p.role for p in messages.parts] == ["system", "user"] and messages.newest_user == 1
    assert layouts_for_file(Path("src/app.py"), "src/app.py", "x = 1\n") == []


def test_elif_with_raw_filter_and_call_blocks():
    text = ('{% if a %}A{% elif b == now() %}B{% else %}C {{ today }}{% endif %}\n'
            '{% raw %}{{ not_a_var }}{% endraw %} {% filter upper %}up {{ session_id }}{% endfilter %}\n'
            '{% with t = now() %}W {{ t }}{% endwith %}\n'
            '{% macro box(v) %}[{{ v }}]{% endmacro %}{% call box(1) %}in {{ trace_id }}{% endcall %}')
    segs = template_segments(Path("x.j2"), "x.j2", text).segments
    dyn = [(s.kind, s.expr, at(s.span)) for s in dynamic(segs)]
    assert dyn == [
        (Kind.CONDITIONAL, "if a", (1, 1)),
        (Kind.TIMESTAMP, "elif b == now()", (1, 12)),  # a clock in a branch condition
        (Kind.TIMESTAMP, "today", (1, 46)),
        (Kind.UNIQUE_ID, "session_id", (2, 59)),
        (Kind.TIMESTAMP, "t", (3, 23)),  # output where `t` is printed, produced at the with tag
        (Kind.TEMPLATE_VARIABLE, "v", (4, 20)),
        (Kind.UNIQUE_ID, "trace_id", (4, 62)),
    ]
    assert at(dynamic(segs)[4].origin) == (3, 1)
    raw = next(s for s in segs if s.kind is None and "not_a_var" in s.text)
    assert raw.text == "{{ not_a_var }}" and at(raw.span) == (2, 10)


def test_autoescape_blocks_are_walked_and_keep_their_positions():
    # jinja2 wraps `{% autoescape %}` in a Scope node that has no line: the walk goes into its body
    # (it once compared the missing line and reported the whole file as unparsable)
    text = ('{% autoescape true %}\nStatic instructions, the same on every request.\n'
            'Today is {{ today }}.\n{% endautoescape %}\n{% autoescape false %}{{ request_id }}{% endautoescape %}')
    result = template_segments(Path("a.j2"), "a.j2", text)
    assert result.errors == []
    dyn = [(s.kind, s.expr, at(s.span)) for s in dynamic(result.segments)]
    assert dyn == [(Kind.TIMESTAMP, "today", (3, 10)), (Kind.UNIQUE_ID, "request_id", (5, 23))]
    first = result.segments[0]
    assert first.kind is None and first.text.startswith("\nStatic instructions")


_VALUES = st.text(alphabet=st.sampled_from(list("ab c\n\t\"'\\{}é:#-☃")), max_size=25)


def _assert_positions(src: str, value: str, located) -> None:
    lines = src.split("\n")
    for i, ch in enumerate(value):
        if ch.isalnum() or ch in "{}":
            pos = located.position_at(i)
            assert lines[pos.row - 1][pos.column - 1] == ch


@settings(max_examples=80, deadline=None)
@given(_VALUES, st.sampled_from(["basic", "multi-line", "literal", "multi-line literal"]))
def test_toml_values_are_located_exactly(value, kind):
    from promptlint.templates.config_strings.toml_tree import tomllib
    if kind == "basic":
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        encoded = '"' + escaped.replace("\n", "\\n").replace("\t", "\\t") + '"'
    elif kind == "multi-line":
        encoded = '"""\n' + value.replace("\\", "\\\\").replace('"', '\\"') + '"""'
    elif kind == "literal":
        encoded = "'" + value.replace("'", "").replace("\n", "").replace("\t", "") + "'"
    else:
        encoded = "'''\n" + value.replace("'", "").replace("\t", "") + "'''"
    src = f"# c\n[t]\nx = 1\nkey = {encoded}\n"
    real = tomllib.loads(src)["t"]["key"]
    located = locate_value(Path("a.toml"), src, ["t", "key"])
    assert located.text == real
    _assert_positions(src, real, located)


@settings(max_examples=80, deadline=None)
@given(_VALUES, st.sampled_from([None, '"', "'", "|", ">"]))
def test_yaml_values_are_located_exactly(value, style):
    import re

    import yaml
    body = yaml.dump({"key": value}, default_style=style, allow_unicode=True, width=20)
    body = re.sub(r"^[\"']key[\"']|^[|>][-+]?\n\s+key\n", "key", body)  # keep the key plain
    body = re.sub(r"\n\.\.\.\n$", "\n", body)  # a document end marker
    src = "top:\n  other: 1\n  " + body.rstrip("\n").replace("\n", "\n  ") + "\n"
    real = yaml.safe_load(src)["top"]["key"]
    located = locate_value(Path("a.yaml"), src, ["top", "key"])
    assert located.text == real
    _assert_positions(src, real, located)


def test_attribute_paths_of_the_passed_objects():
    from promptlint.templates import jinja
    text = ("{{ task.title }} {% for t in task.depends_on | sort %}{{ t.name }}{% endfor %}"
            "{{ agent.profile.name.first.last }} {{ other.x }} {{ task['key'] }}")
    assert jinja.attribute_paths(text, ["task", "agent"]) == [
        "agent.profile", "task.depends_on", "task.title", "agent.profile.name", "agent.profile.name.first"]
    assert jinja.attribute_paths(text, []) == []
    assert jinja.attribute_paths("{% for x in %}", ["task"]) == []  # does not parse: nothing read


def test_a_config_prompt_is_a_system_prompt_only_when_its_key_says_so():
    text = ("agent:\n"
            "  system_template: You are a careful software engineer. Work in small steps and run the tests.\n"
            "  instance_template: Solve this issue now, then report what you changed in the repository.\n"
            "  user_prompt: Please summarise the discussion above in three short sentences for me.\n")
    prompts = {p.keys[-1]: p for p in config_prompts(Path("config/agent.yaml"), "agent.yaml", text)}
    assert {k: p.parts[0].role for k, p in prompts.items()} == {
        "system_template": "system", "instance_template": "prompt", "user_prompt": "user"}


def test_prompt_files_in_a_projects_root_are_checked_against_that_project_and_no_virtualenv(tmp_path):
    from promptlint.templates.references import project_root, python_tree
    project = tmp_path / "proj"
    (project / "pkg").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    (project / "pkg" / "app.py").write_text("x = 1\n", encoding="utf-8")
    (project / "env" / "lib").mkdir(parents=True)
    (project / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    (project / "env" / "lib" / "site.py").write_text("y = 1\n", encoding="utf-8")
    (tmp_path / "elsewhere.py").write_text("z = 1\n", encoding="utf-8")
    # (its parent, tmp_path, is outside the project: its Python is another's)
    assert project_root(project) == project
    assert project_root(project / "pkg") == project
    assert python_tree(project) == [project / "pkg" / "app.py"]
