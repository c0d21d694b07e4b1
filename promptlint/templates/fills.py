"""Where the Python code of a project fills the placeholders of a prompt file's template: the
related location of a finding on a placeholder (docs/policies.md, Policy 8: the finding stays where
the value enters the prompt text, the placeholder; where the value is produced is given with it).

Templates kept in YAML / TOML or text files are often loaded by name through an application's
own store (`get_cached_prompt("research_agent", inputs={"date": date_str})`) that the analysis
does not follow, so the fill is found by what the code writes: a dict display of string keys passed
to a call, either

- whose keys are exactly the template's placeholders, two or more of them (`task_inputs=
  {"document_summary": ..., "input": ...}`), or
- next to a string literal that names the template (its key in the file, the name its entry gives
  itself, `- task: generate_user_intent`, or the file's stem) in the same call (or a local name
  assigned it once, a field of a class of the module whose text default it is:
  `self.config.prompt_name`, or a constant of the project whose text it is, an enum member
  `Task.GENERATE_USER_INTENT` declared `GENERATE_USER_INTENT = "generate_user_intent"`), with keys
  among the placeholders.

The value bound to a placeholder is placed at the expression that produces it: a local name is
followed to its one assignment in the function (`date_str = datetime.now().strftime(...)`); a name
written more than once (`examples = ""` then `examples += ...` in a loop) is placed where the dict
takes it.
Python files are read (never imported or run) once per project, as `references` does.
"""
from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

from ..model import Kind, Position, Span
from ..paths import display_name
from ..source import SourceError, read_python
from ..syntax_walk import nodes_under, walked_statements
from .references import MAX_BYTES, note_tree, project_root, python_tree

_KEY = re.compile(r"""["']([A-Za-z_]\w{0,80})["']\s*:""")
_LITERAL = re.compile(r"""["']([A-Za-z_][\w.-]{0,120})["']""")
#: `    GENERATE_USER_INTENT = "generate_user_intent"`: a constant (an enum member) given a name-like text.
_CONSTANT = re.compile(r"""\n[ \t]*([A-Z][A-Z0-9_]{1,80})[ \t]*(?::[^=\n]{0,80})?=[ \t]*["']([A-Za-z_][\w.-]{0,120})["']"""
                       r"""[ \t]*(?:#[^\n]*)?(?=\r?\n|$)""")  # (anchored at a line break: twice as fast as `^` with re.M)
_UPPER = re.compile(r"\b([A-Z][A-Z0-9_]{1,80})\b")
_FIELD = re.compile(r"^\{\{?\s*([A-Za-z_]\w*)")
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


@lru_cache(maxsize=16)
def _index(root: Path) -> tuple[tuple[tuple[str, frozenset[str], frozenset[str]], ...], dict[str, frozenset[str]]]:
    """((path, dict keys written as string literals, short literals) of each Python file under
    `root` that writes a string-keyed dict, {text: the upper-case constants of the project
    assigned it})."""
    out = []
    constants: dict[str, set[str]] = {}
    for path in python_tree(root):
        try:
            text = read_python(path, MAX_BYTES)
        except SourceError:
            continue
        for name, value in _CONSTANT.findall(text):
            constants.setdefault(value, set()).add(name)
        keys = frozenset(_KEY.findall(text))
        if keys:
            out.append((str(path), keys, frozenset(_LITERAL.findall(text))))
    return tuple(out), {value: frozenset(names) for value, names in constants.items()}


@lru_cache(maxsize=256)
def _uppers(path: str) -> frozenset[str]:
    """The upper-case names a Python file writes (`Task.GENERATE_USER_INTENT`), read when a
    constant of the project names a template the file may fill."""
    try:
        return frozenset(_UPPER.findall(read_python(Path(path), MAX_BYTES)))
    except SourceError:
        return frozenset()


@lru_cache(maxsize=64)
def parsed_module(path: str) -> tuple[ast.AST, list[str]] | None:
    """The parsed module and its lines (columns of `ast` count UTF-8 bytes)."""
    try:
        text = read_python(Path(path), MAX_BYTES)
        return ast.parse(text), text.splitlines()
    except (SourceError, SyntaxError, ValueError):
        return None


