"""`promptlint server` end to end: a real LSP client (pygls) talks to the server in a subprocess
over stdio. Each test is one server session; the server runs with no debounce."""
from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from lsp_session import apply_text_edits, edits_of, run

POLICY = "\n".join(f"Rule {i}: answer questions about order {i} politely and cite section {i} of the policy."
                   for i in range(1, 90))
CHAT = f'''import json
from datetime import datetime

from openai import OpenAI

client = OpenAI()
POLICY = """{POLICY}
"""


def answer(question: str, profile: dict[str, str]) -> str:
    system = f"""Time: {{datetime.now():%H:%M}}
You are the support assistant of Harbor.
Customer: {{json.dumps(profile)}}
{{POLICY}}"""
    reply = client.chat.completions.create(
        model="gpt-4o",
        messages=[{{"role": "system", "content": system}}, {{"role": "user", "content": question}}],
    )
    return reply.choices[0].message.content
'''
STAMP = "{datetime.now():%H:%M}"
LINES = CHAT.split("\n")
SYSTEM_ROW = next(i for i, line in enumerate(LINES) if line.startswith("    system ="))  # 0-based


def by_code(diagnostics, code):
    found = [d for d in diagnostics if d.code == code]
    assert len(found) == 1, [(d.code, d.message) for d in diagnostics]
    return found[0]


def test_timestamp_diagnostic_safe_fix_and_edit_clear_it(tmp_path):
    """Issue 15 acceptance: PRM102 with the right range, a safe fix applied through its code
    action, and a buffer change that fixes the timestamp makes the diagnostic go."""
    (tmp_path / "chat.py").write_text(CHAT, encoding="utf-8")

    async def scenario(s):
        caps = s.server_capabilities
        assert caps.hover_provider and caps.text_document_sync.change == types.TextDocumentSyncKind.Incremental
        assert set(caps.code_action_provider.code_action_kinds) == {"quickfix", "source.fixAll.promptlint"}
        uri = s.open(tmp_path / "chat.py")
        first = await s.diagnostics(uri, 1)
        stamp = by_code(first, "PRM102")
        column = LINES[SYSTEM_ROW].index(STAMP)
        assert stamp.range == types.Range(start=types.Position(line=SYSTEM_ROW, character=column),
                                          end=types.Position(line=SYSTEM_ROW, character=column + len(STAMP)))
        assert stamp.severity == types.DiagnosticSeverity.Warning and stamp.source == "promptlint"
        assert stamp.message.startswith("Timestamp `datetime.now()")

        dumps = by_code(first, "PRM201")
        actions = await s.code_actions(uri, dumps.range)
        safe = [a for a in actions if a.title == "Add `sort_keys=True` (PRM201)"]
        assert len(safe) == 1 and safe[0].kind == types.CodeActionKind.QuickFix and safe[0].is_preferred
        fixed = apply_text_edits(CHAT, edits_of(safe[0], uri))
        assert fixed == CHAT.replace("json.dumps(profile)", "json.dumps(profile, sort_keys=True)")

        version = s.change(uri, fixed)
        second = await s.diagnostics(uri, version)
        assert [d.code for d in second] == ["PRM102"]

        # the time moves to the newest user message: the system prompt is static again
        moved = fixed.replace(f"Time: {STAMP}\n", "").replace(
            '"content": question}', '"content": f"{question}\\n\\nTime: ' + STAMP + '"}')
        version = s.change(uri, moved)
        assert await s.diagnostics(uri, version) == []

    run(scenario, tmp_path)


# The policy before the customer's profile: moving the time past both caches the policy (the
# profile, a parameter, may change). In CHAT the profile comes first, so the move caches nothing
# more that can be shown and is offered nowhere (`gains.move_pays`, as `fix` judges it).
MOVE_CHAT = CHAT.replace("Customer: {json.dumps(profile)}\n{POLICY}", "{POLICY}\nCustomer: {json.dumps(profile)}")


