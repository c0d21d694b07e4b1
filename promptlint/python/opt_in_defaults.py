"""Whether a caching option is off by default: the defaults read for `opt_in_markers` (a fact for
PRM302 there; nothing here judges).

Off by default (`is_off`): the constants None, False, 0 and ""; `m.get("key")` with no default (or
an off one; a breakpoint key only from a mapping named as configuration, `model_config_dict.get(
"cache_control")`, else it is a breakpoint carried on) when the module writes no other value under that key (a dict display, `m["key"] =`,
a keyword) and no other module of the package sets it (`key=True` as a keyword or a field's
default: `Project.assigners_of`); a parameter of `__init__` whose default is off (an option of the
instance); a helper's parameter whose default is off, when the package passes it on under its
own name from an option off by default and never turns it on (`passed_on`: `step(msgs,
use_cache=self.use_cache)` with `__init__(self, use_cache=False)`; else it is what its callers
pass); a local name or a `self.` attribute every
assignment of which is off or sits under an `if` whose test is off (`self.cfg = None` in
`__init__`, then `if ttl: self.cfg = {...}`); a method without arguments whose every `return`
is off; `bool(x)`, `x is not None`, `(y := x)` of an off `x`; an `and` with an off operand, an
`or` of off operands. The assignments of a `self.` attribute include tuple assignments (`self.a,
self.cache = a, cache`) and those of functions patched into the class (`def f(self: Cls)`); an
attribute `__init__` stores with fastcore's `store_attr()` takes its parameter's default. An
attribute of another object (`prompt.options.cache`) is off when the module declares it as a field
of its classes, each with an off default (`cache: bool | None = Field(default=None)`), and nothing
in the module or the package sets it otherwise. Anything else (a call of another object) is not
known.
"""
from __future__ import annotations

import ast

from .gated_markers import module_functions
from .markers import MARKER_KEYS
from .walk import child_nodes, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_DEPTH = 6
#: Keys of a content block: a marker key beside one of them is a breakpoint, not a setting.
_BLOCK_KEYS = frozenset({"type", "text"})


class Context:
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
        """The methods of the class by name, the functions of the module patched into it included."""
        return {n.name: n for n in self.functions()}

    def functions(self) -> list[ast.AST]:
        """The class's functions: those of its body, then the module's patched into it (`def f(self: Cls)`)."""
        if self.cls is None:
            return []
        own = [n for n in self.cls.body if isinstance(n, _FUNCS)]
        return own + [f for c, f in module_functions(self.module, patched=True) if c is self.cls and f not in own]

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
                                and not (k.value in MARKER_KEYS and names & _BLOCK_KEYS))
                elif isinstance(n, ast.Assign):
                    keys.update(t.slice.value for t in n.targets if isinstance(t, ast.Subscript)
                                and isinstance(t.slice, ast.Constant) and isinstance(t.slice.value, str)
                                and t.slice.value not in MARKER_KEYS and not _off_constant(n.value))
                elif isinstance(n, ast.Call):
                    names = {k.arg for k in n.keywords}
                    keys.update(k.arg for k in n.keywords if k.arg and not _off_constant(k.value)
                                and not (k.arg in MARKER_KEYS and names & _BLOCK_KEYS))
            self._written = keys
        return self._written


def _off_constant(node) -> bool:
    return isinstance(node, ast.Constant) and node.value in (None, False, 0, "")


def is_off(ctx, node, depth: int) -> bool:
    """True when the expression is off (falsy) by default (module docstring)."""
    if depth > _DEPTH or node is None:
        return False
    if _off_constant(node):
        return True
    if isinstance(node, ast.NamedExpr):
        return is_off(ctx, node.value, depth + 1)
    if isinstance(node, ast.BoolOp):
        found = [is_off(ctx, v, depth + 1) for v in node.values]
        return any(found) if isinstance(node.op, ast.And) else all(found)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.IsNot, ast.NotEq)) \
            and _off_constant(node.comparators[0]) and node.comparators[0].value is None:
        return is_off(ctx, node.left, depth + 1)
    if isinstance(node, ast.Call):
        return _off_call(ctx, node, depth)
    if isinstance(node, ast.Name):
        return _off_name(ctx, node.id, depth)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return _off_attribute(ctx, node.attr, depth)
    if isinstance(node, ast.Attribute):
        return _off_field(ctx, node.attr)
    return False