def placeholder_name(expr: str) -> str | None:
    """`date` of a placeholder written `{date}` / `{{ date }}`, and the variable a Jinja
    expression reads first as the extraction keeps it (`examples | verbose_v1` -> examples,
    `context.relevant_chunks` -> context, a loop `for m in messages` -> messages); None for a
    condition, a literal or a call."""
    m = _FIELD.match(expr or "")
    if m:
        return m.group(1)
    m = _JINJA_ROOT.match(expr or "")
    if m is None:
        return None
    name = m.group(2) or m.group(1)
    return None if name in _JINJA_WORDS else name


def condition_names(expr: str) -> list[str]:
    """The variables a condition tests (`if relevant_chunks and not context.x` -> relevant_chunks,
    context): the names not after a dot, a filter bar or `is`, keywords left out."""
    text = (expr or "").strip()
    if not text.startswith(("if ", "elif ")):
        return []
    test = _QUOTED.sub('""', text.split(None, 1)[1])
    out = []
    for m in _IDENT.finditer(test):
        before = test[:m.start()].rstrip()
        if before.endswith((".", "|")) or before.endswith(" is") or before == "is" \
                or m.group(0) in _JINJA_WORDS or m.group(0) in _TEST_WORDS:
            continue
        if not any(c.isalnum() or c == "_" for c in test[m.start() - 1:m.start()]):
            out.append(m.group(0))
    return out


_IDENT = re.compile(r"[A-Za-z_]\w*")
_QUOTED = re.compile(r""""[^"]*"|'[^']*'""")
_TEST_WORDS = {"and", "or", "is", "in", "not"}
#: The first variable of a Jinja expression, or of the iterated value of a loop (`for x in y`).
_JINJA_ROOT = re.compile(r"^\s*(?:for\s+[\w\s,()]+?\s+in\s+([A-Za-z_]\w*)|([A-Za-z_]\w*))\s*(?:$|[|.\[])")
_JINJA_WORDS = {"if", "elif", "else", "for", "not", "true", "false", "none", "True", "False", "None", "loop",
                "range", "lipsum", "dict", "cycler", "joiner", "namespace"}


def bindings(path: Path, names: tuple[str, ...], fields: frozenset[str]) -> dict[str, Span]:
    """For the placeholders `fields` of a template in the file `path`, named `names` (its key in
    the file, the file's stem): placeholder -> span of the Python value that fills it."""
    if not fields:
        return {}
    found: dict[str, Span] = {}
    root = project_root(Path(path).resolve().parent)
    note_tree(root)
    files, constants = _index(root)
    naming = frozenset(c for n in names for c in constants.get(n, ()))  # constants whose text names it
    for py, keys, literals in files:
        exact = len(fields) >= 2 and fields <= keys
        if not exact and (keys.isdisjoint(fields) or not (any(n in literals for n in names)
                                                           or naming and not naming.isdisjoint(_uppers(py)))):
            continue
        parsed = parsed_module(py)
        fields_named = _defaults(parsed[0]) if parsed is not None else {}
        memo: dict = {}
        for func, call in _calls(parsed[0]) if parsed is not None else ():
            said = any(isinstance(a, ast.Constant) and a.value in names  # a local name: its one assignment
                       or isinstance(a, ast.Attribute) and (fields_named.get(a.attr) in names  # a field's default
                                                            or a.attr in naming)  # `Task.GENERATE_USER_INTENT`
                       or isinstance(a, ast.Name) and a.id in naming  # a constant imported by its name
                       for a in (_producer(func, x, memo) for x in [*call.args, *(k.value for k in call.keywords)]))
            for d in [*call.args, *(k.value for k in call.keywords)]:
                if not isinstance(d, ast.Dict):
                    continue
                given = {k.value: v for k, v in zip(d.keys, d.values)
                         if isinstance(k, ast.Constant) and isinstance(k.value, str)}
                exact = len(fields) >= 2 and set(given) == fields
                if not given or not (exact or said and not fields.isdisjoint(given)):
                    continue  # (a call that names the template may pass more than it reads)
                for field, value in given.items():
                    if field in fields and field not in found:
                        found[field] = node_span(py, parsed[1], _producer(func, value, memo))
    return found


