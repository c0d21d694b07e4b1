"""Cache breakpoints a function adds to a request its callers hand it, on top of those the request's
messages may carry already, without counting them: a fact for PRM304 (`added_marks`; the rule
judges it).

Middleware that tags a request on its way to the model (the top-level automatic `cache_control`,
the last system block, the last tool) writes breakpoints of its own and passes on the messages it
was given. In a package that carries breakpoints written on the blocks it is handed into its
requests (a file reads one off a block: `block.get("cache_control")`, `"cache_control" in block`:
`Project.marker_read_files`), those messages may hold some: its callers mark the newest turns.
Anthropic accepts 4 per request, the automatic one included, and rejects more with a 400 error
(https://platform.claude.com/docs/en/build-with-claude/prompt-caching), so with three of its own,
two in the messages are too many.

Read from one module's `ast` tree: a function with a parameter it hands on (an argument of a call,
the receiver of a method call, or returned) that writes breakpoints into three or more lists or
dicts, itself or through the functions of the module and methods of its class it calls (each by
the name it writes to: `overrides["model_settings"] = {..., "cache_control": cc}`, `new_content[-1]
= {**base, "cache_control": cc}`, `new_extras = {..., "cache_control": cc}`; a loop or branches
that write the same one count once, and so do writes on the two sides of one `if`: one call makes
one or the other), when none of them reads a breakpoint key (`"cache_control" in
block`, `.get("cache_control")`, `block["cache_control"]`) or calls a function named to count or
strip them. A function that such a function calls is not a fact of its own. One fact per
function: (its first write, the number of places).
"""
from __future__ import annotations

import ast

from .gated_markers import module_functions, naming, own_callee
from .markers import MARKER_KEYS, words_of
from .walk import subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_MIN_PLACES = 3
_MAX_EXACT = 10  # writes of one function compared two by two for `_most_at_once` (2**10 subsets at most)
_COUNT_WORDS = frozenset({"count", "counted", "num", "number", "strip", "remove", "clear", "drop", "limit", "cap"})
_MARK_WORDS = frozenset({"breakpoint", "breakpoints", "marker", "markers", "cache", "control"})


def might_add(source: str) -> bool:
    """The cheap text test: the module writes a breakpoint key."""
    return "cache_control" in source


def added_marks(module, project) -> list[tuple[ast.AST, int]]:
    """(first write, places) for each function of `module` that adds breakpoints at three or more
    places to a request it is handed, in a package that carries its callers' breakpoints (module
    docstring); [] when no file of the package reads one off a block."""
    funcs = list(module_functions(module))
    marking = naming(module, funcs, MARKER_KEYS)
    calls = tuple(f"{f.name}(" for _c, f in funcs if id(f) in marking)
    calling = naming(module, funcs, calls) if calls else set()
    found: list[tuple[ast.AST, ast.AST, int, list]] = []
    for cls, func in funcs:
        params = [a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)
                  if a.arg not in ("self", "cls")]
        if not params or id(func) not in marking and id(func) not in calling:
            continue
        helpers = [h for h in _helpers(module, cls, func) if id(h) in marking]
        if id(func) not in marking and len(helpers) < 2 or not _hands_on(func, params):
            continue  # (fewer than three places can write a breakpoint)
        places: dict[tuple, ast.AST] = {}
        count = 0
        for f in [func, *helpers] if id(func) in marking else helpers:
            own: dict[str, ast.AST] = {}
            for where, node in _writes(f):
                own.setdefault(where, node)
                places.setdefault((id(f), where), node)
            count += _most_at_once(f, list(own.values()))
        if count < _MIN_PLACES or any(_reads(f) for f in [func, *helpers]):
            continue
        own = [n for k, n in places.items() if k[0] == id(func)]  # reported at its own first write
        first = min(own or list(places.values()), key=lambda n: (n.lineno, n.col_offset))
        found.append((func, first, count, helpers))
    if not found or not project.marker_read_files(module.path):
        return []
    called = {id(h) for _f, _n, _p, helpers in found for h in helpers}
    return [(node, count) for func, node, count, _h in found if id(func) not in called]


