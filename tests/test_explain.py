"""`promptlint explain`: the drawing (rendered into a fixed-width rich console) and its JSON."""
from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

from click.testing import CliRunner
from rich.console import Console

from promptlint import tokens
from promptlint.model import Breakpoint, Kind, Part, Position, PromptLayout, Segment, Span, Volatility
from promptlint.profiles import Target, apply_overrides
from promptlint.report.explain import explain_json, parse_location, render_explain, select_layouts

POLICY = "\n".join(f"{i}. Answer questions about order {i} politely, cite the order number and never guess."
                   for i in range(1, 61))
TOOLS = '[{"name": "lookup", "description": "Search the knowledge base."}]'


def span(row: int, col: int = 1) -> Span:
    return Span("chat.py", Position(row, col), Position(row, col + 10))


def anthropic_layout() -> PromptLayout:
    apply_overrides([])
    return PromptLayout(
        id="chat.py:30", site=Span("chat.py", Position(30, 16), Position(36, 6)), source="python-call",
        provider="anthropic", api="messages.create", model="claude-sonnet-4-5",
        parts=[
            Part("tools", [Segment(text=TOOLS, span=span(31))]),
            Part("system", [Segment(text=POLICY, span=span(32))], [Breakpoint(after=0, span=span(32, 40), ttl="1h")]),
            Part("history", [Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, expr="*self.sent")]),
            Part("user", [Segment(text="[sent ", span=span(29)),
                          Segment(kind=Kind.TIMESTAMP, volatility=Volatility.PER_REQUEST, expr="stamp", span=span(29, 20)),
                          Segment(text="]\n", span=span(29)),
                          Segment(kind=Kind.USER_INPUT, volatility=Volatility.PER_REQUEST, expr="text", span=span(29, 30))],
                 [Breakpoint(after=3, span=span(30, 21))]),
        ],
        newest_user=3)


def draw(layouts, width: int = 100, **kw) -> list[str]:
    console = Console(file=io.StringIO(), width=width, no_color=True, highlight=False)
    assert render_explain(layouts, console=console, **kw) == ""
    return console.file.getvalue().splitlines()


def test_drawing_shows_parts_breakpoints_prefix_end_and_targets():
    lines = draw([anthropic_layout()])
    prefix = tokens.count(TOOLS) + tokens.count(POLICY)
    estimate = round(prefix * 1.16)
    assert all(len(line) <= 100 for line in lines if not line.lstrip().startswith("^ history: "))  # (prose: whole)
    assert lines[0] == "chat.py:30  python-call | anthropic | messages.create | claude-sonnet-4-5"
    assert lines[1].startswith('tools      "[{"name": "lookup", "description": "Search the knowledge base."}]"')
    assert lines[1].endswith(f"{tokens.count(TOOLS)} tok")
    assert lines[2].startswith('system     "1. Answer questions about order 1 politely,')
    assert lines[2].endswith(f"{tokens.count(POLICY):,} tok")
    assert lines[3] == "           -- cache breakpoint (ttl 1h) at chat.py:32:40 " + "-" * 43
    assert lines[4].startswith(f"           -- static prefix ends: {prefix:,} tokens (o200k) --")
    assert lines[5].startswith("history    {*self.sent}") and lines[5].endswith("history")
    # why the messages are one history, and that they are not read (a whole line)
    assert lines[6].strip() == (
        "^ history: `*self.sent`, taken as the replayed conversation; its messages are not read here: what "
        "they hold is not drawn")
    lines = lines[:6] + lines[7:]
    assert lines[6].startswith('user       "[sent"') and lines[6].endswith(f"{tokens.count('[sent ')} tok")
    assert lines[7].startswith("           {stamp}") and lines[7].endswith("timestamp, per-request")
    assert lines[9].endswith("user-input, per-request")
    assert lines[10].startswith("           -- cache breakpoint at chat.py:30:21 --")
    assert lines[11].split() == ["target", "tokenizer", "prefix", "min", "cached", "share", "read", "write"]
    assert lines[12].split() == ["anthropic:claude-sonnet-4-5", "Claude", "3-4.6", f"~{estimate:,}", "1,024",
                                 f"~{estimate:,}", "100%", "0.1x", "2x"]
    assert lines[13] == "anthropic:claude-sonnet-4-5: estimated as 1.16 x the o200k count"
    assert len(lines) == 14


