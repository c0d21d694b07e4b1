"""Whether reading a function for the breakpoints it sets through helpers (`marking_helpers`)
can find one, answered without reading it: the reader's walk of the calls it follows, with
nothing counted. A breakpoint is set by a statement that names a breakpoint key (`MARKER_KEYS`:
a string or a keyword, in the function that sets it) or is read off an earlier reading kept in
the cache; a walk that meets neither finds none, and the reading it stands for
would give [] for the function and every function it follows.

The walk follows exactly the calls the reader follows, in its order (statements as
`_Reader._block` visits them, calls as `calls_of` lists them, callees as `_Reader.callee`
resolves them: the same modules loaded, in the same order), makes the same cuts (a function
being read, deeper than `DEPTH`, a callee that sends a request itself) and keeps the same
readings in the cache: [] for each function it walked to its end and the reader keeps
(`scope` None). It stops at the first function that names a key or a kept reading that found
one; the reader then reads from the start, and meets, before that point, only readings that are
[] in its own walk too.

What a function's walk needs is read once per function node and kept on it (`_promptlint_bp`):
the calls in visit order, its nested functions by name, whether it sends, whether it names a
key (read only in a module whose text names one: a key written without its name in the text,
`"cache_" "control"`, is not looked for, as `tree.marker_files` does not).
"""
from __future__ import annotations

import ast
import re

