"""Cache breakpoints a function sets through helper functions and statements other than
`x["cache_control"] = {...}` (facts for the evaluator's scopes, `flow/scopes.py`, which records
that shape itself): an item replaced by a marked copy (`out[-1] = {**out[-1], "cache_control":
{...}}`), a key set by a method (`block.update(cache_control=...)`, `block.setdefault(
"cache_control", ...)`), and calls to functions that mark what they are handed or return: a
nested function, a function of the module, a method of the class, or a function imported from
another module of the tree (`messages, system = apply_cache_control(messages, system)`,
`mark_last(history)`), followed a few calls deep.

Each breakpoint is counted on the longest path through the function: an `if` counts its
branch with more breakpoints; two `if`s whose tests exclude each other (`if x:` and `if ... x is
None`) count as one; a loop counts its breakpoints once per item (`True`: a list of unknown
length), or `n` times over `xs[-n:]`, `xs[:n]`, `range(n)`, once when it stops (`break`,
`return`) after the first it sets.
"""
from __future__ import annotations

import ast

from .flow.binding_syntax import param_names
from .item_markers import copies_item_marker, marks_last_only
from .markers import MARKER_KEYS, sets_cache_marker
from .marking_counts import Count, conjuncts, exclusive, fixed_length, more, plus, times
from .marking_reach import DEPTH as _DEPTH, calls_of as _calls, nested_defs, reaches, sends_once

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)



def marks_item(target: ast.AST, value: ast.AST) -> bool:
    """`xs[i] = {**xs[i], "cache_control": {...}}`: an item of a list or dict (a subscript)
    replaced by a dict display that sets a breakpoint key."""
    return isinstance(target, ast.Subscript) and _marked_display(value)


def _marked_display(value: ast.AST) -> bool:
    return isinstance(value, ast.Dict) and any(
        isinstance(k, ast.Constant) and k.value in MARKER_KEYS for k in value.keys)


def marks_by_method(call: ast.AST) -> bool:
    """`block.update(cache_control=...)`, `block.update({"cache_control": ...})`,
    `block.setdefault("cache_control", ...)`: a breakpoint key set on a dict by its method."""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
        return False
    if call.func.attr == "update":
        return any(k.arg in MARKER_KEYS for k in call.keywords) or any(_marked_display(a) for a in call.args)
    return call.func.attr == "setdefault" and bool(call.args) and isinstance(call.args[0], ast.Constant) \
        and call.args[0].value in MARKER_KEYS




