"""Cache breakpoints set only when a caching option is on, where the option is off by default: a
fact for PRM302 (`opt_in_gates`; the rule judges it).

Shapes, read from one module's `ast` tree: an `if` whose body sets a cache breakpoint (a
`["cache_control"] = ...` statement, a block written with a `cache_control` or `cachePoint` key,
or a call of a function of the module or a method of the class that does: `gated_markers._marks`)
and whose test reads an option named for caching that is off unless someone sets it:

    if self._cache_control_config:                          # None unless the config sets it
        system = [{"type": "text", "text": system, "cache_control": self._cache_control_config}]
    if tools and (ttl := settings.get("cache_tool_definitions")):   # a key nobody put there
        tools[-1]["cache_control"] = {"type": "ephemeral", "ttl": ttl}
    if self._explicit_cache_breakpoints():                  # return bool(self.prompt_caching and ...)
        messages.append(self._cached_system(system_prompt))

or a function that returns early when that option is off before the statements that set one
(`cache_config = self.config.get("cache_config"); if not cache_config: return messages`).

Off by default (`_off`): the constants None, False, 0 and ""; `m.get("key")` with no default (or
an off one) when the key is no breakpoint key (`block.get("cache_control")` carries on the
breakpoint a caller put on a message or block it hands in: no option, whatever the module
writes) and the module writes no other value under that key (a dict display, `m["key"] =`,
a keyword) and no other module of the package sets it (`key=True` as a keyword or a field's
default: `Project.assigners_of`); a parameter of `__init__` whose default is off (an option of the
instance; a helper's parameter is what its callers pass); a local name or a `self.` attribute every
assignment of which is off or sits under an `if` whose test is off (`self.cfg = None` in
`__init__`, then `if ttl: self.cfg = {...}`); a method without arguments whose every `return`
is off; `bool(x)`, `x is not None`, `(y := x)` of an off `x`; an `and` with an off operand, an
`or` of off operands. Anything else (an attribute of another object, a call) is not known: no
fact. Whoever keeps the default sends requests with no breakpoint, and Anthropic (and Claude on
Bedrock) caches nothing without one.
"""
from __future__ import annotations

import ast

from .gated_markers import _marks, module_functions
from .walk import child_nodes, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_DEPTH = 6
_MARKER_KEYS = frozenset({"cache_control", "cachePoint"})
#: Keys of a content block: a marker key beside one of them is a breakpoint, not a setting.
_BLOCK_KEYS = frozenset({"type", "text"})


def opt_in_gates(module, project=None) -> list[tuple[ast.expr, str]]:
    """(test, option) for each caching option of `module` that gates its breakpoints and is off by
    default: the gate test that reads it first in the source, and the option's name as written (`self.x`,
    `settings.get('k')`). `project` (a `tree.Project`) finds the other modules of the package that
    may set a key read with `get`; without it no such key is taken as off. Module docstring."""
    out: dict[str, ast.expr] = {}
    for cls, func in module_functions(module):
        ctx = _Context(module, cls, func, project)
        for stmt, test, body in _gates(func):
            if not _names_cache(test) or not _marks(module, cls, body):
                continue
            option = _option(ctx, test)
            if option is not None and (option not in out or stmt.test.lineno < out[option].lineno):
                out[option] = stmt.test  # the first gate in the source
    return [(test, name) for name, test in out.items()]


def rewritten_marks(module) -> list[ast.expr]:
    """The test of each `if` that reads the breakpoint a caller put on a block it hands in
    (`item.get("cache_control")`, or a name bound to that) and whose body writes a breakpoint of
    its own making under that key instead (`out["cache_control"] = {"type": "ephemeral"}`, a dict
    display that never reads the caller's): whatever else the caller's breakpoint held (its
    `ttl`) is dropped. Copying the caller's value (`out["cache_control"] = cc`) is no fact."""
    out = []
    for _cls, func in module_functions(module):
        bound = {t.id for n in subtree(func) if isinstance(n, ast.Assign) and _reads_mark(n.value)
                 for t in n.targets if isinstance(t, ast.Name)}
        for node in subtree(func):
            if not isinstance(node, ast.If):
                continue
            reads = _reads_mark(node.test) or any(isinstance(n, ast.Name) and n.id in bound for n in subtree(node.test))
            if reads and any(_own_mark(n, bound) for stmt in node.body for n in subtree(stmt)):
                out.append(node.test)
    return out


