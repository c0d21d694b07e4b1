"""Marks of a prompt file that the project's Python replaces with the clock: a timestamp where the
mark is written (docs/policies.md, Policy 8: the finding goes where the value enters the prompt
text, the mark; where the value is produced is its related location).

A prompt kept in a text or config file often carries a mark of its own syntax, not a template
placeholder (`Today is <current_date>, the time is <current_time>.`), which a handler of the
application fills by string replacement on every text of a configuration, never naming the
prompt (a config hook, a lifecycle handler the framework calls with the config):

    now = datetime.now()
    time_vars = {"current_date": now.strftime("%Y-%m-%d"), "current_time": now.strftime("%H:%M:%S")}
    for name, value in time_vars.items():
        text = text.replace(f"<{name}>", value)

    prompt = prompt.replace("[[NOW]]", datetime.now().isoformat())

Found when a call `.replace(mark, value)` of the project's Python has a mark written as a literal
(or a local name assigned one, or an f-string `f"<{name}>"` whose name iterates the keys of a dict
written in the code, the value being that key's value) of the forms `<name>`, `[[name]]`, `%name%`,
and a value that reads the clock: `.strftime(format)` (the format decides its precision:
`classify.strftime_precision`), `.isoformat()` or `str(...)` of `datetime.now()` / `utcnow()` /
`today()` / `date.today()`, or such a call itself. The receiver of `.replace` is not read: the
mark written in a prompt file of the same project is the link. A mark replaced by anything else
(a name, a path) stays text. Python files are read (never imported or run) once per project, as
`references` does; only those that call `.replace(` with such a mark are parsed.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..classify import strftime_precision
from ..model import Kind, Position, Precision, Segment, Span, Volatility
from ..source import SourceError, read_python
from .fills import name_writes, node_span, parsed_module
from .prompt_files import is_prompt_named
from .references import MAX_BYTES, note_tree, project_root, python_tree

#: A mark of a prompt's own syntax: `<current_time>`, `[[NOW]]`, `%TODAY%`.
_MARK = re.compile(r"^(?:<[A-Za-z_][\w.-]{0,60}>|\[\[\s*[A-Za-z_][\w.-]{0,60}\s*\]\]|%[A-Za-z_]\w{0,60}%)$")
#: A mark written in a prompt's text (the gate of the project scan).
_IN_TEXT = re.compile(r"<[A-Za-z_][\w.-]{0,60}>|\[\[\s*[A-Za-z_][\w.-]{0,60}\s*\]\]|%[A-Za-z_]\w{0,60}%")
#: A Python file worth parsing: it calls `.replace(` and writes a literal that opens like a mark.
_CANDIDATE = re.compile(r"""\.replace\(""")
_OPENS = re.compile(r"""f?["'](?:<|\[\[|%)[A-Za-z_{]""")
_CLOCK = {"now", "utcnow", "today"}
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Fill:
    """A mark the code replaces with the clock: the value's precision, the span of the expression
    that produces it and its code (`now.strftime("%H:%M:%S")`)."""

    mark: str
    precision: Precision
    span: Span
    code: str
    module: str  # the path of the Python file


def clock_marks(path: Path, text: str) -> dict[str, Fill]:
    """The marks written in `text` (a prompt file at `path`) that the Python of its project
    replaces with the clock: mark -> its `Fill`. {} when the text writes no mark."""
    if not _IN_TEXT.search(text):
        return {}
    root = project_root(_folder(Path(path).resolve()))
    note_tree(root)
    here = Path(path).resolve().parts
    return {mark: min(found, key=lambda f: (f.precision is not Precision.SUB_DAY, -_shared(here, f.module), f.module))
            for mark, found in _project_fills(root).items() if mark in text}


def _shared(parts: tuple[str, ...], module: str) -> int:
    """How many leading path components `module` shares with `parts`: the handler nearest the
    prompt file fills it (`fin_research/time_handler.py` for `fin_research/analyst.yaml`)."""
    n = 0
    for a, b in zip(parts, Path(module).parts):
        if a != b:
            break
        n += 1
    return n


def _folder(path: Path) -> Path:
    """The folder of prompts a prompt file is kept in: the nearest of its 3 nearest ancestors named
    for prompts (`prompts/searcher/en/gpt5.txt` -> `prompts`), else its own folder."""
    for folder in list(path.parents)[:3]:
        if is_prompt_named(folder.name):
            return folder
    return path.parent


@lru_cache(maxsize=16)
def _project_fills(root: Path) -> dict[str, tuple[Fill, ...]]:
    """Mark -> every `Fill` of it in the Python files of the project at `root`."""
    out: dict[str, tuple[Fill, ...]] = {}
    for path in python_tree(root):
        try:
            text = read_python(path, MAX_BYTES)
        except SourceError:
            continue
        if not _CANDIDATE.search(text) or not _OPENS.search(text):
            continue
        parsed = parsed_module(str(path))
        if parsed is None:
            continue
        for fill in _fills(str(path), *parsed):
            out[fill.mark] = out.get(fill.mark, ()) + (fill,)
    return out


def _fills(path: str, tree: ast.AST, lines: list[str]):
    """The `Fill`s of one module: every `.replace(mark, clock value)` call."""
    for chain, call in _replace_calls(tree):
        if len(call.args) != 2 or call.keywords:
            continue
        mark, value = (_resolve(chain, a) for a in call.args)
        for text, given in _marks(chain, mark, value):
            found = _clock_value(chain, given)
            if found is not None:
                expr, prec = found
                yield Fill(text, prec, node_span(path, lines, expr), ast.unparse(expr), str(Path(path).resolve()))


def _replace_calls(tree):
    """(enclosing functions, innermost last; call) for every `x.replace(...)` call."""
    todo = [(tree, ())]
    while todo:
        node, chain = todo.pop()
        for child in ast.iter_child_nodes(node):
            inner = chain + (child,) if isinstance(child, _FUNCS) else chain
            if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) and child.func.attr == "replace":
                yield inner, child
            todo.append((child, inner))