class _Reader:
    """Reads functions for the breakpoints they set (see the module docstring). Inside a body an
    entry is (span, count, root, stops): `stops` when the statement that sets it is followed in its
    block by a `break` or `return` (a loop around it sets it once)."""

    def __init__(self, project, cache: dict):
        self.project = project
        self.cache = cache
        self.active: set[int] = set()

    def function(self, module, func, cls, depth: int, own_keys: bool = True, scope: dict | None = None) -> list:
        """[(span, count, root)] of the breakpoints `func` sets on the longest path, `root` the
        name of `func` whose blocks it marks (a parameter, a local list, a name of the function
        around a nested one), or None; `own_keys` False leaves out its own `x["cache_control"] =
        ...` statements (the scopes record them); `scope`: the nested functions of the functions
        around it, by name."""
        key = (id(func), own_keys)
        if key in self.cache and self.cache[key][0] is func:
            return self.cache[key][1]
        if id(func) in self.active or depth > _DEPTH or (depth and sends_once(module, func)):
            return []
        self.active.add(id(func))
        outer = getattr(self, "func", None), getattr(self, "aliases", {})
        outer_counters = getattr(self, "counters", set())
        self.func, (self.aliases, self.counters) = func, _loop_names(func)
        aliases = self.aliases
        try:
            defs = dict(scope or {})
            defs.update(nested_defs(module, func))
            merged: dict = {}  # (a statement reached by several calls: one entry, their count summed)
            for span, count, root, _stops in self._block(module, func.body, cls, depth, own_keys, defs):
                key2 = (span, _resolved(root, aliases))
                merged[key2] = plus(merged.get(key2, 0), count)
            out = [(span, count, root) for (span, root), count in merged.items()]
        finally:
            self.active.discard(id(func))
            self.func, self.aliases = outer
            self.counters = outer_counters
        if scope is None:
            self.cache[key] = (func, out)
        return out

    def _block(self, module, stmts, cls, depth, own_keys, defs) -> list:
        out: list = []
        prev_if = None
        for at, stmt in enumerate(stmts):
            stops = any(isinstance(s, (ast.Break, ast.Return)) for s in stmts[at + 1:])
            if isinstance(stmt, (*_FUNCS, ast.ClassDef)):
                continue
            if isinstance(stmt, ast.If):
                body = self._block(module, stmt.body, cls, depth, own_keys, defs)
                other = self._block(module, stmt.orelse, cls, depth, own_keys, defs)
                one = _picks_one_pass(stmt.test, self.counters)  # `if i == 0:` in a loop: one pass only
                found = [(sp, c, r, st or stops or one) for sp, c, r, st in more(body, other)]
                if not stmt.orelse and stmt.body and isinstance(stmt.body[-1], ast.Return):
                    # `if x: mark(a); return`: the rest of the block is the other way
                    rest = self._block(module, stmts[at + 1:], cls, depth, own_keys, defs)
                    return out + more(found, rest)
                if prev_if is not None and exclusive(prev_if[0], stmt.test):
                    out = [m for m in out if not any(m is x for x in prev_if[1])] + more(prev_if[1], found)
                else:
                    out += found
                prev_if = (stmt.test, found)
                continue
            prev_if = None
            if isinstance(stmt, _LOOPS):
                inner = self._block(module, stmt.body, cls, depth, own_keys, defs)
                out += [(sp, c if st else times(c, self._per_pass(stmt, r)), r, stops) for sp, c, r, st in inner]
                out += self._block(module, stmt.orelse, cls, depth, own_keys, defs)
                continue
            if isinstance(stmt, (ast.With, ast.AsyncWith)):
                out += [(sp, c, r, st or stops) for sp, c, r, st in self._block(module, stmt.body, cls, depth, own_keys, defs)]
                continue
            if isinstance(stmt, ast.Try):
                body = stmt.body + stmt.orelse + stmt.finalbody
                out += [(sp, c, r, st or stops) for sp, c, r, st in self._block(module, body, cls, depth, own_keys, defs)]
                continue
            once = isinstance(stmt, ast.Assign) and _once_per_loop(module, self.func, stmt)
            out += [(sp, c, r, stops or once) for sp, c, r in self._statement(module, stmt, cls, depth, own_keys, defs)]
        return out

    def _per_pass(self, loop, root) -> Count:
        """Breakpoints a loop sets for one its body sets: n over a fixed number of items; once per
        item (True) when it walks the marked list itself (`for m in messages`, `for i in
        range(len(messages))`); else 1 (a loop over something else, `for i in idxs`, of a length
        not known: at least once)."""
        if not isinstance(loop, (ast.For, ast.AsyncFor)):
            return 1  # (a `while`: how many passes is not known)
        n = fixed_length(loop.iter)
        if n is not None:
            return n
        it = loop.iter
        while isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id in (*_ITEM_CALLS, "range", "len") \
                and it.args:
            it = it.args[-1] if it.func.id == "range" else it.args[0]
        walked = _root(it) if isinstance(it, (ast.Name, ast.Attribute, ast.Subscript)) else None
        return True if walked is not None and _resolved(root, self.aliases) == walked else 1

    def _statement(self, module, stmt, cls, depth, own_keys, defs) -> list:
        out = []
        targets = stmt.targets if isinstance(stmt, ast.Assign) else []
        for t in targets:
            if (own_keys and sets_cache_marker(t)) or marks_item(t, stmt.value):
                out.append((module.span(t), 1, _root(t)))
        for node in _calls(stmt):
            if marks_by_method(node):
                out.append((module.span(node), 1, _root(node.func.value)))
                continue
            found = self.callee(module, cls, node.func, defs)
            if found is None:
                continue
            cmod, cfunc, ccls, nested = found
            found = self.function(cmod, cfunc, ccls, depth + 1, True, defs if nested else None)
            if not found:
                continue
            params, returned = param_names(cfunc, receiver=False), _returned(cfunc)
            into = targets[0] if len(targets) == 1 and _unwrapped(stmt.value) is node else None
            rebound = isinstance(into, (ast.Name, ast.Tuple, ast.List))
            for span, count, root in found:
                if not own_keys and not depth and rebound and (root in returned or root not in params):
                    continue  # (what it returns carries them: flow/calls.py; not what it marks in place)
                out.append((span, count, _caller_root(root, node, params, returned, into, nested)))
        return out

    def callee(self, module, cls, func: ast.AST, defs: dict):
        """(module, function, class, nested) that a call's `func` names: a nested function of the
        functions around it, a function of the module, a method of `cls` (`self.name`), or a
        function imported from a module of the tree; None otherwise."""
        if isinstance(func, ast.Name):
            if func.id in defs:
                return module, defs[func.id], cls, True
            if func.id in module.functions:
                return module, module.functions[func.id], None, False
            dotted = module.imports.get(func.id)
            if dotted and self.project is not None:
                found = self.project.resolve_symbol(dotted)
                if found is not None and found[1] in found[0].functions:
                    return found[0], found[0].functions[found[1]], None, False
            return None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("self", "cls") \
                and cls is not None:
            method = next((s for s in cls.body if isinstance(s, _FUNCS) and s.name == func.attr), None)
            return (module, method, cls, False) if method is not None else None
        return None