def test_unsafe_fix_suppression_and_hover(tmp_path):
    tmp_path = tmp_path / "my project"  # URIs with an escaped space
    tmp_path.mkdir()
    (tmp_path / "chat.py").write_text(MOVE_CHAT, encoding="utf-8")

    async def scenario(s):
        uri = s.open(tmp_path / "chat.py")
        assert "my%20project" in uri
        stamp = by_code(await s.diagnostics(uri, 1), "PRM102")
        actions = {a.title: a for a in await s.code_actions(uri, stamp.range)}
        unsafe = [a for t, a in actions.items() if t.endswith("(unsafe: changes the prompt) (PRM102)")]
        assert len(unsafe) == 1 and not unsafe[0].is_preferred
        assert unsafe[0].diagnostics[0].code == "PRM102"
        moved = apply_text_edits(MOVE_CHAT, edits_of(unsafe[0], uri))
        assert moved.split("\n")[SYSTEM_ROW:SYSTEM_ROW + 4] == [
            '    system = f"""You are the support assistant of Harbor.', "{POLICY}",
            "Customer: {json.dumps(profile)}", f'Time: {STAMP}"""']
        version = s.change(uri, moved)
        assert [d.code for d in await s.diagnostics(uri, version)] == ["PRM201"]

        # the finding sits inside a multi-line string: the comment goes where the string ends
        version = s.change(uri, MOVE_CHAT)
        stamp = by_code(await s.diagnostics(uri, version), "PRM102")
        suppress = {a.title: a for a in await s.code_actions(uri, stamp.range)}["Suppress PRM102 on this line"]
        suppressed = apply_text_edits(MOVE_CHAT, edits_of(suppress, uri))
        assert suppressed.split("\n")[SYSTEM_ROW + 3] == 'Customer: {json.dumps(profile)}"""  # promptlint: ignore[PRM102]'
        version = s.change(uri, suppressed)
        assert [d.code for d in await s.diagnostics(uri, version)] == ["PRM201"]

        only_fix_all = await s.code_actions(uri, types.Range(start=types.Position(line=0, character=0),
                                                             end=types.Position(line=0, character=0)),
                                            only=[types.CodeActionKind.SourceFixAll])
        assert [a.kind for a in only_fix_all] == ["source.fixAll.promptlint"]
        assert "json.dumps(profile, sort_keys=True)" in apply_text_edits(suppressed, edits_of(only_fix_all[0], uri))

        dumps = by_code(await s.diagnostics(uri, version), "PRM201")
        hover = await s.hover(uri, dumps.range.start)
        assert hover.contents.kind == types.MarkupKind.Markdown
        text = hover.contents.value
        assert text.startswith("**PRM201** `unsorted-json-dumps` (info)")
        assert "## What it does" in text and "## Why is this bad?" in text
        assert await s.hover(uri, types.Position(line=0, character=0)) is None

    run(scenario, tmp_path)


