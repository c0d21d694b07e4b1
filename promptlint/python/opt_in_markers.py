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

The gate may also be a call: an argument named for caching given for a parameter of a function
of the module (or a method of the class) that gates its breakpoints that way, its statements
marking up to `_CALLS` calls down (`mk_msgs(self.hist, self.cache and "claude" in self.model)`,
`def mk_msgs(msgs, cache=False): ... if cache: _apply_cache_idxs(res)`), or a keyword named for
caching given to a message builder imported from a library (`mk_msgs(msgs, cache=self.cache)`,
`msglm.mk_msgs_anthropic`: a message list holds no response cache, so the flag can only mean
breakpoints) in a module that sends to an opt-in cache API (it imports `anthropic`, boto3 or
aiobotocore). A function of the module whose first parameter is `self` annotated with a class of
the module (`def _precall(self: Client, ...)`, fastcore's `@patch`) is read as that class's method.
No gate is kept in a module where a request passes a top-level `cache_control=` outside such a
test (automatic caching: the default requests carry that breakpoint).

Off by default: `opt_in_defaults.is_off` (a breakpoint read off a block the code is handed,
`block.get("cache_control")`, is the caller's, carried on: no option). Whoever keeps the default
sends requests with no breakpoint, and Anthropic (and Claude on Bedrock) caches nothing without one.
`rewritten_marks`: a caller's breakpoint written again as one of the code's own making (its `ttl` dropped).
"""
from __future__ import annotations

import ast

from .gated_markers import OPT_IN_SDKS, _marks, module_functions, own_callee
from .markers import MARKER_KEYS
from .opt_in_defaults import Context, is_off, is_on
from .walk import subtree


def might_build(module) -> bool:
    """Cheap test of a module that names no breakpoint key: it sends to an opt-in cache API and
    passes a keyword named for caching (`cache=`), as to a library's message builder."""
    return "cache" in module.source and module.imports_from(*OPT_IN_SDKS)


def opt_in_gates(module, project=None) -> list[tuple[ast.expr, str]]:
    """(test, option) for each caching option of `module` that gates its breakpoints and is off by
    default: the gate that reads it (an `if` test, or the argument a call passes: `_call_gates`),
    one per option of a class (by its last name: `self.cache` and the `cache` parameter its
    `__init__` stores are one), a gate outside `__init__` (the requests' path) before one in it, then
    the first in the source; and the option's name as written (`self.x`, `settings.get('k')`).
    `project` (a `tree.Project`) finds the other modules of the package that may set a key read
    with `get`; without it no such key is taken as off. Module docstring."""
    if _automatic(module):
        return []
    out: dict[tuple, tuple] = {}
    gating: dict[int, set[str]] = {}  # id(function) -> its parameters that gate its breakpoints
    passed: set[tuple[int, str]] = set()  # (id(function), parameter) a call of the module gates
    entries = []
    for cls, func in module_functions(module, patched=True):
        found = [(stmt.test, test) for stmt, test, body in _gates(func)  # (where, the test it stands for)
                 if _names_cache(test) and _marks(module, cls, body, _CALLS)]
        found += [(arg, arg) for arg in _call_gates(module, cls, func, gating, passed)]
        entries.append((cls, func, found))
    for cls, func, found in entries:
        ctx = Context(module, cls, func, project)
        for node, test in found:
            if any(isinstance(n, ast.Name) and (id(func), n.id) in passed for n in subtree(test)):
                continue  # a helper's parameter a call of the module gates: one finding, at that call
            option = _option(ctx, test)
            if option is None:
                continue
            key = (id(cls), option.rsplit(".", 1)[-1])
            rank = (func.name == "__init__", node.lineno, node.col_offset)
            if key not in out or rank < out[key][0]:
                out[key] = (rank, node, option)
    return [(node, name) for _rank, node, name in sorted(out.values(), key=lambda v: v[0][1:])]


def _automatic(module) -> bool:
    """True when a call of the module (not a content block's: no `type` or `text` keyword) passes
    a top-level `cache_control=` keyword (automatic caching) of a value not None, outside any `if` whose test names caching: requests sent with the
    default settings carry that breakpoint, whatever the options gate."""
    gated = {id(n) for node in subtree(module.tree) if isinstance(node, ast.If) and _names_cache(node.test)
             for stmt in node.body for n in subtree(stmt)}
    for call in subtree(module.tree):
        if not isinstance(call, ast.Call) or {"type", "text"} & {k.arg for k in call.keywords}:
            continue  # (a content block built with a marker: `TextBlockParam(type="text", ..., cache_control=...)`)
        if any(k.arg == "cache_control" and id(k) not in gated and not (isinstance(k.value, ast.Constant)
                                                                         and k.value.value is None)
               for k in call.keywords):
            return True
    return False


#: Levels of calls through which a gated statement may set the breakpoint (`if cache:
#: _apply_cache_idxs(...)`, which calls `_add_cache_control(...)`, which sets it).
_CALLS = 3
#: Words of a function's name that say it builds a request's messages: a flag of such a function
#: named for caching can only mean breakpoints (a message list holds no response cache).
_MESSAGE_WORDS = frozenset({"msg", "msgs", "message", "messages"})


def _call_gates(module, cls, func, gating: dict, passed: set | None = None) -> list[ast.expr]:
    """The arguments of `func`'s calls that turn breakpoints on: one given for a parameter of a
    function of the module or a method of the class that gates its breakpoints (`mk_msgs(hist,
    self.cache and "claude" in self.model)`, with `def mk_msgs(msgs, cache=False): ... if cache:
    _apply_cache_idxs(res)`), or a keyword named for caching given to a message builder imported
    from a library (`mk_msgs(msgs, cache=self.cache)`, `msglm.mk_msgs_anthropic`) in a module
    that sends to an opt-in cache API. Only arguments that name caching (`_names_cache`); each
    (id(function), parameter) they are given for is added to `passed`."""
    methods = _methods(module, cls)
    opt_in = module.imports_from(*OPT_IN_SDKS)
    out: list[ast.expr] = []
    for call in subtree(func):
        if not isinstance(call, ast.Call):
            continue
        callee = own_callee(module, methods, call)
        if callee is not None:
            params = _gating(module, callee, gating)
            if params:
                given = [(name, arg) for name, arg in _bound(callee, call) if name in params and _names_cache(arg)]
                out += [arg for _name, arg in given]
                if passed is not None:
                    passed.update((id(callee), name) for name, _arg in given)
        elif opt_in and _builds_messages(module, call):
            out += [k.value for k in call.keywords if k.arg and _names_cache(ast.Name(k.arg)) and _names_cache(k.value)]
    return out


def _methods(module, cls) -> dict:
    """The methods of `cls` by name, the functions of the module patched into it included."""
    if cls is None:
        return {}
    found = {n.name: n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for owner, func in module_functions(module, patched=True):
        if owner is cls:
            found.setdefault(func.name, func)
    return found


def _gating(module, func, gating: dict) -> set[str]:
    """The parameters of `func` that an `if` test reads (named for caching) whose body sets a
    breakpoint (`_CALLS` levels down); memoised in `gating` by the function's id."""
    got = gating.get(id(func))
    if got is None:
        params = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)}
        owner = next((c for c, f in module_functions(module, patched=True) if f is func), None)
        got = gating[id(func)] = set()
        for _stmt, test, body in _gates(func):
            names = {n.id for n in subtree(test) if isinstance(n, ast.Name)} & params
            if names and _names_cache(test) and _marks(module, owner, body, _CALLS):
                got |= names
    return got


def _bound(func, call: ast.Call) -> list[tuple[str, ast.expr]]:
    """(parameter name, argument) for the arguments of `call` to `func` (`self` skipped for a call
    through an attribute: `self.helper(x)`); none after a `*args`."""
    params = [a.arg for a in (*func.args.posonlyargs, *func.args.args)]
    if isinstance(call.func, ast.Attribute) and params[:1] in (["self"], ["cls"]):
        params = params[1:]
    out = []
    for name, arg in zip(params, call.args):
        if isinstance(arg, ast.Starred):
            break
        out.append((name, arg))
    return out + [(k.arg, k.value) for k in call.keywords if k.arg]


def _builds_messages(module, call: ast.Call) -> bool:
    """True when the call names a function imported from outside the module whose last name says
    it builds messages (`mk_msgs`, `format_messages`)."""
    f = call.func
    name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
    root = f.id if isinstance(f, ast.Name) else None
    if isinstance(f, ast.Attribute):
        node = f
        while isinstance(node, ast.Attribute):
            node = node.value
        root = node.id if isinstance(node, ast.Name) else None
    qualified = module.imports.get(root or "")
    if qualified is None:
        return False
    words = set((qualified.rsplit(".", 1)[-1] if isinstance(f, ast.Name) else name).lower().split("_"))
    return bool(words & _MESSAGE_WORDS)


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
               and isinstance(n.args[0], ast.Constant) and n.args[0].value in MARKER_KEYS for n in subtree(node))


def _own_mark(node, bound: set[str]) -> bool:
    """True for `x["cache_control"] = {...}` (or a dict entry so) whose value is a dict display
    that reads neither the caller's breakpoint nor a name bound to it."""
    if isinstance(node, ast.Assign) and any(isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant)
                                            and t.slice.value in MARKER_KEYS for t in node.targets):
        value = node.value
    elif isinstance(node, ast.Dict):
        value = next((v for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant)
                      and k.value in MARKER_KEYS), None)
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
        holds = is_on(ctx, node, 0) if on else is_off(ctx, node, 0)
        return node.left if holds else None
    if not _names_cache(node):
        return None
    holds = is_on(ctx, node, 0) if on else is_off(ctx, node, 0)
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