def is_on(ctx, node, depth: int) -> bool:
    """True when a test is true by default: `not x`, `x is None` of an off `x`, an `or` with one."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return is_off(ctx, node.operand, depth + 1)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.Eq)) \
            and isinstance(node.comparators[0], ast.Constant) and node.comparators[0].value is None:
        return is_off(ctx, node.left, depth + 1)
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
        return any(is_on(ctx, v, depth + 1) for v in node.values)
    return False


def _off_call(ctx, node: ast.Call, depth: int) -> bool:
    f = node.func
    if isinstance(f, ast.Name) and f.id == "bool" and len(node.args) == 1:
        return is_off(ctx, node.args[0], depth + 1)
    if isinstance(f, ast.Attribute) and f.attr == "get" and node.args and isinstance(node.args[0], ast.Constant) \
            and isinstance(node.args[0].value, str) and not node.keywords:
        if len(node.args) == 2 and not _off_constant(node.args[1]):
            return False
        key = node.args[0].value
        if key in MARKER_KEYS and not _configuration(f.value):
            return False  # a breakpoint read off what the code is handed: the caller's, carried on
        return key not in ctx.written_keys() and not _set_elsewhere(ctx, key)
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self" \
            and not node.args and not node.keywords:
        method = ctx.methods().get(f.attr)
        if method is None:
            return False
        returns = [r.value for r in subtree(method) if isinstance(r, ast.Return)]
        inner = Context(ctx.module, ctx.cls, method, ctx.project)
        inner._written = ctx._written
        return bool(returns) and all(is_off(inner, r, depth + 1) for r in returns)
    return False


#: Words of a name that holds configuration (`model_config_dict`, `self.settings`, `llm_options`).
_CONFIG_WORDS = ("config", "settings", "options", "cfg")


def _configuration(receiver) -> bool:
    """True when the mapping a key is read from is named as configuration (`model_config_dict.get(
    "cache_control")`): an option of the deployment under the breakpoint key's name (a TTL, a
    switch), not a breakpoint read off a block or a message the code is handed."""
    name = receiver.id if isinstance(receiver, ast.Name) else receiver.attr if isinstance(receiver, ast.Attribute) else ""
    return any(word in name.lower() for word in _CONFIG_WORDS)


def set_elsewhere(ctx, key: str) -> bool:
    """True when another module of the package sets `key` on, or that is not known (`_set_elsewhere`)."""
    return _set_elsewhere(ctx, key)


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
        return all(is_off(ctx, v, depth + 1) or _guarded(ctx, ctx.func, n, depth) for n, v in values)
    args = ctx.func.args
    positional = [*args.posonlyargs, *args.args]
    defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults))
    defaults.update((a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)
    if name not in defaults or not _off_constant(defaults[name]):
        return False
    # a helper's parameter is what its callers pass: off only when the package passes it on under
    # its own name and never sets it on (`passed_on`)
    return ctx.func.name == "__init__" or passed_on(ctx, name)


def _off_attribute(ctx, attr: str, depth: int) -> bool:
    """`self.attr`: every assignment in the class's methods (those patched into it included) off or
    guarded by an off test, at least one of them (`self.a, self.b = a, b` pairs them); a
    class-level value of the same name off too. With no assignment, an `__init__` that stores its
    parameters by calling `store_attr()` (fastcore) gives it its parameter's default."""
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
    for item in ctx.functions():
        inner = Context(ctx.module, ctx.cls, item, ctx.project)
        inner._written = ctx._written
        for n in subtree(item):
            for value in _assigned(n, attr):
                if value is None or not (is_off(inner, value, depth + 1) or _guarded(inner, item, n, depth)):
                    return False
                found = True
    if not found:
        init = ctx.methods().get("__init__")
        if init is not None and _stores_parameters(init, attr):
            inner = Context(ctx.module, ctx.cls, init, ctx.project)
            inner._written = ctx._written
            return _off_name(inner, attr, depth + 1)
    return found