def _reads_mark(node) -> bool:
    """True when `node` reads a breakpoint key with `get` (`item.get("cache_control")`)."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "get" and n.args
               and isinstance(n.args[0], ast.Constant) and n.args[0].value in _MARKER_KEYS for n in subtree(node))


def _own_mark(node, bound: set[str]) -> bool:
    """True for `x["cache_control"] = {...}` (or a dict entry so) whose value is a dict display
    that reads neither the caller's breakpoint nor a name bound to it."""
    if isinstance(node, ast.Assign) and any(isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant)
                                            and t.slice.value in _MARKER_KEYS for t in node.targets):
        value = node.value
    elif isinstance(node, ast.Dict):
        value = next((v for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant)
                      and k.value in _MARKER_KEYS), None)
    else:
        return False
    return isinstance(value, ast.Dict) and not _reads_mark(value) \
        and not any(isinstance(n, (ast.Name, ast.Subscript, ast.Attribute)) and not _constant_free(n, bound)
                    for n in subtree(value))


def _constant_free(node, bound: set[str]) -> bool:
    """True unless `node` names the caller's breakpoint (a name bound to it, or a read of the block)."""
    return not (isinstance(node, ast.Name) and node.id in bound) and not isinstance(node, (ast.Subscript, ast.Attribute))


def _gates(func):
    """(node, test, statements run when the option is on): each `if` of `func` (its body), and each
    `if T: return ...` among the function's own statements (the statements after it)."""
    for node in subtree(func):
        if isinstance(node, ast.If):
            yield node, node.test, node.body
    body = func.body
    for i, stmt in enumerate(body):
        if isinstance(stmt, ast.If) and not stmt.orelse and stmt.body and isinstance(stmt.body[-1], ast.Return):
            yield stmt, ast.UnaryOp(op=ast.Not(), operand=stmt.test), body[i + 1:]


def _option(ctx, test) -> str | None:
    """The option a gate's test reads, written as in the code, when the test is off by default; None otherwise."""
    found = _culprit(ctx, test, False)
    return None if found is None else _name_of(found)