def test_each_project_config_is_honoured(tmp_path):
    """Documents are checked with the config file that governs them; a broken one is reported to
    the user and its documents get the defaults; files check does not look at get no findings."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "pyproject.toml").write_text('[tool.promptlint]\nignore = ["PRM201"]\n', encoding="utf-8")
    (tmp_path / "a" / "chat.py").write_text(CHAT, encoding="utf-8")
    (tmp_path / "a" / "notes.md").write_text("# Notes\n\nNot a prompt: {x}\n", encoding="utf-8")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "promptlint.toml").write_text('selct = ["PRM1"]\n', encoding="utf-8")
    (tmp_path / "b" / "chat.py").write_text(CHAT, encoding="utf-8")

    async def scenario(s):
        notes = s.open(tmp_path / "a" / "notes.md", language="markdown")
        a = s.open(tmp_path / "a" / "chat.py")
        b = s.open(tmp_path / "b" / "chat.py")
        assert [d.code for d in await s.diagnostics(a, 1)] == ["PRM102"]
        assert [d.code for d in await s.diagnostics(b, 1)] == ["PRM102", "PRM201"]
        assert await s.diagnostics(notes, 1) == []
        assert any("unknown key" in m and "selct" in m for m in s.messages), s.messages

    run(scenario, tmp_path)


PROMPTS = 'from datetime import datetime\n\nSYSTEM = f"Now: {datetime.now():%H:%M}\\n\\n' + "Be brief. " * 3 + '"\n'
CALLER = '''from openai import OpenAI

from prompts import SYSTEM

client = OpenAI()


def reply(history: list[dict]) -> str:
    out = client.chat.completions.create(model="gpt-4o", messages=[{"role": "system", "content": SYSTEM}, *history])
    return out.choices[0].message.content
'''


def test_cross_file_findings_refresh_when_the_other_file_changes(tmp_path):
    (tmp_path / "prompts.py").write_text(PROMPTS, encoding="utf-8")
    (tmp_path / "caller.py").write_text(CALLER, encoding="utf-8")
    prompts_uri = (tmp_path / "prompts.py").resolve().as_uri()

    async def scenario(s):
        registered = await s.wait_for(lambda: s.registrations or None)
        assert [r.method for r in registered] == ["workspace/didChangeWatchedFiles"]
        s.open(tmp_path / "caller.py")
        found = await s.wait_for(lambda: s.published.get(prompts_uri, [None])[-1])
        assert [d.code for d in found.diagnostics] == ["PRM102"]

        # the constant's module is fixed on disk: the file watcher reports it, the finding goes
        (tmp_path / "prompts.py").write_text(PROMPTS.replace("Now: {datetime.now():%H:%M}\\n\\n", ""), encoding="utf-8")
        count = len(s.published[prompts_uri])
        s.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=prompts_uri, type=types.FileChangeType.Changed)]))
        cleared = await s.wait_for(lambda: s.published[prompts_uri][-1] if len(s.published[prompts_uri]) > count else None)
        assert list(cleared.diagnostics) == []

        # an unsaved buffer of the other file counts too
        s.open(tmp_path / "prompts.py", text=PROMPTS)
        again = await s.wait_for(lambda: next((p for p in s.published[prompts_uri][count + 1:] if p.diagnostics), None))
        assert [d.code for d in again.diagnostics] == ["PRM102"] and again.version == 1

        # saving checks again (the file on disk is what other tools see)
        count = len(s.published[prompts_uri])
        s.client.text_document_did_save(types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=prompts_uri)))
        saved = await s.wait_for(lambda: s.published[prompts_uri][-1] if len(s.published[prompts_uri]) > count else None)
        assert [d.code for d in saved.diagnostics] == ["PRM102"]

    run(scenario, tmp_path)


DEMO = Path(__file__).resolve().parents[1] / "fixtures" / "demo"


def test_same_findings_as_check(monkeypatch):
    """Codes, severities, messages, ranges and related locations equal `check` on the project
    (an open template is checked with the Python code that renders it)."""
    from promptlint.api import check
    from promptlint.config import Settings
    monkeypatch.chdir(DEMO)
    names = ["helpdesk/chat_openai.py", "helpdesk/templates/system.md.j2"]
    report = check(["."], Settings(), jobs=1)
    severity = {"error": 1, "warning": 2, "info": 3}

    def summary(d):
        return (d.code, severity[d.severity.value], d.message, d.span.start.row, d.span.start.column,
                [((DEMO / r.span.filename).resolve().as_uri(), r.span.start.row, r.message) for r in d.related])

    expected = {name: [summary(d) for d in report.diagnostics if d.span.filename == name] for name in names}
    assert all(expected.values()) and any(s[5] for found in expected.values() for s in found)

    async def scenario(s):
        uris = {name: s.open(DEMO / name, language="jinja" if name.endswith(".j2") else "python") for name in names}
        got = {}
        for name, uri in uris.items():
            got[name] = [(d.code, int(d.severity), d.message, d.range.start.line + 1, d.range.start.character + 1,
                          [(r.location.uri, r.location.range.start.line + 1, r.message)
                           for r in d.related_information or []])
                         for d in await s.diagnostics(uri, 1)]
        return got

    assert run(scenario, DEMO) == expected