def test_render_returns_text_and_explicit_targets_replace_the_call_site_target():
    text = render_explain([anthropic_layout()], 100, targets=[Target("openai", "gpt-4o")])
    rows = [line.split() for line in text.splitlines() if line.startswith("openai:gpt-4o")]
    prefix = tokens.count(TOOLS) + tokens.count(POLICY)
    assert rows == [["openai:gpt-4o", "o200k_base", f"{prefix:,}", "1,024", f"{1024 + (prefix - 1024) // 128 * 128:,}",
                     f"{(1024 + (prefix - 1024) // 128 * 128) / (prefix + 2):.0%}", "0.5x", "1x"]]


def test_prompt_starting_with_dynamic_content_and_narrow_console():
    lay = PromptLayout(id="t.j2:1", site=span(1), source="template",
                       parts=[Part("system", [Segment(kind=Kind.UNKNOWN, volatility=Volatility.UNKNOWN, expr="intro"),
                                              Segment(text="Static rules.")])])
    lines = draw([lay], width=60)
    assert lines[0] == "t.j2:1  template | provider unknown | model unknown"
    assert lines[1] == "           -- static prefix is empty: the prompt starts wit…"  # cut at 60
    assert all(len(line) <= 60 for line in lines[:4])
    rows = [line for line in lines if line.startswith(("openai:", "anthropic:", "google:"))]
    assert [row.split()[0][:18] for row in rows[:3]] == ["openai:gpt-4.1", "anthropic:claude-s", "google:gemini-2.5-"]
    assert all(len(line) <= 60 for line in rows[:3])


def test_uncropped_drawing_keeps_long_lines_whole_at_the_same_layout_width():
    # off a terminal (a file, a pipe) nothing is cut: the marker lines keep the width, text runs on
    lay = PromptLayout(id="t.j2:1", site=span(1), source="template",
                       parts=[Part("system", [Segment(kind=Kind.UNKNOWN, volatility=Volatility.UNKNOWN, expr="intro"),
                                              Segment(text="Static rules.")])])
    cropped = render_explain([lay], 60).splitlines()
    whole = render_explain([lay], 60, crop=False).splitlines()
    assert cropped[1] == "           -- static prefix is empty: the prompt starts wit…"
    assert whole[1] == "           -- static prefix is empty: the prompt starts with content of unknown origin "
    assert not any("…" in line for line in whole)
    assert len(whole) == len(cropped)


def test_explain_json_has_the_drawing_data():
    data = explain_json([anthropic_layout()])
    json.dumps(data)
    [prompt] = data["prompts"]
    assert (prompt["id"], prompt["provider"], prompt["model"]) == ("chat.py:30", "anthropic", "claude-sonnet-4-5")
    assert prompt["prefix_end"] == {"part": 2, "segment": 0}
    assert prompt["static_prefix_tokens"] == tokens.count(TOOLS) + tokens.count(POLICY)
    assert [p["role"] for p in prompt["parts"]] == ["tools", "system", "history", "user"]
    assert prompt["parts"][1]["breakpoints"] == [{"after": 0, "ttl": "1h",
                                                  "location": {"filename": "chat.py", "row": 32, "column": 40}}]
    stamp = prompt["parts"][3]["segments"][1]
    assert (stamp["static"], stamp["kind"], stamp["volatility"], stamp["expr"], stamp["tokens"]) == (
        False, "timestamp", "per-request", "stamp", None)
    assert prompt["parts"][0]["segments"][0]["tokens"] == tokens.count(TOOLS)
    assert [e["exact"] for e in prompt["estimates"]] == [False]


def test_location_parsing_and_selection():
    assert parse_location("app/chat.py:14") == ("app/chat.py", 14)
    assert parse_location("app/chat.py") == ("app/chat.py", None)
    assert parse_location("app/chat.py:14:9") == ("app/chat.py", 14)  # a finding's location as `check` prints it
    assert parse_location("app/chat.py:x:9") == ("app/chat.py:x", 9)
    assert parse_location("C:odd") == ("C:odd", None)
    lay = anthropic_layout()
    assert select_layouts([lay], 33) == [lay]   # inside the call
    assert select_layouts([lay], 29) == [lay]   # a segment of the prompt
    assert select_layouts([lay], 3) == []
    assert select_layouts([lay], None) == [lay]
    # a line a finding of the prompt names as related (the request that sends a prompt built here)
    from promptlint.model import Diagnostic, Related, Severity
    sent = Span("chat.py", Position(3, 5), Position(3, 40))
    finding = Diagnostic("PRM204", "tools-changed-mid-conversation", Severity.INFO, "...",
                         Span("chat.py", Position(33, 1), Position(33, 9)), prompt=lay.id,
                         related=[Related(sent, "a request")])
    assert select_layouts([lay], 3, "chat.py", [finding]) == [lay]
    assert select_layouts([lay], 4, "chat.py", [finding]) == []