def _culprit(ctx, node, on: bool):
    """The operand that makes a test off by default (`on`: true by default), drilled through `not`,
    `and` (off: an off operand) and `or` (on: an on operand), when it names caching; else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _culprit(ctx, node.operand, not on)
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or if on else ast.And):
        return next((c for v in node.values if (c := _culprit(ctx, v, on)) is not None), None)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.comparators[0], ast.Constant) \
            and node.comparators[0].value is None and isinstance(node.ops[0], (ast.Is, ast.Eq, ast.IsNot, ast.NotEq)):
        if not _names_cache(node.left):  # `x is None` is on when `x` is off; `x is not None` is off
            return None
        holds = _on(ctx, node, 0) if on else _off(ctx, node, 0)
        return node.left if holds else None
    if not _names_cache(node):
        return None
    holds = _on(ctx, node, 0) if on else _off(ctx, node, 0)
    return node if holds else None


def _name_of(test) -> str:
    """The part of the test that names caching (`self._cache_control_config`, `settings.get('k')`)."""
    for kind in (ast.Call, ast.Attribute, ast.Name):  # `settings.get('cache_x')` before the walrus target
        for node in subtree(test):
            if isinstance(node, kind) and _names_cache(node, shallow=True):
                return ast.unparse(node)
    return ast.unparse(test)


def _names_cache(node, shallow: bool = False) -> bool:
    """True when a name, attribute or string key of the expression says cache or caching."""
    nodes = [node] if shallow and not isinstance(node, ast.Call) else list(subtree(node))
    if shallow and isinstance(node, ast.Call):
        nodes = [node.func, *node.args]
    for n in nodes:
        text = n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else \
            n.value if isinstance(n, ast.Constant) and isinstance(n.value, str) else ""
        if {"cache", "caching", "cached"} & set(text.lower().strip("_").split("_")):
            return True
    return False


class _Context:
    """The module, class and function a test is read in, with the parents of the function's nodes."""

    def __init__(self, module, cls, func, project=None):
        self.module, self.cls, self.func, self.project = module, cls, func, project
        self._parents: dict[int, dict[int, ast.AST]] = {}
        self._written: set[str] | None = None

    def parents(self, func) -> dict[int, ast.AST]:
        got = self._parents.get(id(func))
        if got is None:
            got = self._parents[id(func)] = {id(c): n for n in subtree(func) for c in child_nodes(n)}
        return got

    def methods(self) -> dict[str, ast.AST]:
        return {n.name: n for n in self.cls.body if isinstance(n, _FUNCS)} if self.cls is not None else {}

    def written_keys(self) -> set[str]:
        """String keys the module writes a value under that is not off: dict display keys,
        `x["k"] = v` targets, keywords `k=v`. A breakpoint itself is not a setting: the marker key
        of a content block (a dict or call that also has `type` or `text`) and a `x[...]["cache_control"]
        = ...` statement are left out."""
        if self._written is None:
            keys: set[str] = set()
            for n in subtree(self.module.tree):
                if isinstance(n, ast.Dict):
                    names = {k.value for k in n.keys if isinstance(k, ast.Constant)}
                    keys.update(k.value for k, v in zip(n.keys, n.values) if isinstance(k, ast.Constant)
                                and isinstance(k.value, str) and not _off_constant(v)
                                and not (k.value in _MARKER_KEYS and names & _BLOCK_KEYS))
                elif isinstance(n, ast.Assign):
                    keys.update(t.slice.value for t in n.targets if isinstance(t, ast.Subscript)
                                and isinstance(t.slice, ast.Constant) and isinstance(t.slice.value, str)
                                and t.slice.value not in _MARKER_KEYS and not _off_constant(n.value))
                elif isinstance(n, ast.Call):
                    names = {k.arg for k in n.keywords}
                    keys.update(k.arg for k in n.keywords if k.arg and not _off_constant(k.value)
                                and not (k.arg in _MARKER_KEYS and names & _BLOCK_KEYS))
            self._written = keys
        return self._written


def _off_constant(node) -> bool:
    return isinstance(node, ast.Constant) and node.value in (None, False, 0, "")


def _off(ctx, node, depth: int) -> bool:
    """True when the expression is off (falsy) by default (module docstring)."""
    if depth > _DEPTH or node is None:
        return False
    if _off_constant(node):
        return True
    if isinstance(node, ast.NamedExpr):
        return _off(ctx, node.value, depth + 1)
    if isinstance(node, ast.BoolOp):
        found = [_off(ctx, v, depth + 1) for v in node.values]
        return any(found) if isinstance(node.op, ast.And) else all(found)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.IsNot, ast.NotEq)) \
            and _off_constant(node.comparators[0]) and node.comparators[0].value is None:
        return _off(ctx, node.left, depth + 1)
    if isinstance(node, ast.Call):
        return _off_call(ctx, node, depth)
    if isinstance(node, ast.Name):
        return _off_name(ctx, node.id, depth)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return _off_attribute(ctx, node.attr, depth)
    return False