def _defaults(tree) -> dict[str, str]:
    """The text default of each class field written in the module (`prompt_name: str =
    "static_agent"`): `self.config.prompt_name` names that text unless configured otherwise."""
    out = {}
    for cls in (n for n in walked_statements(tree) if isinstance(n, ast.ClassDef)):  # (in `ast.walk` order)
        for stmt in cls.body:
            target = stmt.target if isinstance(stmt, ast.AnnAssign) else \
                stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
            if isinstance(target, ast.Name) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
                out[target.id] = stmt.value.value
    return out


def _calls(tree):
    """(innermost function or None, call) for every call of a module."""
    todo = [(tree, None)]
    while todo:
        node, func = todo.pop()
        for child in ast.iter_child_nodes(node):
            inner = child if isinstance(child, _FUNCS) else func
            if isinstance(child, ast.Call):
                yield inner, child
            todo.append((child, inner))


def _producer(func, value: ast.expr, memo: dict | None = None) -> ast.expr:
    """The expression that produces `value`: a local name's one assignment in `func` (a name
    written twice or more, also by `+=`, a loop or an unpacking, or not at all, is itself), else
    the value (`str(datetime.now())`). `memo` keeps each function's writes ({id(func): {name:
    [the Name nodes that write it]}, plus the single-target assignments by target}) so that the
    calls of one function walk it once."""
    if not isinstance(value, ast.Name) or func is None:
        return value
    table = name_writes(func) if memo is None else memo.get(id(func))
    if table is None:
        table = memo[id(func)] = name_writes(func)
    writes, assigned = table
    names = writes.get(value.id, ())
    if len(names) != 1:
        return value
    found = assigned.get(id(names[0]))
    return found.value if found is not None else value


def name_writes(func) -> tuple[dict[str, list[ast.Name]], dict[int, ast.Assign]]:
    """({name: the Name nodes of `func` (itself and everything inside) that store it}, {id of a
    Name that is the one target of an assignment: that assignment}), in `ast.walk` order."""
    writes: dict[str, list[ast.Name]] = {}
    assigned: dict[int, ast.Assign] = {}
    for n in nodes_under(func):  # (`ast.walk` order, contexts left out: read from the names)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            writes.setdefault(n.id, []).append(n)
        elif isinstance(n, ast.Assign) and len(n.targets) == 1:
            assigned.setdefault(id(n.targets[0]), n)
    return writes, assigned


def node_span(path: str, lines: list[str], node: ast.expr) -> Span:
    """The node's span, 1-based rows and character columns, end exclusive."""
    def col(row: int, offset: int) -> int:
        line = lines[row - 1] if 0 < row <= len(lines) else ""
        return len(line.encode("utf-8")[:offset].decode("utf-8", "replace")) + 1
    end_row = getattr(node, "end_lineno", None) or node.lineno
    end_col = getattr(node, "end_col_offset", None)
    return Span(display_name(Path(path)), Position(node.lineno, col(node.lineno, node.col_offset)),
                Position(end_row, col(end_row, end_col if end_col is not None else node.col_offset)))


_GENERIC_KEYS = {"template", "templates", "prompt", "prompts", "system", "user", "content", "messages", "message"}


def link_fills(path, keys: list[str], segments) -> None:
    """Give each placeholder the Python value that fills it as its origin (`bindings`): the template
    is named by its keys in the file (generic ones such as `template` left out) and the file's stem."""
    every = with_inner(segments)
    fields = {placeholder_name(s.expr) for s in every if s.kind is not None}
    fields.update(n for s in every if s.kind is Kind.CONDITIONAL for n in condition_names(s.expr))
    fields.discard(None)
    if not fields:
        return
    names = tuple(dict.fromkeys([*(k for k in keys if k.lower() not in _GENERIC_KEYS), Path(path).name.split(".")[0]]))
    for field, span in bindings(Path(path), names, frozenset(fields)).items():
        for seg in every:
            if seg.kind not in (None, Kind.CONDITIONAL) and seg.origin is None and placeholder_name(seg.expr) == field:
                seg.origin = span


def with_inner(segments) -> list:
    """The segments and, after each, the placeholders of its conditional section or loop body
    (`Segment.inner`, nested ones too), in order."""
    out = []
    for seg in segments:
        out.append(seg)
        out.extend(with_inner(seg.inner))
    return out
