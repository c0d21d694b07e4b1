"""The language server: pygls over stdio.

- Diagnostics: checked when a document opens, `debounce` seconds after the last change (from the
  unsaved buffer) and when it is saved; every run checks all open documents (`analysis`), so the
  findings one file causes in another are refreshed when either changes, on disk or in a buffer.
  Files promptlint watches (`WATCHED`) trigger a run when they change on disk.
- Code actions: each fix (safe ones as preferred quick fixes, unsafe ones marked in the title),
  "Suppress PRMxxx on this line", and `source.fixAll.promptlint` (every safe fix of the file).
- Hover over a finding: its message, fix and the rule's documentation (`promptlint rule CODE`).

Code actions and hover answer from the last run, and only while the document is at the version
that run analysed (otherwise positions could be off; the next run is on its way).
"""
from __future__ import annotations

import asyncio
import logging
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Awaitable, Callable

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from .. import __version__
from ..fix import apply_fixes
from ..model import Applicability, Position
from ..rules import rule_by_code
from ..source import SourceError, read_any
from . import convert
from .analysis import Analysis, Analyzer, Document, absolute
from .suppression import comment_syntax, suppression_edit

log = logging.getLogger(__name__)

FIX_ALL = "source.fixAll.promptlint"
WATCHED = "**/*.{py,j2,jinja,jinja2,prompt,md,txt,yaml,yml,toml}"
_NOT_SUPPRESSIBLE = {"PRM001", "PRM901"}  # a syntax error; an unused suppression has its own fix


def uri_path(uri: str) -> Path | None:
    """The resolved path of a `file:` URI, None for other schemes (untitled buffers)."""
    if not uri.startswith("file:"):
        return None
    fs = to_fs_path(uri)
    return Path(os.path.realpath(fs)) if fs else None


class Debouncer:
    """Runs `job` once `delay` seconds after the last `trigger`; a trigger while the job runs
    makes it run once more afterwards. Runs never overlap. Uses the running asyncio loop."""

    def __init__(self, job: Callable[[], Awaitable[None]], delay: float):
        self.job, self.delay = job, delay
        self._timer: asyncio.TimerHandle | None = None
        self._task: asyncio.Task | None = None
        self._again = False
        self._waiters: list[asyncio.Future] = []

    def trigger(self, delay: float | None = None) -> None:
        """Schedule a run after `delay` seconds (default: the debounce delay), replacing a
        scheduled one."""
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(self.delay if delay is None else delay, self._fire)

    def _fire(self) -> None:
        self._timer = None
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)
        self._waiters.clear()
        if self._task is not None and not self._task.done():
            self._again = True
            return
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while True:
            self._again = False
            try:
                await self.job()
            except Exception:  # pragma: no cover - logged, the server goes on
                log.exception("analysis failed")
            if not self._again:
                return

    async def idle(self) -> None:
        """Return once no run is scheduled or running."""
        while True:
            if self._task is not None and not self._task.done():
                await asyncio.shield(self._task)
            elif self._timer is not None:
                waiter = asyncio.get_running_loop().create_future()
                self._waiters.append(waiter)
                await waiter
            else:
                return