def _on(ctx, node, depth: int) -> bool:
    """True when a test is true by default: `not x`, `x is None` of an off `x`, an `or` with one."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _off(ctx, node.operand, depth + 1)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.Eq)) \
            and isinstance(node.comparators[0], ast.Constant) and node.comparators[0].value is None:
        return _off(ctx, node.left, depth + 1)
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
        return any(_on(ctx, v, depth + 1) for v in node.values)
    return False


def _off_call(ctx, node: ast.Call, depth: int) -> bool:
    f = node.func
    if isinstance(f, ast.Name) and f.id == "bool" and len(node.args) == 1:
        return _off(ctx, node.args[0], depth + 1)
    if isinstance(f, ast.Attribute) and f.attr == "get" and node.args and isinstance(node.args[0], ast.Constant) \
            and isinstance(node.args[0].value, str) and not node.keywords:
        if len(node.args) == 2 and not _off_constant(node.args[1]):
            return False
        key = node.args[0].value
        if key in _MARKER_KEYS:  # a breakpoint read off what the code is handed: the caller's, carried on
            return False
        return key not in ctx.written_keys() and not _set_elsewhere(ctx, key)
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self" \
            and not node.args and not node.keywords:
        method = ctx.methods().get(f.attr)
        if method is None:
            return False
        returns = [r.value for r in subtree(method) if isinstance(r, ast.Return)]
        inner = _Context(ctx.module, ctx.cls, method, ctx.project)
        inner._written = ctx._written
        return bool(returns) and all(_off(inner, r, depth + 1) for r in returns)
    return False


def _set_elsewhere(ctx, key: str) -> bool:
    """True when another module of the package sets `key` to a value that is not off: a keyword
    argument (`BedrockProfile(supports_caching=True)`) or a field or name assigned (`key: bool =
    True`), or when that is not known (no project, too many modules assign it)."""
    if ctx.project is None:
        return True
    modules = ctx.project.assigners_of(key, ctx.module.path, 20)
    if modules is None:
        return True
    for module in modules:
        fields = [*module.tree.body, *(s for c in subtree(module.tree) if isinstance(c, ast.ClassDef) for s in c.body)]
        for n in fields:  # a field's or a module name's default (a local variable of a function is no setting)
            targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, ast.AnnAssign) else []
            if any(isinstance(t, ast.Name) and t.id == key for t in targets) and n.value is not None \
                    and not _off_constant(n.value):
                return True
        if any(isinstance(n, ast.keyword) and n.arg == key and not _off_constant(n.value) for n in subtree(module.tree)):
            return True
    return False


def _off_name(ctx, name: str, depth: int) -> bool:
    """A local name of the function: every assignment off or guarded by an off test; with none, a
    parameter whose default is off."""
    values = []
    for n in subtree(ctx.func):
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in n.targets):
            values.append((n, n.value))
        elif isinstance(n, (ast.AnnAssign, ast.AugAssign)) and isinstance(n.target, ast.Name) and n.target.id == name:
            values.append((n, n.value))
        elif isinstance(n, ast.NamedExpr) and n.target.id == name:
            values.append((n, n.value))
        elif isinstance(n, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.comprehension)) \
                and any(isinstance(t, ast.Name) and t.id == name for t in subtree(getattr(n, "target", n))):
            return False
    if values:
        return all(_off(ctx, v, depth + 1) or _guarded(ctx, ctx.func, n, depth) for n, v in values)
    if ctx.func.name != "__init__":  # a helper's parameter: its callers in the package may pass it on
        return False
    args = ctx.func.args
    positional = [*args.posonlyargs, *args.args]
    defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults))
    defaults.update((a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)
    return name in defaults and _off_constant(defaults[name])


def _off_attribute(ctx, attr: str, depth: int) -> bool:
    """`self.attr`: every assignment in the class's methods off or guarded by an off test, at
    least one of them; a class-level value of the same name off too."""
    if ctx.cls is None:
        return False
    found = False
    for item in ctx.cls.body:
        if isinstance(item, (ast.Assign, ast.AnnAssign)):
            targets = item.targets if isinstance(item, ast.Assign) else [item.target]
            if any(isinstance(t, ast.Name) and t.id == attr for t in targets):
                if item.value is None or not _off_constant(item.value):
                    return False
                found = True
        if not isinstance(item, _FUNCS):
            continue
        inner = _Context(ctx.module, ctx.cls, item, ctx.project)
        inner._written = ctx._written
        for n in subtree(item):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, (ast.AnnAssign, ast.AugAssign)) else []
            if not any(isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name)
                       and t.value.id == "self" for t in targets):
                continue
            if n.value is None or not (_off(inner, n.value, depth + 1) or _guarded(inner, item, n, depth)):
                return False
            found = True
    return found


def _guarded(ctx, func, node, depth: int) -> bool:
    """True when `node` sits in the body of an `if` of `func` whose test is off by default."""
    parents = ctx.parents(func)
    child, parent = node, parents.get(id(node))
    while parent is not None and parent is not func:
        if isinstance(parent, ast.If) and any(s is child for s in parent.body) and _off(ctx, parent.test, depth + 1):
            return True
        child, parent = parent, parents.get(id(parent))
    return False