def _assigned(node, attr: str) -> list:
    """The values `node` assigns to `self.attr` (None for one not known: an augmented assignment,
    an unpacked call); [] when it assigns none."""
    if isinstance(node, ast.Assign):
        targets, values = node.targets, [node.value] * len(node.targets)
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        targets, values = [node.target], [node.value if isinstance(node, ast.AnnAssign) else None]
    else:
        return []
    out = []
    for target, value in zip(targets, values):
        if isinstance(target, (ast.Tuple, ast.List)):
            pairs = zip(target.elts, value.elts) if isinstance(value, (ast.Tuple, ast.List)) \
                and len(value.elts) == len(target.elts) else ((t, None) for t in target.elts)
        else:
            pairs = [(target, value)]
        out += [v for t, v in pairs if isinstance(t, ast.Attribute) and t.attr == attr
                and isinstance(t.value, ast.Name) and t.value.id == "self"]
    return out


def _stores_parameters(init, attr: str) -> bool:
    """True when `__init__` calls `store_attr()` (every parameter becomes an attribute) or
    `store_attr("a,b")` naming `attr`."""
    for n in subtree(init):
        if isinstance(n, ast.Call) and (getattr(n.func, "id", None) or getattr(n.func, "attr", None)) == "store_attr":
            if not n.args:
                return True
            first = n.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                return attr in {w.strip() for w in first.value.split(",")}
    return False


def _off_field(ctx, attr: str) -> bool:
    """`options.attr` of an object of a class not known: off when the module declares `attr` as a
    field of its classes (`cache: bool | None = Field(default=None)`, `cache: bool = False`), every
    one with an off default, and no code of the module or the package sets it otherwise (a
    keyword or key `attr=...`, `x.attr = ...` of a value not off)."""
    fields = [n for c in ctx.module.classes.values() for n in c.body
              if isinstance(n, (ast.Assign, ast.AnnAssign))
              and any(isinstance(t, ast.Name) and t.id == attr for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))]
    if not fields or not all(_off_default(n.value) for n in fields):
        return False
    for n in subtree(ctx.module.tree):
        if isinstance(n, (ast.Assign, ast.AnnAssign)):
            for target in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                if isinstance(target, ast.Attribute) and target.attr == attr and not _off_constant(n.value):
                    return False
    return attr not in ctx.written_keys() and not _set_elsewhere(ctx, attr)


def _off_default(node) -> bool:
    """A field's default that is off: an off constant, or `Field(default=None)` / `field(default=False)`
    (a first positional argument as the default) with no `default_factory`."""
    if _off_constant(node):
        return True
    if not isinstance(node, ast.Call) or (getattr(node.func, "id", None) or getattr(node.func, "attr", None)) \
            not in ("Field", "field"):
        return False
    keywords = {k.arg: k.value for k in node.keywords}
    if "default_factory" in keywords:
        return False
    default = keywords.get("default", node.args[0] if node.args else None)
    return default is not None and _off_constant(default)


def _guarded(ctx, func, node, depth: int) -> bool:
    """True when `node` sits in the body of an `if` of `func` whose test is off by default."""
    parents = ctx.parents(func)
    child, parent = node, parents.get(id(node))
    while parent is not None and parent is not func:
        if isinstance(parent, ast.If) and any(s is child for s in parent.body) and is_off(ctx, parent.test, depth + 1):
            return True
        child, parent = parent, parents.get(id(parent))
    return False


#: Words of a name that say it turns caching on (an `if args.cache:` before the value set on).
_CACHE_WORDS = frozenset({"cache", "caching", "cached"})