from .markers import MARKER_KEYS
from .walk import children, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_FUNC_TYPES = frozenset(_FUNCS)
_SCOPES = (*_FUNCS, ast.Lambda, ast.ClassDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
DEPTH = 4  # calls followed from the function read
#: Keywords of a call that sends a request: a function making one marks its own request, not
#: what its callers hand it.
_SENT = frozenset({"messages", "system", "contents", "input"})


def calls_of(stmt: ast.AST) -> list:
    """The calls of a simple statement (not in lambdas or nested functions), outermost first
    (depth first, the last child first; leaves, which hold no call, not entered)."""
    out, stack = [], [stmt]
    scopes, Call = _SCOPES, ast.Call
    while stack:
        node = stack.pop()
        if type(node) is Call:
            out.append(node)
        stack.extend([c for c in children(node) if not isinstance(c, scopes)])
    return out


def sends(func: ast.AST) -> bool:
    """True when `func` makes a request itself (a method call given `messages=`, `system=`): the
    breakpoints it sets are on its own request, not on what its callers hand it."""
    return any(type(n) is ast.Call and n.keywords and isinstance(n.func, ast.Attribute)
               and any(k.arg in _SENT for k in n.keywords) for n in subtree(func))


def nested_defs(module, func: ast.AST) -> dict:
    """{name: node} of the functions defined inside `func` of `module` (at any depth; a later one
    of the same name wins), read once per node; not looked for when no row after its `def` holds
    the word `def`."""
    return _facts(module, func)[1]


def sends_once(module, func: ast.AST) -> bool:
    """`sends`, read once per node; False without reading it when its text holds none of the
    keywords as a word."""
    facts = _facts(module, func)
    if facts[2] is None:
        text = _text(module, func)
        facts[2] = (text is None or _SENT_WORD.search(text) is not None) and sends(func)
    return facts[2]


#: The words a request's keyword is written with (as a word: the text of a keyword argument).
_SENT_WORD = re.compile(r"\b(?:" + "|".join(sorted(_SENT)) + r")\b")
_DEF_WORD = re.compile(r"\bdef\b")


def _facts(module, func: ast.AST) -> list:
    """[calls in visit order, nested functions by name, sends, names a key (None: not read
    yet)] of `func`."""
    found = getattr(func, "_promptlint_bp", None)
    if found is None:
        calls: list = []
        _visit(func.body, calls)
        text = _text(module, func, 1)
        nested = {} if text is not None and not _DEF_WORD.search(text) else \
            {s.name: s for s in subtree(func) if type(s) in _FUNC_TYPES and s is not func}  # (ast.walk's order)
        found = func._promptlint_bp = [calls, nested, None, None]
    return found


def _text(module, func: ast.AST, skip: int = 0) -> str | None:
    """The text of the rows of `func` (from its `def`, past `skip` rows, to its last), or None
    when it cannot be told apart exactly: a module with a lone carriage return (rows counted
    otherwise than the parser does) or a row that is not ASCII (a name written with other
    characters may stand for an ASCII one)."""
    starts = getattr(module, "line_starts", None)
    end = getattr(func, "end_lineno", None)
    if starts is None or end is None or module.mentions("\r") or not _defined_at(module, starts, func):
        return None
    first = func.lineno - 1 + skip
    if first >= len(starts):
        return ""
    text = module.source[starts[first]:starts[end] if end < len(starts) else len(module.source)]
    return text if text.isascii() else None


def _visit(stmts: list, out: list) -> None:
    """The calls `_Reader._block` follows in `stmts`, in its order (the same statements, the same
    branches: an `if` that returns makes the rest of its block its other way, read after it)."""
    for at, stmt in enumerate(stmts):
        if isinstance(stmt, (*_FUNCS, ast.ClassDef)):
            continue
        if isinstance(stmt, ast.If):
            _visit(stmt.body, out)
            _visit(stmt.orelse, out)
            if not stmt.orelse and stmt.body and isinstance(stmt.body[-1], ast.Return):
                _visit(stmts[at + 1:], out)
                return
            continue
        if isinstance(stmt, _LOOPS):
            _visit(stmt.body, out)
            _visit(stmt.orelse, out)
            continue
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            _visit(stmt.body, out)
            continue
        if isinstance(stmt, ast.Try):
            _visit(stmt.body + stmt.orelse + stmt.finalbody, out)
            continue
        out.extend(calls_of(stmt))


def names_key(module, func: ast.AST) -> bool:
    """True when `func` (its nested functions included) holds a string or a keyword naming a
    breakpoint key: every statement that sets one does. Read once per node, and only in a module
    whose text names one."""
    if not _module_names_key(module):
        starts = getattr(module, "line_starts", None)  # (a function of another text: read it)
        return starts is not None and not _defined_at(module, starts, func)
    facts = _facts(module, func)
    if facts[3] is None:
        facts[3] = any((type(n) is ast.Constant and n.value in MARKER_KEYS)
                       or (type(n) is ast.keyword and n.arg in MARKER_KEYS) for n in subtree(func))
    return facts[3]


def _module_names_key(module) -> bool:
    pieces = getattr(module, "_pieces", None)  # (a parsed module's own cache: `Module.mentions`)
    found = pieces.get("names a marker key") if pieces is not None else None
    if found is None:
        found = any(key in module.source for key in MARKER_KEYS)
        if pieces is not None:
            pieces["names a marker key"] = found
    return found


def _defined_at(module, starts: list, func: ast.AST) -> bool:
    """True when the row of `func`'s `def` in `module`'s text names it (the text is its module's)."""
    row = func.lineno
    if row > len(starts):
        return False
    line = module.source[starts[row - 1]:starts[row] if row < len(starts) else len(module.source)]
    return "def" in line and func.name in line


def reaches(reader, module, func, cls, depth: int, own_keys: bool, scope: dict | None = None) -> bool:
    """True when `reader.function(module, func, cls, depth, own_keys, scope)` may find a
    breakpoint (see the module docstring); False when it would give [], with the readings it
    would keep in `reader.cache` kept."""
    key = (id(func), own_keys)
    kept = reader.cache.get(key)
    if kept is not None and kept[0] is func:
        return bool(kept[1])
    if id(func) in reader.active or depth > DEPTH or (depth and sends_once(module, func)):
        return False
    if names_key(module, func):
        return True
    calls, nested = _facts(module, func)[:2]
    reader.active.add(id(func))
    try:
        defs = dict(scope or {})
        defs.update(nested)
        for node in calls:
            found = reader.callee(module, cls, node.func, defs)
            if found is not None and reaches(reader, found[0], found[1], found[2], depth + 1, True,
                                             defs if found[3] else None):
                return True
    finally:
        reader.active.discard(id(func))
    if scope is None:
        reader.cache[key] = (func, [])
    return False
