"""Helpers of the analysis tests (tests/sdks, tests/flow): real code written to a folder, read by
the public analysis (`tree.Project`, `flow.Evaluator`, `sites.find_layouts`), and compact
descriptions of what it found, so the tests can assert real values.

- `layouts(root, source, files=...)`: the PromptLayouts of `app.py` (`source`, dedented), with the
  other `files` of the tree written next to it.
- `probe(root, source, ...)`: the value of the argument of the `probe(...)` call in `source`,
  evaluated in the frame of the function around it (as the site finder evaluates a request's
  arguments): a `Probed` with the value, the evaluator, the frame and the module.
- `seg(s)` / `segs(...)` / `parts(layout)`: ("text", "...") for static text, (kind, volatility,
  expr) for a dynamic segment.
- `pos(source, needle)`: the 1-based (row, column) where `needle` starts in the dedented source.
- `fixture_findings(folder, name, tmp_path)`: the diagnostics of one fixture file checked alone,
  copied out of the repository first (checked inside it, its project would be the repository).
"""
from __future__ import annotations

import ast
import shutil
import textwrap
from dataclasses import dataclass
from pathlib import Path

from promptlint import api
from promptlint.model import Diagnostic, Position, PromptLayout, Segment
from promptlint.python import linking
from promptlint.python.flow import Evaluator
from promptlint.python.sites import find_layouts
from promptlint.python.tree import Project


def code(text: str) -> str:
    """Source text as the tests write it: dedented, without the first newline."""
    return textwrap.dedent(text).lstrip("\n")


def write(root: Path, files: dict[str, str]) -> None:
    """Write `files` (relative path -> text, dedented) under `root`."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code(text), encoding="utf-8")


def evaluator(root: Path) -> Evaluator:
    """An evaluator over the tree at `root`, with the engine's template and config hooks."""
    return Evaluator(Project([root]), template_hook=linking.template_hook, config_hook=linking.config_hook)


def layouts(root: Path, source: str, files: dict[str, str] | None = None, name: str = "app.py") -> list[PromptLayout]:
    """The layouts the site finder records for `name` (written from `source`)."""
    write(root, {**(files or {}), name: source})
    ev = evaluator(root)
    module = ev.project.load(root / name)
    return find_layouts(module, ev)


def sent(found: list[PromptLayout]) -> list[PromptLayout]:
    """The layouts of calls that send a prompt (source `python-call`)."""
    return [lt for lt in found if lt.source == "python-call"]


def one_call(root: Path, source: str, files: dict[str, str] | None = None) -> PromptLayout:
    """The only send site of `source` (fails when there is not exactly one)."""
    found = sent(layouts(root, source, files))
    assert len(found) == 1, [(lt.id, lt.api) for lt in found]
    return found[0]


def seg(s: Segment) -> tuple:
    """("text", text) for static text; (kind, volatility, expr) for a dynamic segment."""
    if s.is_static:
        return ("text", s.text)
    return (s.kind.value, s.volatility.value, s.expr)


def segs(items) -> list[tuple]:
    return [seg(s) for s in items]


def parts(layout: PromptLayout) -> list[tuple]:
    """(role, [segment descriptions]) of each part, in request order."""
    return [(p.role, segs(p.segments)) for p in layout.parts]


def roles(layout: PromptLayout) -> list[str]:
    return [p.role for p in layout.parts]


def pos(source: str, needle: str, nth: int = 0) -> Position:
    """Where the `nth` occurrence of `needle` starts in `code(source)` (1-based row and column)."""
    text = code(source)
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    row = text.count("\n", 0, at) + 1
    return Position(row, at - (text.rfind("\n", 0, at) + 1) + 1)


def end(source: str, needle: str, nth: int = 0) -> Position:
    """The position just after the `nth` occurrence of `needle` in `code(source)`."""
    start = pos(source, needle, nth)
    lines = needle.split("\n")
    if len(lines) == 1:
        return Position(start.row, start.column + len(needle))
    return Position(start.row + len(lines) - 1, len(lines[-1]) + 1)


@dataclass
class Probed:
    value: object
    ev: Evaluator
    frame: object
    module: object

    @property
    def segs(self) -> list[Segment]:
        """The value as text (`str(value)`)."""
        return self.ev.text_of(self.value, self.frame)

    @property
    def described(self) -> list[tuple]:
        return segs(self.segs)

    @property
    def text(self) -> str:
        """The static text of the value (dynamic segments left out)."""
        return "".join(s.text for s in self.segs if s.is_static)


def probe(root: Path, source: str, files: dict[str, str] | None = None, name: str = "app.py",
          index: int = 0, ev: Evaluator | None = None) -> Probed:
    """The value of the argument of the `index`-th `probe(...)` call of `source`, evaluated in
    the frame of its function (its class when a method; the module's at top level), with a
    fresh work budget."""
    write(root, {**(files or {}), name: source})
    ev = ev or evaluator(root)
    module = ev.project.load(root / name)
    found = []
    todo = [(module.tree, [])]
    while todo:
        node, stack = todo.pop(0)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "probe":
            found.append((node, stack))
        inner = stack + [node] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else stack
        todo.extend((child, inner) for child in ast.iter_child_nodes(node))
    found.sort(key=lambda f: (f[0].lineno, f[0].col_offset))
    call, stack = found[index]
    func = next((n for n in reversed(stack) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    if func is None:
        frame = ev.module_frame(module)
    else:
        i = stack.index(func)
        cls = stack[i - 1] if i > 0 and isinstance(stack[i - 1], ast.ClassDef) else None
        frame = ev.function_frame(module, func, cls)
    ev.reset_budget()
    return Probed(ev.eval(call.args[0], frame), ev, frame, module)


def fixture_findings(folder: Path, name: str, tmp_path: Path) -> list[Diagnostic]:
    """The diagnostics of `folder / name` checked alone (one process), from a copy in `tmp_path`."""
    shutil.copy(folder / name, tmp_path / name)
    return api.check([tmp_path / name], api.Settings(), jobs=1).diagnostics


def stub_module(text: str):
    """A stand-in for an analysed module of `text` (`source`, its top-level `functions` by name, no
    imports, `span` giving a node's 1-based line), for tests that call a fact reader on a few lines
    (raises SyntaxError when the text does not parse)."""
    tree = ast.parse(text)

    class _Module:
        source = text
        functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        imports: dict = {}

        @staticmethod
        def span(node):
            return node.lineno

    return _Module
