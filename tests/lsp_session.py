"""A real LSP client session with `promptlint server` in a subprocess over stdio (pygls's client).

`run(scenario, root)` starts the server with no debounce, initializes it with `root` as the
workspace folder, awaits `scenario(session)` and shuts the server down. The session keeps every
`textDocument/publishDiagnostics` notification; `diagnostics(uri, version)` waits for the one of a
document version. Waits are bounded by a deadline only so that a broken server fails the test
instead of hanging it; nothing is timed.
"""
from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

DEADLINE = 60.0  # seconds; a guard against a hung server, not a speed requirement


class Session:
    def __init__(self, client: LanguageClient):
        self.client = client
        self.published: dict[str, list[types.PublishDiagnosticsParams]] = {}
        self.changed = asyncio.Condition()
        self.versions: dict[str, int] = {}
        self.texts: dict[str, str] = {}
        self.registrations: list[types.Registration] = []
        self.messages: list[str] = []

    async def record(self, params: types.PublishDiagnosticsParams) -> None:
        async with self.changed:
            self.published.setdefault(params.uri, []).append(params)
            self.changed.notify_all()

    async def wait_for(self, predicate):
        """The first value of `predicate()` that is not None, waiting for new notifications."""
        async def loop():
            async with self.changed:
                while (found := predicate()) is None:
                    await self.changed.wait()
                return found
        return await asyncio.wait_for(loop(), DEADLINE)

    async def diagnostics(self, uri: str, version: int | None = None) -> list[types.Diagnostic]:
        """The diagnostics published for `uri` (for `version` when given: the latest with it),
        waiting until they arrive."""
        def find():
            for params in reversed(self.published.get(uri, [])):
                if version is None or params.version == version:
                    return list(params.diagnostics)
            return None
        return await self.wait_for(find)

    def open(self, path: Path, text: str | None = None, language: str = "python") -> str:
        uri = path.resolve().as_uri()
        text = path.read_text(encoding="utf-8") if text is None else text
        self.versions[uri], self.texts[uri] = 1, text
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=uri, language_id=language, version=1, text=text)))
        return uri

    def change(self, uri: str, text: str) -> int:
        """Replace the whole buffer (an incremental change covering the old text); the new version."""
        old = self.texts[uri]
        lines = old.split("\n")
        end = types.Position(line=len(lines) - 1, character=len(lines[-1].encode("utf-16-le")) // 2)
        self.versions[uri] += 1
        self.texts[uri] = text
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=types.Position(line=0, character=0), end=end), text=text)]))
        return self.versions[uri]

    async def code_actions(self, uri: str, rng: types.Range, only=None) -> list[types.CodeAction]:
        result = await asyncio.wait_for(self.client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=rng,
            context=types.CodeActionContext(diagnostics=[], only=only))), DEADLINE)
        return list(result or [])

    async def hover(self, uri: str, pos: types.Position) -> types.Hover | None:
        return await asyncio.wait_for(self.client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=pos)), DEADLINE)


def apply_text_edits(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP text edits (UTF-16 positions) to `text`, as an editor does."""
    lines = text.split("\n")

    def offset(pos: types.Position) -> int:
        before = sum(len(line) + 1 for line in lines[: pos.line])
        line, units, col = lines[pos.line] if pos.line < len(lines) else "", 0, 0
        while col < len(line) and units < pos.character:
            units += len(line[col].encode("utf-16-le")) // 2
            col += 1
        return before + col

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start, end = offset(edit.range.start), offset(edit.range.end)
        text = text[:start] + edit.new_text + text[end:]
    return text


def edits_of(action: types.CodeAction, uri: str) -> list[types.TextEdit]:
    """The text edits a code action makes to `uri` (WorkspaceEdit `changes` or `documentChanges`)."""
    edit = action.edit
    if edit.document_changes:
        return [e for dc in edit.document_changes if dc.text_document.uri == uri for e in dc.edits]
    return list((edit.changes or {}).get(uri, []))


def run(scenario, root: Path, capabilities: types.ClientCapabilities | None = None, cwd: Path | None = None):
    """Start `python -m promptlint server --debounce-ms 0` in `cwd` (default `root`), initialize it
    with `root` as the workspace, run `scenario(session)`, shut the server down; returns what the
    scenario returns."""
    async def main():
        client = LanguageClient("promptlint-tests", "1")
        session = Session(client)

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        async def on_diagnostics(params: types.PublishDiagnosticsParams):
            await session.record(params)

        @client.feature(types.WINDOW_SHOW_MESSAGE)
        def on_message(params: types.ShowMessageParams):
            session.messages.append(params.message)

        @client.feature(types.CLIENT_REGISTER_CAPABILITY)
        async def on_register(params: types.RegistrationParams):
            async with session.changed:
                session.registrations.extend(params.registrations)
                session.changed.notify_all()

        await client.start_io(sys.executable, "-m", "promptlint", "server", "--debounce-ms", "0",
                              cwd=str(cwd or root))
        try:
            caps = capabilities or types.ClientCapabilities(
                workspace=types.WorkspaceClientCapabilities(
                    workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True),
                    did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(
                        dynamic_registration=True)),
                text_document=types.TextDocumentClientCapabilities(
                    publish_diagnostics=types.PublishDiagnosticsClientCapabilities(related_information=True)))
            result = await asyncio.wait_for(client.initialize_async(types.InitializeParams(
                capabilities=caps, root_uri=root.resolve().as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=root.resolve().as_uri(), name=root.name)])), DEADLINE)
            session.server_capabilities = result.capabilities
            client.initialized(types.InitializedParams())
            return await scenario(session)
        finally:
            try:
                await asyncio.wait_for(client.shutdown_async(None), DEADLINE)
                client.exit(None)
            finally:
                await asyncio.wait_for(client.stop(), DEADLINE)

    return asyncio.run(main())