def _resolve(chain, node: ast.expr) -> ast.expr:
    """The value of a name's assignments in the innermost function of `chain` that writes it (a
    closure reads the function around it), when each assigns it alike by one `=`; the node itself
    when it is written otherwise (two values, `+=`, a loop, an unpacking) or not at all."""
    if not isinstance(node, ast.Name):
        return node
    for func in reversed(chain):
        writes, assigned = name_writes(func)
        names = writes.get(node.id, ())
        if not names:
            continue
        found = [assigned.get(id(n)) for n in names]
        if any(f is None for f in found) or len({ast.dump(f.value) for f in found}) != 1:
            return node  # (written twice alike, in two branches: `mark = f"<{name}>"`, that value)
        return found[0].value
    return node


def _marks(chain, mark: ast.expr, value: ast.expr):
    """(mark text, value expression) pairs of one `.replace(mark, value)`: a literal mark and its
    value, or each key of the dict an f-string mark iterates (`for name, v in d.items():
    x.replace(f"<{name}>", v)`) with that key's value."""
    if isinstance(mark, ast.Constant) and isinstance(mark.value, str):
        if _MARK.match(mark.value):
            yield mark.value, value
        return
    if not isinstance(mark, ast.JoinedStr) or not isinstance(value, ast.Name):
        return
    pieces = mark.values
    holes = [i for i, p in enumerate(pieces) if isinstance(p, ast.FormattedValue)]
    if len(holes) != 1 or not isinstance(pieces[holes[0]].value, ast.Name) or pieces[holes[0]].format_spec is not None:
        return
    if not all(isinstance(p, ast.Constant) and isinstance(p.value, str) for i, p in enumerate(pieces) if i != holes[0]):
        return
    before = "".join(p.value for p in pieces[:holes[0]])
    after = "".join(p.value for p in pieces[holes[0] + 1:])
    key = pieces[holes[0]].value.id
    source = _iterated(chain, key, value.id)
    if source is None:
        return
    for k, v in zip(source.keys, source.values):
        if isinstance(k, ast.Constant) and isinstance(k.value, str) and _MARK.match(before + k.value + after):
            yield before + k.value + after, _resolve(chain, v)