def _root(node: ast.AST | None) -> str | None:
    """The name or attribute chain a subscript or call chain starts from: `messages` of
    `messages[i]["content"][-1]`, `self.history` of `self.history[-1]["content"]`; None for
    another expression."""
    while isinstance(node, (ast.Subscript, ast.Call, ast.Starred)) or (
            isinstance(node, ast.Attribute) and not _dotted(node)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return ast.unparse(node) if isinstance(node, (ast.Name, ast.Attribute)) else None


_ITEM_CALLS = ("reversed", "enumerate", "list", "sorted", "iter", "tuple")


def _loop_names(func: ast.AST) -> tuple:
    """(`_aliases`, `_counters`) of `func`, read once per node."""
    found = getattr(func, "_promptlint_bp_loops", None)
    if found is None:
        found = func._promptlint_bp_loops = (_aliases(func), _counters(func))
    return found


def _aliases(func: ast.AST) -> dict:
    """{name: the list it is an item or another name of}: a loop's target over a list (`for m in
    reversed(messages)`, `for i, m in enumerate(messages)`) and a name bound to an item of one (`last
    = messages[-1]`), in `func` (nested functions included: their loops over the closure's lists)."""
    out: dict = {}
    for node in ast.walk(func):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            it = node.iter
            while isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id in _ITEM_CALLS and it.args:
                it = it.args[0]
            src = _root(it) if isinstance(it, (ast.Name, ast.Attribute, ast.Subscript)) else None
            target = node.target.elts[-1] if isinstance(node.target, ast.Tuple) and node.target.elts else node.target
            if src is not None and isinstance(target, ast.Name) and target.id != src:
                out.setdefault(target.id, src)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and (isinstance(node.value, ast.Subscript) or _method_of_item(node.value)) \
                and (src := _root(node.value)) is not None and src != node.targets[0].id:
            out.setdefault(node.targets[0].id, src)
    return out


def _method_of_item(value: ast.AST) -> bool:
    """`messages[i].get("content")`, `block.copy()`: a method of a list's item (its content, a copy)."""
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
        and value.func.attr in ("get", "copy") and isinstance(value.func.value, (ast.Subscript, ast.Name))


def _resolved(root: str | None, aliases: dict) -> str | None:
    for _ in range(4):
        if root not in aliases:
            break
        root = aliases[root]
    return root


def _dotted(node: ast.AST) -> bool:
    """`a.b.c`: names and attributes only."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def root_of(node: ast.AST | None) -> str | None:
    """`_root` for the callers: the list an argument of a request stands for."""
    return _root(node)


def _counters(func: ast.AST) -> set:
    """Names that count a loop's passes: `i` of `for i, x in enumerate(xs)` and `for i in range(n)`."""
    out = set()
    for node in ast.walk(func):
        if isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.iter, ast.Call) \
                and isinstance(node.iter.func, ast.Name):
            if node.iter.func.id == "enumerate" and isinstance(node.target, ast.Tuple) and node.target.elts \
                    and isinstance(node.target.elts[0], ast.Name):
                out.add(node.target.elts[0].id)
            elif node.iter.func.id == "range" and isinstance(node.target, ast.Name):
                out.add(node.target.id)
    return out