def passed_on(ctx, name: str) -> bool:
    """True when the package passes the parameter `name` of a helper only under its own name and
    never turns it on: every value written for it (a keyword `name=v`, a dict entry `"name": v`, a
    `kw["name"] = v` in this module or in one of the package that assigns the name, defines a
    function with a parameter of that name or calls the helper by its name, `assigners_of`,
    `definers_of`, `callers_of`; a module that only writes the name as a dict key is not searched)
    is off, or is the same option passed on (a parameter `name` of the passing function whose
    default is off, `self.name` off by default in its class), or is set on only under a test that
    names caching (a user's opt-in: `if args.cache: kw["name"] = True`); and at least one is passed
    on to the helper (`step(..., use_cache=self.use_cache)`, or a mapping's entry `{"use_cache":
    self.use_cache}` its callers may spread into the call), so the package's callers are seen. Without a project,
    or past 20 modules, not known: False."""
    if ctx.project is None:
        return False
    assigners = ctx.project.assigners_of(name, ctx.module.path, 20)
    definers = ctx.project.definers_of(name, ctx.module.path, 20)
    callers = ctx.project.callers_of(ctx.func.name, ctx.module.path, 20)
    if assigners is None or definers is None or callers is None:
        return False
    seen = False
    for module in {id(m): m for m in [ctx.module, *assigners, *definers, *callers]}.values():
        for cls, func in module_functions(module, patched=True):
            if func is ctx.func:  # (what the helper passes on itself says nothing of its callers)
                continue
            inner = Context(module, cls, func, ctx.project)
            for node, value in _written_values(func, name, ctx.func):
                if _off_constant(value):
                    continue
                if _names_option(value, name):
                    if not _passed_off(inner, value):
                        return False
                    seen = seen or not isinstance(node, ast.keyword) or _calls_helper(func, node, ctx.func.name)
                elif not _under_cache_test(inner, node):
                    return False
    return seen


def _calls_helper(func, keyword, helper: str) -> bool:
    """True when `keyword` is an argument of a call of a function named `helper` in `func`."""
    return any(isinstance(n, ast.Call) and keyword in n.keywords
               and (getattr(n.func, "id", None) or getattr(n.func, "attr", None)) == helper for n in subtree(func))


def _written_values(func, name: str, helper):
    """(node, value) for each value `func` writes for the option `name`: keywords, dict entries and
    subscript assignments under that key, and a positional argument of a call of a function named
    as `helper` at the parameter's place (`self` skipped for a call through an attribute)."""
    params = [a.arg for a in (*helper.args.posonlyargs, *helper.args.args)]
    for n in subtree(func):
        if isinstance(n, ast.Call) and (getattr(n.func, "id", None) or getattr(n.func, "attr", None)) == helper.name:
            names = params[1:] if isinstance(n.func, ast.Attribute) and params[:1] in (["self"], ["cls"]) else params
            for param, arg in zip(names, n.args):
                if isinstance(arg, ast.Starred):
                    break
                if param == name:
                    yield n, arg
        elif isinstance(n, ast.keyword) and n.arg == name:
            yield n, n.value
        elif isinstance(n, ast.Dict):
            yield from ((n, v) for k, v in zip(n.keys, n.values) if isinstance(k, ast.Constant) and k.value == name)
        elif isinstance(n, ast.Assign) and any(isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant)
                                               and t.slice.value == name for t in n.targets):
            yield n, n.value


def _names_option(value, name: str) -> bool:
    """True for `name` or `x.name`: the option passed on under its own name."""
    return (isinstance(value, ast.Name) and value.id == name) or (isinstance(value, ast.Attribute) and value.attr == name)


def _passed_off(ctx, value) -> bool:
    """The option passed on is off by default where it is passed: a parameter of the passing
    function with an off default (not followed to that function's own callers), `self.name` off
    in its class."""
    if isinstance(value, ast.Attribute):
        return isinstance(value.value, ast.Name) and value.value.id == "self" and _off_attribute(ctx, value.attr, 1)
    args = ctx.func.args
    positional = [*args.posonlyargs, *args.args]
    defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults))
    defaults.update((a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)
    return value.id in defaults and _off_constant(defaults[value.id])


def _under_cache_test(ctx, node) -> bool:
    """True when `node` sits in the body of an `if` whose test names caching (`if args.cache:`)."""
    parents = ctx.parents(ctx.func)
    child, parent = node, parents.get(id(node))
    while parent is not None and parent is not ctx.func:
        if isinstance(parent, ast.If) and any(s is child for s in parent.body) and any(
                _CACHE_WORDS & set((getattr(n, "id", None) or getattr(n, "attr", None) or "").lower().strip("_").split("_"))
                for n in subtree(parent.test)):
            return True
        child, parent = parent, parents.get(id(parent))
    return False