def _iterated(chain, key: str, value: str) -> ast.Dict | None:
    """The dict written in the code whose `.items()` a loop around the call iterates as `key,
    value` (`for name, v in time_vars.items():`), the dict's name resolved through `chain`."""
    for func in reversed(chain):
        for loop in ast.walk(func):
            if not isinstance(loop, ast.For) or not isinstance(loop.target, ast.Tuple) \
                    or [getattr(t, "id", None) for t in loop.target.elts] != [key, value]:
                continue
            it = loop.iter
            if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr == "items" \
                    and not it.args:
                found = _resolve(chain, it.func.value)
                return found if isinstance(found, ast.Dict) else None
    return None


def _clock_value(chain, node: ast.expr) -> tuple[ast.expr, Precision] | None:
    """(the expression, its precision) when `node` reads the clock: `.strftime(fmt)`,
    `.isoformat()`, `str(...)` of a clock call, or a clock call itself; None otherwise."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "strftime" and len(node.args) == 1 \
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        if _clock(chain, func.value) is None:
            return None
        prec = strftime_precision(node.args[0].value)
        return (node, prec) if prec in (Precision.SUB_DAY, Precision.DAY, Precision.MONTH) else None
    if isinstance(func, ast.Attribute) and func.attr == "isoformat" and not node.args:
        prec = _clock(chain, func.value)
        return (node, prec) if prec is not None else None
    if isinstance(func, ast.Name) and func.id == "str" and len(node.args) == 1:
        prec = _clock(chain, node.args[0])
        return (node, prec) if prec is not None else None
    prec = _clock(chain, node)
    return (node, prec) if prec is not None else None


def _clock(chain, node: ast.expr) -> Precision | None:
    """The precision of a clock read (`datetime.now()`, `datetime.datetime.utcnow()`, `date.today()`,
    a local name assigned one): a day for `date.today()`, else sub-day; None for anything else."""
    node = _resolve(chain, node)
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute) or node.func.attr not in _CLOCK:
        return None
    owner = node.func.value
    name = owner.attr if isinstance(owner, ast.Attribute) else owner.id if isinstance(owner, ast.Name) else ""
    if name not in ("datetime", "date", "dt", "DateTime"):
        return None
    return Precision.DAY if name == "date" and node.func.attr == "today" else Precision.SUB_DAY


def split_marks(segments: list[Segment], fills: dict[str, Fill], text: str, filename: str) -> list[Segment]:
    """`segments` with each mark of `fills` written in their static text made a timestamp segment
    at the mark's place in the file `filename` (`text`, its whole text: the first place at or after
    the static segment's start where the mark is written); text of another file (a template it
    includes) is left as it is."""
    if not fills:
        return segments
    lines = text.replace("\r\n", "\n").split("\n")
    out: list[Segment] = []
    for seg in segments:
        if not seg.is_static or seg.span is None or seg.span.filename != filename \
                or not any(m in seg.text for m in fills):
            out.append(seg)
            continue
        rest, start = seg.text, (seg.span.start.row, seg.span.start.column)
        while True:
            hits = [(rest.index(m), m) for m in fills if m in rest]
            if not hits:
                break
            at, mark = min(hits)
            where = _find(lines, mark, start)
            if where is None:
                break
            if at:
                out.append(Segment(text=rest[:at], span=seg.span))
            end = (where[0], where[1] + len(mark))
            out.append(_timestamp(fills[mark], Span(seg.span.filename, Position(*where), Position(*end))))
            rest, start = rest[at + len(mark):], end
        if rest:
            out.append(Segment(text=rest, span=seg.span) if rest != seg.text else seg)
    return out


def _find(lines: list[str], mark: str, start: tuple[int, int]) -> tuple[int, int] | None:
    """(row, column), 1-based, of the first `mark` at or after `start` in `lines`."""
    row, col = start
    for r in range(row, len(lines) + 1):
        i = lines[r - 1].find(mark, col - 1 if r == row else 0)
        if i >= 0:
            return r, i + 1
    return None


def _timestamp(fill: Fill, span: Span) -> Segment:
    vol = Volatility.PER_REQUEST if fill.precision is Precision.SUB_DAY else Volatility.PER_DAY
    return Segment(span=span, kind=Kind.TIMESTAMP, volatility=vol, precision=fill.precision, expr=fill.code,
                   evidence=f"`{fill.mark}` replaced by `{fill.code}`", origin=fill.span)
