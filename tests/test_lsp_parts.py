"""The language server's parts in process: positions, edits, suppression comments, the debounced
scheduler and the analysis of open documents (the server itself: test_lsp_server.py)."""
from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types

from promptlint.fix import apply_edits
from promptlint.lsp.analysis import Analyzer, Document
from promptlint.lsp.convert import LineIndex, overlaps, text_edits
from promptlint.lsp.server import Debouncer
from promptlint.lsp.suppression import comment_syntax, suppression_edit
from promptlint.model import Diagnostic, Edit, Position, Report, Severity, Span


def utf32(text: str) -> int:
    return len(text)


@pytest.mark.parametrize("units, expected", [(None, 7), (utf32, 6)])
def test_positions_count_the_clients_code_units(units, expected):
    """An emoji is two UTF-16 code units (LSP's default) and one code point."""
    index = LineIndex('x = "😋"\nnext', units) if units else LineIndex('x = "😋"\nnext')
    closing_quote = Position(1, 7)  # 1-based column in characters
    assert index.to_lsp(closing_quote) == types.Position(line=0, character=expected)
    assert index.to_lsp(Position(2, 5)) == types.Position(line=1, character=4)
    assert index.to_lsp(Position(9, 1)) == types.Position(line=1, character=4)  # past the end: clamped


def test_edits_keep_a_crlf_files_line_endings():
    index = LineIndex("a = 1\r\nb = 2\r\n")
    [edit] = text_edits([Edit("x\ny", Position(1, 1), Position(1, 2))], index)
    assert edit.new_text == "x\r\ny"
    assert edit.range == types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=1))


def test_ranges_that_touch_overlap():
    def rng(a, b):
        return types.Range(start=types.Position(line=0, character=a), end=types.Position(line=0, character=b))
    assert overlaps(rng(2, 5), rng(5, 5)) and overlaps(rng(5, 5), rng(2, 5))
    assert not overlaps(rng(2, 5), rng(6, 9))


def finding(filename: str, row: int, column: int = 1, code: str = "PRM102") -> Diagnostic:
    return Diagnostic(code, "timestamp-in-prefix", Severity.WARNING, "m",
                      Span(filename, Position(row, column), Position(row, column + 1)))


def suppressed(text: str, filename: str, row: int, code: str = "PRM102") -> str | None:
    edit = suppression_edit(text, finding(filename, row, code=code), comment_syntax(Path(filename)))
    return None if edit is None else apply_edits(text, [edit])


def test_suppression_comment_at_the_end_of_the_line():
    text = 'x = f"{now}"\ny = 1\n'
    assert suppressed(text, "a.py", 1) == 'x = f"{now}"  # promptlint: ignore[PRM102]\ny = 1\n'


def test_suppression_comment_where_a_multi_line_string_ends():
    text = 'S = f"""\nnow: {now}\nstatic\n"""\n'
    assert suppressed(text, "a.py", 2) == 'S = f"""\nnow: {now}\nstatic\n"""  # promptlint: ignore[PRM102]\n'


def test_suppression_code_added_to_an_existing_comment():
    text = 'x = f"{now}{uid}"  # promptlint: ignore[PRM103]\n'
    assert suppressed(text, "a.py", 1) == 'x = f"{now}{uid}"  # promptlint: ignore[PRM103, PRM102]\n'


def test_suppression_after_a_line_continuation_goes_on_its_own_line():
    text = 'x = 1 + \\\n    2\n'
    assert suppressed(text, "a.py", 1) == '# promptlint: ignore[PRM102]\nx = 1 + \\\n    2\n'


def test_suppression_in_jinja_yaml_and_toml():
    assert suppressed("Now: {{ now }}\nRules.\n", "p/system.md.j2", 1) == \
        "Now: {{ now }}{# promptlint: ignore[PRM102] #}\nRules.\n"
    yaml_text = "system: |\n  Now: {now}\n  Rules.\nother: 1\n"
    assert suppressed(yaml_text, "cfg.yaml", 2) == \
        "# promptlint: ignore[PRM102]\nsystem: |\n  Now: {now}\n  Rules.\nother: 1\n"
    toml_text = 'system = """\nNow: {now}\n"""\n'
    assert suppressed(toml_text, "cfg.toml", 2) == 'system = """\nNow: {now}\n"""  # promptlint: ignore[PRM102]\n'