class PromptlintServer(LanguageServer):
    """The server's state: the analyzer, the last analysis and the URIs that have findings."""

    def __init__(self, debounce: float = 0.25, analyzer: Analyzer | None = None):
        super().__init__("promptlint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.analyzer = analyzer or Analyzer()
        self.analysis = Analysis()
        self.published: set[str] = set()
        self.client_uris: dict[Path, str] = {}  # open documents' URIs as the client wrote them
        self.shown_errors: set[str] = set()
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="promptlint-check")
        self.scheduler = Debouncer(self.run_analysis, debounce)

    # --- analysis and diagnostics -------------------------------------------------------------

    def open_documents(self) -> list[Document]:
        docs = []
        for uri, doc in list(self.workspace.text_documents.items()):
            path = uri_path(uri)
            if path is not None:
                docs.append(Document(path, doc.source, doc.version))
        return docs

    async def run_analysis(self) -> None:
        docs = self.open_documents()
        folders = [uri_path(f.uri) for f in self.workspace.folders.values()]
        if self.workspace.root_path:
            folders.append(Path(self.workspace.root_path).resolve())
        self.analyzer.folders = [f for f in folders if f is not None]
        loop = asyncio.get_running_loop()
        self.analysis = await loop.run_in_executor(self.executor, self.analyzer.analyse, docs)
        for error in self.analysis.errors:
            if error not in self.shown_errors:
                self.shown_errors.add(error)
                self.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=error))
        self.publish(self.analysis)

    def uri_of(self, path: Path) -> str:
        return self.client_uris.get(path) or from_fs_path(str(path)) or path.as_uri()

    def index_of(self, path: Path, analysis: Analysis) -> convert.LineIndex:
        units = self.workspace.position_codec.client_num_units
        doc = analysis.documents.get(path)
        if doc is not None:
            return convert.LineIndex(doc.text, units)
        try:
            return convert.LineIndex(read_any(path), units)
        except SourceError:
            return convert.LineIndex("", units)

    def lsp_diagnostics(self, path: Path, analysis: Analysis) -> list[types.Diagnostic]:
        index = self.index_of(path, analysis)
        indexes: dict[str, convert.LineIndex] = {}

        def index_of(filename: str) -> convert.LineIndex:
            if filename not in indexes:
                indexes[filename] = self.index_of(absolute(filename), analysis)
            return indexes[filename]

        return [convert.to_lsp_diagnostic(d, index, index_of, lambda f: self.uri_of(absolute(f)))
                for d in analysis.diagnostics.get(path, [])]

    def publish(self, analysis: Analysis) -> None:
        """Publish the findings of every file that has some and of every open document; clear
        files that had findings and have none now."""
        now: set[str] = set()
        for path in dict.fromkeys([*analysis.documents, *analysis.diagnostics]):
            uri = self.uri_of(path)
            diagnostics = self.lsp_diagnostics(path, analysis)
            doc = analysis.documents.get(path)
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                uri=uri, diagnostics=diagnostics, version=doc.version if doc else None))
            if diagnostics:
                now.add(uri)
        for uri in self.published - now - {self.uri_of(p) for p in analysis.documents}:
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        self.published = now

    # --- code actions and hover ---------------------------------------------------------------

    def current(self, uri: str):
        """(path, analysed document, its findings) when the last run saw this document at its
        current version, else None."""
        path = uri_path(uri)
        if path is None:
            return None
        doc = self.analysis.documents.get(path)
        live = self.workspace.get_text_document(uri)  # (a closed one has no version)
        if doc is None or live.version is None or live.version != doc.version:
            return None
        return path, doc, self.analysis.diagnostics.get(path, [])

    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        found = self.current(params.text_document.uri)
        if found is None:
            return []
        path, doc, diagnostics = found
        index = self.index_of(path, self.analysis)
        actions: list[types.CodeAction] = []
        kind = comment_syntax(path)
        for d in diagnostics:
            rng = index.range(d.span.start, d.span.end)
            if not convert.overlaps(rng, params.range):
                continue
            lsp_diag = convert.to_lsp_diagnostic(d, index, lambda f: index, lambda f: params.text_document.uri)
            if d.fix is not None and d.fix.edits and d.fix.applicability is not Applicability.DISPLAY_ONLY:
                safe = d.fix.applicability is Applicability.SAFE
                actions.append(types.CodeAction(
                    title=f"{convert.fix_title(d.fix)} ({d.code})", kind=types.CodeActionKind.QuickFix,
                    diagnostics=[lsp_diag], is_preferred=safe,
                    edit=self.workspace_edit(params.text_document.uri, doc.version,
                                             convert.text_edits(d.fix.edits, index))))
            if d.code not in _NOT_SUPPRESSIBLE:
                edit = suppression_edit(doc.text, d, kind)
                if edit is not None:
                    actions.append(types.CodeAction(
                        title=f"Suppress {d.code} on this line", kind=types.CodeActionKind.QuickFix,
                        diagnostics=[lsp_diag],
                        edit=self.workspace_edit(params.text_document.uri, doc.version,
                                                 convert.text_edits([edit], index))))
        fixed, applied = apply_fixes(doc.text, diagnostics, unsafe=False)
        if applied and fixed != doc.text:
            end = index.to_lsp(Position(len(index.lines), len(index.lines[-1]) + 1))
            actions.append(types.CodeAction(
                title="Fix all safe promptlint findings", kind=FIX_ALL,
                edit=self.workspace_edit(params.text_document.uri, doc.version, [types.TextEdit(
                    range=types.Range(start=types.Position(line=0, character=0), end=end), new_text=fixed)])))
        only = params.context.only
        if only:
            actions = [a for a in actions if any(a.kind == k or a.kind.startswith(f"{k}.") for k in only)]
        return actions

    def workspace_edit(self, uri: str, version: int | None, edits: list[types.TextEdit]) -> types.WorkspaceEdit:
        caps = self.client_capabilities.workspace
        if caps and caps.workspace_edit and caps.workspace_edit.document_changes:
            return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                edits=edits)])
        return types.WorkspaceEdit(changes={uri: edits})

    def hover(self, params: types.HoverParams) -> types.Hover | None:
        found = self.current(params.text_document.uri)
        if found is None:
            return None
        path, _doc, diagnostics = found
        index = self.index_of(path, self.analysis)
        here = [d for d in diagnostics if convert.contains(index.range(d.span.start, d.span.end), params.position)]
        if not here:
            return None

        def doc_of(code: str) -> str | None:
            rule = rule_by_code(code)
            return rule.doc() if rule is not None else None

        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown,
                                                        value=convert.hover_markdown(here, doc_of)))