def test_cli_explain_draws_the_case_fixture(monkeypatch, tmp_path):
    from promptlint.cli import main

    case = Path(__file__).resolve().parent.parent / "fixtures" / "cases" / "clean-breakpoint-on-static-system"
    monkeypatch.chdir(shutil.copytree(case, tmp_path / "case"))  # (out of the repository: its project alone is read)
    result = CliRunner().invoke(main, ["explain", "claude_chat.py:37"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "claude_chat.py:34  python-call | anthropic | messages.create | claude-sonnet-4-5"
    assert any(line.startswith("           -- cache breakpoint (ttl 1h) at claude_chat.py:37:") for line in lines)
    assert any(line.startswith("anthropic:claude-sonnet-4-5 Claude 3-4.6") for line in lines)
    result = CliRunner().invoke(main, ["explain", "claude_chat.py:37", "--output-format", "json"])
    assert json.loads(result.stdout)["prompts"][0]["estimates"][0]["min_cacheable_tokens"] == 1024
    result = CliRunner().invoke(main, ["explain", "claude_chat.py:2"])
    assert result.exit_code == 2
    assert "no prompt found at claude_chat.py:2; the nearest prompt of this file is at line 34" in result.stderr


def test_explain_says_why_content_is_unknown(tmp_path, monkeypatch):
    """Where the analysis gives up, explain says why (issue "Recall": what to teach it next)."""
    from click.testing import CliRunner
    from promptlint.cli import main
    (tmp_path / "chat.py").write_text(
        "from openai import OpenAI\n\nclient = OpenAI()\n\n\n"
        "def ask(question):\n"
        "    notes = load_notes()\n"
        "    return client.chat.completions.create(model='gpt-4.1', messages=[\n"
        "        {'role': 'system', 'content': f'Notes: {notes}. ' + 'Answer briefly. ' * 40},\n"
        "        {'role': 'user', 'content': question}])\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    out = CliRunner().invoke(main, ["explain", "chat.py"]).output
    lines = out.splitlines()
    # drawn as the code writes it, `{notes}`, with the value it holds and where that is made
    notes = next(i for i, line in enumerate(lines) if "{notes}" in line)
    assert lines[notes + 1].strip() == "^ the value of `load_notes()` (line 7)"
    assert lines[notes + 2].strip() == "^ unknown: result of `load_notes(...)`"
    assert not any("Answer briefly" in line and "unknown" in line for line in lines)  # `"..." * 40` is text


def test_explain_past_the_end_of_the_file_says_how_long_it_is(tmp_path, monkeypatch):
    from click.testing import CliRunner
    from promptlint.cli import main
    (tmp_path / "e.py").write_text("x = 1\ny = 2\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["explain", "e.py:500", "--no-cache"])
    assert result.exit_code == 2 and "e.py:500: the file has 2 lines" in result.output
    result = CliRunner().invoke(main, ["explain", "e.py:2", "--no-cache"])
    assert result.exit_code == 2 and "no prompt found at e.py:2" in result.output
    assert not (tmp_path / ".promptlint_cache").exists()


def test_explain_checks_its_arguments_before_any_analysis(tmp_path, monkeypatch):
    # a line past the end, or a line of a folder, is said at once: no file is analysed first
    from click.testing import CliRunner
    from promptlint import cli

    def analysed(*args, **kwargs):
        raise AssertionError("analysed before the arguments were checked")

    monkeypatch.setattr(cli, "run_check", analysed)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "e.py").write_text("x = 1\n" * 40, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli.main, ["explain", "app/e.py:43"])
    assert result.exit_code == 2
    assert result.stderr == "promptlint: app/e.py:43: the file has 40 lines\n"
    result = CliRunner().invoke(cli.main, ["explain", "app:3"])
    assert result.exit_code == 2
    assert result.stderr == "promptlint: app:3: app is a folder; a line is a line of a file (FILE:LINE)\n"
    assert not (tmp_path / ".promptlint_cache").exists()


def test_explain_on_a_finding_of_no_one_prompt_prints_the_finding(tmp_path, monkeypatch):
    from click.testing import CliRunner
    from promptlint.cli import main
    (tmp_path / "memory.py").write_text(
        "from collections import deque\n\n\nclass Chat:\n    def __init__(self):\n"
        "        self.history = deque(maxlen=20)\n\n    def add(self, role, text):\n"
        "        self.history.append({\"role\": role, \"content\": text})\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["explain", "memory.py:6", "--no-cache"])
    assert result.exit_code == 0
    assert result.output.startswith("memory.py:6:37: PRM105 [info] The conversation is kept in a bounded deque")
    assert "there is no prompt layout to draw" in result.output


def test_a_format_field_is_drawn_as_written_once_in_braces():
    from promptlint.model import Kind, Segment, Volatility
    from promptlint.report.explain import _preview
    field = Segment(kind=Kind.TEMPLATE_VARIABLE, volatility=Volatility.UNKNOWN, expr="{max_length}")
    jinja = Segment(kind=Kind.TEMPLATE_VARIABLE, volatility=Volatility.UNKNOWN, expr="task")
    assert (_preview(field, 40), _preview(jinja, 40)) == ("{max_length}", "{task}")


def test_explain_reads_the_package_around_a_file_not_the_whole_current_folder(tmp_path, monkeypatch):
    """With no project marker, the files that may send a prompt built in a module are those of the
    outermost package holding it, not every tree under the current folder."""
    from promptlint.scope import package_root, surroundings
    for folder in ("app", "app/agents", "unrelated"):
        (tmp_path / folder).mkdir(exist_ok=True)
    for init in ("app/__init__.py", "app/agents/__init__.py", "unrelated/__init__.py"):
        (tmp_path / init).write_text("", encoding="utf-8")
    (tmp_path / "app/agents/prompts.py").write_text("SYSTEM = 'Answer briefly.'\n", encoding="utf-8")
    (tmp_path / "script.py").write_text("x = 1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert package_root(Path("app/agents/prompts.py")) == Path("app")
    assert surroundings(Path("app/agents/prompts.py")) == ([Path("app")], None)
    assert package_root(Path("script.py")) is None
    # a loose file: the Python files beside it, not the folders under the current one (said)
    (tmp_path / "run.py").write_text("x = 2\n", encoding="utf-8")
    paths, note = surroundings(Path("script.py"))
    assert paths == [Path("script.py"), Path("run.py")]
    assert note == ("script.py is in no project (no .git, pyproject.toml, promptlint.toml above it) and in no "
                    "package: read with the 1 other Python file in `.`, not the 2 folders under it (name a "
                    "folder, or run in one with a pyproject.toml, to read more)")


def test_cli_explain_keeps_its_cache_where_check_does(tmp_path, monkeypatch):
    # PROMPTLINT_CACHE_DIR (and --cache-dir) choose explain's cache folder too, not the project's
    from promptlint.cli import main

    project = tmp_path / "project"
    shutil.copytree(Path(__file__).resolve().parent.parent / "fixtures" / "cases" / "clean-breakpoint-on-static-system",
                    project)
    monkeypatch.chdir(project)
    chosen = tmp_path / "chosen"
    monkeypatch.setenv("PROMPTLINT_CACHE_DIR", str(chosen))
    assert CliRunner().invoke(main, ["explain", "claude_chat.py:37"]).exit_code == 0
    assert (chosen / "CACHEDIR.TAG").is_file() and not (project / ".promptlint_cache").exists()
    flag = tmp_path / "flag"
    assert CliRunner().invoke(main, ["explain", "claude_chat.py:37", "--cache-dir", str(flag)]).exit_code == 0
    assert (flag / "CACHEDIR.TAG").is_file()


def test_explain_in_a_file_with_no_prompt_says_so(tmp_path, monkeypatch):
    from promptlint.cli import main
    (tmp_path / "store.py").write_text("def keep(messages, memory):\n    return [*messages, memory]\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["explain", "store.py:2"])
    assert result.exit_code == 2
    assert result.stderr.strip() == ('promptlint: no prompt found at store.py:2; this file holds no prompt promptlint '
                                     'recognises (requests of the SDKs the README\'s "What is recognised" lists, '
                                     'prompt text kept in names or modules that say prompt, templates and prompt files)')