def _most_at_once(func, writes: list) -> int:
    """How many of `writes` (nodes of `func`) one call of `func` can make: writes on the two sides
    of one `if` (`if isinstance(content, str): return {..., "cache_control": cc}` / `else: last["cache_control"]
    = cc`) are one breakpoint or the other, never both."""
    if len(writes) > _MAX_EXACT:  # (more places than are worth the subsets: each counted)
        return len(writes)
    paths = _branch_paths(func, {id(w) for w in writes})
    best = 0
    for mask in range(1, 1 << len(writes)):
        chosen = [paths.get(id(w), ()) for i, w in enumerate(writes) if mask >> i & 1]
        if len(chosen) > best and all(_together(a, b) for i, a in enumerate(chosen) for b in chosen[i + 1:]):
            best = len(chosen)
    return best


def _branch_paths(func, wanted: set[int]) -> dict[int, tuple]:
    """For each node of `wanted` (by id) in `func`: the (if node id, side) pairs of the `if`
    statements it lies in, outermost first."""
    out: dict[int, tuple] = {}

    def visit(node, path: tuple) -> None:
        if id(node) in wanted:
            out[id(node)] = path
        if isinstance(node, ast.If):
            visit(node.test, path)
            for side, body in ((0, node.body), (1, node.orelse)):
                for child in body:
                    visit(child, (*path, (id(node), side)))
            return
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (*_FUNCS, ast.ClassDef, ast.Lambda)):
                visit(child, path)

    for stmt in func.body:
        visit(stmt, ())
    return out


def _together(a: tuple, b: tuple) -> bool:
    """False when two branch paths part at one `if` (one write or the other)."""
    sides = dict(a)
    return all(sides.get(node, side) == side for node, side in b)


def _hands_on(func, params: list[str]) -> bool:
    """True when a parameter is passed to a call, is the receiver of a method call or is returned."""
    for n in subtree(func):
        if isinstance(n, ast.Call):
            if any(isinstance(a, ast.Name) and a.id in params for a in (*n.args, *(k.value for k in n.keywords))):
                return True
            if isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) and n.func.value.id in params:
                return True
        if isinstance(n, ast.Return) and isinstance(n.value, ast.Name) and n.value.id in params:
            return True
    return False


def _helpers(module, cls, func) -> list:
    """The functions of the module and methods of `cls` that `func` calls by name, each once."""
    methods = {n.name: n for n in cls.body if isinstance(n, _FUNCS)} if cls is not None else {}
    out: dict[int, ast.AST] = {}
    for n in subtree(func):
        if not isinstance(n, ast.Call):
            continue
        callee = own_callee(module, methods, n)
        if callee is not None and callee is not func:
            out.setdefault(id(callee), callee)
    return list(out.values())


def _writes(func):
    """(the name written, the node) for each place `func` writes a breakpoint: an assignment whose
    value holds a dict display with a breakpoint key (by its target's root name), an assignment to
    a breakpoint key (by its object's root name), a `return` of such a display."""
    for n in subtree(func):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) and t.slice.value in MARKER_KEYS:
                    yield _root(t.value), n
                elif _marked(n.value):
                    yield _root(t), n
        elif isinstance(n, ast.Return) and n.value is not None and _marked(n.value):
            yield "return", n


def _marked(node) -> bool:
    return any(isinstance(d, ast.Dict) and any(isinstance(k, ast.Constant) and k.value in MARKER_KEYS for k in d.keys)
               for d in ast.walk(node))


def _root(node) -> str:
    """The name an assignment target starts from (`overrides` of `overrides["x"]`, `self.x`)."""
    while isinstance(node, (ast.Subscript, ast.Attribute, ast.Starred)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            return "self." + node.attr
        node = node.value
    return node.id if isinstance(node, ast.Name) else ast.dump(node)[:40]


def _reads(func) -> bool:
    """True when `func` reads a breakpoint key (a test, `.get`, a subscript read) or calls a
    function named to count or strip breakpoints."""
    for n in subtree(func):
        if isinstance(n, ast.Compare) and any(isinstance(s, ast.Constant) and s.value in MARKER_KEYS
                                              for s in (n.left, *n.comparators)):
            return True
        if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load) and isinstance(n.slice, ast.Constant) \
                and n.slice.value in MARKER_KEYS:
            return True
        if isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Attribute) and f.attr in ("get", "pop") and n.args \
                    and isinstance(n.args[0], ast.Constant) and n.args[0].value in MARKER_KEYS:
                return True
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            words = words_of(name)
            if words & _COUNT_WORDS and words & _MARK_WORDS:
                return True
    return False