def _picks_one_pass(test: ast.AST, counters: set) -> bool:
    """True when a test (alone or in an `and`) compares a loop counter with a constant (`i == 0`):
    it holds on one pass at most."""
    return any(isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], ast.Eq)
               and isinstance(t.left, ast.Name) and t.left.id in counters
               and isinstance(t.comparators[0], ast.Constant) for t in conjuncts(test))


def _once_per_loop(module, func, stmt: ast.Assign) -> bool:
    """True when a marker statement in a loop is set for one item only: the last one (`if i ==
    len(xs) - 1:`) or the one that carries its own breakpoint, copied (`item_markers.py`)."""
    return any(sets_cache_marker(t) or marks_item(t, stmt.value) for t in stmt.targets) and (
        any(marks_last_only(func, t) for t in stmt.targets) or copies_item_marker(func, stmt, module))


def _caller_root(root, call: ast.Call, params: list, returned: list, into, nested: bool):
    """The caller's name a callee's breakpoint on its own `root` is on: the target the call's
    result is assigned to when the callee returns that name (`msgs, system = mark(msgs, system)`:
    by place in a returned tuple), else the argument handed for that parameter; a nested
    function's name of the function around it as it is; else None."""
    if into is not None and root in returned:
        if isinstance(into, (ast.Tuple, ast.List)):
            at = returned.index(root)
            return _root(into.elts[at]) if len(returned) == len(into.elts) else None
        return _root(into) if len(returned) == 1 else None
    if root in params:
        at = params.index(root)
        arg = next((k.value for k in call.keywords if k.arg == root), None)
        if arg is None and at < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[:at + 1]):
            arg = call.args[at]
        return _root(arg) if arg is not None else None
    return root if nested else None


def _returned(func: ast.AST) -> list:
    """The names `func` returns: `[messages, system]` of `return messages, system`, `[out]` of
    `return out` (its last such return, nested functions left out)."""
    found: list = []
    stack = list(func.body)
    while stack:
        node = stack.pop(0)
        if isinstance(node, (*_FUNCS, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.Return) and node.value is not None:
            v = node.value
            elts = v.elts if isinstance(v, ast.Tuple) else [v]
            found = [e.id if isinstance(e, ast.Name) else None for e in elts]
        stack.extend(ast.iter_child_nodes(node))
    return found


def _unwrapped(value: ast.AST | None):
    """A call behind `await` or `cast(T, call)`/`typing.cast`."""
    while True:
        if isinstance(value, ast.Await):
            value = value.value
        elif isinstance(value, ast.Call) and len(value.args) == 2 and (
                (isinstance(value.func, ast.Name) and value.func.id == "cast")
                or (isinstance(value.func, ast.Attribute) and value.func.attr == "cast")):
            value = value.args[1]
        else:
            return value




def _unmarked_tree(project, module, cache: dict) -> bool:
    """True when no file of the package tree that holds `module` names a breakpoint key
    (`tree.marker_files`; without a project, the module's own text): every shape read here writes
    one, so no function there can set a breakpoint, and reading them is skipped. A helper
    imported from another package tree among the checked paths is the case this leaves out.
    Asked once per module and `cache` (one analysis: the search is recorded the first time)."""
    if project is None:
        return not any(key in module.source for key in MARKER_KEYS)
    key = ("unmarked tree", module.path)
    found = cache.get(key)
    if found is None:
        found = cache[key] = not project.marker_files(module.path)
    return found


def added_marks(project, module, func, cls, cache: dict) -> list:
    """[(span, count)] of the breakpoints `func` sets other than by its own `x["cache_control"] =
    ...` statements: marked copies put in place of items, keys set by methods, and the
    breakpoints of the functions it calls (see the module docstring)."""
    if _unmarked_tree(project, module, cache):
        return []
    reader = _Reader(project, cache)
    if not reaches(reader, module, func, cls, 0, False):  # (the reader's walk, nothing counted: marking_reach)
        return []
    return [(span, count) for span, count, _root in reader.function(module, func, cls, 0, False)]


def marked_roots(project, module, func, cls, cache: dict) -> dict:
    """{span: name} for the breakpoints `func` sets (its own statements included) on the blocks of
    a name of its own (`messages`, `system`): which of the lists it returns each is on."""
    if _unmarked_tree(project, module, cache):
        return {}
    reader = _Reader(project, cache)
    if not reaches(reader, module, func, cls, 0, True):
        return {}
    return {span: root for span, _count, root in reader.function(module, func, cls, 0, True) if root is not None}