def test_no_suppression_where_every_line_is_prompt_text():
    assert comment_syntax(Path("prompts/system.txt")) is None
    assert comment_syntax(Path("agent.prompt")) is None
    assert suppressed("Now: {now}\n", "prompts/system.txt", 1) is None
    assert suppressed("x = (\n", "broken.py", 1) is None  # nothing to verify against


def test_debouncer_runs_once_for_a_burst_and_again_for_a_change_during_a_run():
    async def main():
        runs = []

        async def job():
            runs.append(len(runs))
            if len(runs) == 1:  # changes arrive while the first run is busy
                scheduler.trigger(0)
                scheduler.trigger(0)

        scheduler = Debouncer(job, delay=3600)
        scheduler.trigger()  # the debounce delay: would wait an hour...
        scheduler.trigger(0)  # ...but an open or save replaces it with an immediate run
        scheduler.trigger(0)
        await scheduler.idle()
        return runs

    assert asyncio.run(main()) == [0, 1]


class RecordingChecker:
    def __init__(self):
        self.calls = []

    def __call__(self, paths, settings, jobs=None, overlays=None):
        self.calls.append(([Path(p) for p in paths], settings, dict(overlays or {})))
        return Report(diagnostics=[finding(str(paths[0]), 1)])


def test_analysis_groups_documents_by_config_and_adds_a_templates_callers(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "promptlint.toml").write_text('ignore = ["PRM104"]\n', encoding="utf-8")
    chat = tmp_path / "a" / "chat.py"
    chat.write_text("x = 1\n", encoding="utf-8")
    template = tmp_path / "a" / "templates" / "system.md.j2"
    template.parent.mkdir()
    template.write_text("Now: {{ now }}\n", encoding="utf-8")
    (tmp_path / "a" / "render.py").write_text('env.get_template("system.md.j2")\n', encoding="utf-8")
    (tmp_path / "a" / "other.py").write_text("y = 2\n", encoding="utf-8")
    loose = tmp_path / "b.py"
    loose.write_text("z = 3\n", encoding="utf-8")
    checker = RecordingChecker()
    docs = [Document(chat.resolve(), "x = 2  # unsaved\n", 3), Document(template.resolve(), "Now: {{ now }}\n", 1),
            Document(loose.resolve(), "z = 3\n", 1), Document((tmp_path / "new.py").resolve(), "", 1)]
    analysis = Analyzer(checker, folders=[tmp_path]).analyse(docs)
    groups = {tuple(p.name for p in paths): settings for paths, settings, _ in checker.calls}
    assert set(groups) == {("chat.py", "system.md.j2", "render.py"), ("b.py",)}  # new.py: not on disk yet
    assert groups[("chat.py", "system.md.j2", "render.py")].ignore == ["PRM104"]
    assert groups[("b.py",)].config_path is None
    assert all(overlays[chat.resolve()] == "x = 2  # unsaved\n" for _, _, overlays in checker.calls)
    assert analysis.errors == [] and set(analysis.documents) == {d.path for d in docs}


def test_analysis_of_an_unsaved_buffer_reports_its_findings_and_leaves_the_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "chat.py"
    on_disk = 'from openai import OpenAI\n\nOpenAI().chat.completions.create(model="gpt-4o", messages=[])\n'
    path.write_text(on_disk, encoding="utf-8")
    unsaved = ('import json\nfrom openai import OpenAI\n\ndef ask(q, data):\n'
               '    return OpenAI().chat.completions.create(model="gpt-4o", messages=['
               '{"role": "system", "content": f"Data: {json.dumps(data)}"}, {"role": "user", "content": q}])\n')
    analysis = Analyzer(folders=[tmp_path]).analyse([Document(path.resolve(), unsaved, 2)])
    assert [d.code for d in analysis.diagnostics[path.resolve()]] == ["PRM201"]
    assert path.read_text(encoding="utf-8") == on_disk


def test_a_broken_config_is_an_error_of_the_run_not_an_exception(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.promptlint]\nselect = [\n", encoding="utf-8")
    (tmp_path / "chat.py").write_text("x = 1\n", encoding="utf-8")
    checker = RecordingChecker()
    analysis = Analyzer(checker).analyse([Document((tmp_path / "chat.py").resolve(), "x = 1\n", 1)])
    assert len(analysis.errors) == 1 and "invalid TOML" in analysis.errors[0]
    assert checker.calls and checker.calls[0][1].select is None  # the defaults