def build_server(debounce: float = 0.25, analyzer: Analyzer | None = None) -> PromptlintServer:
    """A server with every feature registered (not started)."""
    server = PromptlintServer(debounce, analyzer)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: PromptlintServer, params: types.InitializedParams) -> None:
        caps = ls.client_capabilities.workspace
        if caps and caps.did_change_watched_files and caps.did_change_watched_files.dynamic_registration:
            await ls.client_register_capability_async(types.RegistrationParams(registrations=[types.Registration(
                id="promptlint-watched-files", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=types.DidChangeWatchedFilesRegistrationOptions(
                    watchers=[types.FileSystemWatcher(glob_pattern=WATCHED)]))]))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: PromptlintServer, params: types.DidOpenTextDocumentParams) -> None:
        path = uri_path(params.text_document.uri)
        if path is not None:
            ls.client_uris[path] = params.text_document.uri
        ls.scheduler.trigger(0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: PromptlintServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.scheduler.trigger()

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: PromptlintServer, params: types.DidSaveTextDocumentParams) -> None:
        path = uri_path(params.text_document.uri)
        if path is not None:
            ls.analyzer.file_changed(path)
        ls.scheduler.trigger(0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: PromptlintServer, params: types.DidCloseTextDocumentParams) -> None:
        path = uri_path(params.text_document.uri)
        if path is not None:
            ls.client_uris.pop(path, None)
        ls.scheduler.trigger(0)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: PromptlintServer, params: types.DidChangeWatchedFilesParams) -> None:
        for change in params.changes:
            path = uri_path(change.uri)
            if path is not None:
                ls.analyzer.file_changed(path, change.type is not types.FileChangeType.Changed)
        ls.scheduler.trigger(0)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=False))
    def code_action(ls: PromptlintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        return ls.code_actions(params)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: PromptlintServer, params: types.HoverParams) -> types.Hover | None:
        return ls.hover(params)

    return server


def serve(debounce: float = 0.25) -> None:
    """Serve on stdin/stdout. Anything else printed goes to stderr, so that stray output can never
    corrupt the protocol stream."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="promptlint server: %(message)s")
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr
    build_server(debounce).start_io(stdin, stdout)
