"""Scopes of one module and the values names are bound to, on the stdlib `ast`.

`collect(tree)` walks the tree once and returns every call and dict display with the scope it
sits in (module, class body or function), every name binding, the assignment target of each
assigned value, and the receivers of TTL-setter calls. `follow`, `number`, `string` and `is_none`
read a value through names bound once; `qualify` gives the dotted name an expression stands for.
Nothing is imported or executed.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterable

from ..module import Module, dotted_parts

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_MATCH_NAMES = tuple(getattr(ast, n) for n in ("MatchAs", "MatchStar") if hasattr(ast, n))


@dataclass(eq=False)
class Scope:
    """A module, class body or function. `bindings` maps a name to the values bound to it, in
    source order; None stands for a binding whose value is not a plain expression (parameter,
    loop target, import, augmented assignment...). `imports` maps a name imported in this scope
    to its dotted name (relative imports keep their leading dots)."""

    node: ast.AST
    kind: str  # module | class | function
    parent: "Scope | None" = None
    bindings: dict[str, list[ast.expr | None]] = field(default_factory=dict)
    globals: set[str] = field(default_factory=set)
    imports: dict[str, str] = field(default_factory=dict)

    def bind(self, name: str, value: ast.expr | None) -> None:
        self.bindings.setdefault(name, []).append(value)

    @property
    def module(self) -> "Scope":
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope

    def function(self) -> "Scope | None":
        """The innermost enclosing function scope (this one included), or None."""
        scope: Scope | None = self
        while scope is not None and scope.kind != "function":
            scope = scope.parent
        return scope


Value = tuple[ast.expr, Scope]


@dataclass
class Facts:
    """What one walk over a module found. `calls` and `dicts` are in source order (an outer call
    before the calls in it); `targets` maps id(assigned value) to its assignment target;
    `ttl_set` holds the source text of receivers of `<receiver>.<setter>(<value not None>)`."""

    root: Scope
    calls: list[tuple[ast.Call, Scope]] = field(default_factory=list)
    dicts: list[tuple[ast.Dict, Scope]] = field(default_factory=list)
    targets: dict[int, ast.expr] = field(default_factory=dict)
    ttl_set: set[str] = field(default_factory=set)


def collect(module: Module, ttl_setters: Iterable[str] = ()) -> Facts:
    """One pass over `module.tree`. Raises RecursionError on pathologically nested code."""
    walker = _Walker(module, frozenset(ttl_setters))
    walker.visit(module.tree)
    facts = walker.facts
    facts.calls.sort(key=lambda item: (item[0].lineno, item[0].col_offset))  # stable: outer first
    facts.dicts.sort(key=lambda item: (item[0].lineno, item[0].col_offset))
    return facts


class _Walker(ast.NodeVisitor):
    def __init__(self, module: Module, ttl_setters: frozenset[str]):
        self.module = module
        self.setters = ttl_setters
        self.facts = Facts(Scope(module.tree, "module"))
        self.stack = [self.facts.root]

    @property
    def scope(self) -> Scope:
        return self.stack[-1]

    def bind_target(self, target: ast.expr, value: ast.expr | None) -> None:
        if isinstance(target, ast.Name):
            self.scope.bind(target.id, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.bind_target(element, None)
        elif isinstance(target, ast.Starred):
            self.bind_target(target.value, None)

    def visit_each(self, nodes: Iterable[ast.AST | None]) -> None:
        for node in nodes:
            if node is not None:
                self.visit(node)

    # -- scopes -------------------------------------------------------------------------------

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        args = node.args
        self.visit_each(node.decorator_list)
        self.visit_each([*args.defaults, *args.kw_defaults])
        self.visit_each(a.annotation for a in (*args.posonlyargs, *args.args, *args.kwonlyargs,
                                               args.vararg, args.kwarg) if a is not None)
        self.visit_each([node.returns])
        self.scope.bind(node.name, None)
        scope = Scope(node, "function", self.scope)
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
            if arg is not None:
                scope.bind(arg.arg, None)
        self.stack.append(scope)
        self.visit_each(node.body)
        self.stack.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.visit_each([*node.decorator_list, *node.bases, *node.keywords])
        self.scope.bind(node.name, None)
        self.stack.append(Scope(node, "class", self.scope))
        self.visit_each(node.body)
        self.stack.pop()

    # -- bindings -----------------------------------------------------------------------------

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self.bind_target(target, node.value)
            self.facts.targets[id(node.value)] = target
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.bind_target(node.target, node.value)
            self.facts.targets[id(node.value)] = node.target
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.bind_target(node.target, None)
        self.generic_visit(node)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self.bind_target(node.target, None)
        self.generic_visit(node)

    visit_AsyncFor = visit_For

    def visit_withitem(self, node: ast.withitem) -> None:
        if node.optional_vars is not None:
            self.bind_target(node.optional_vars, None)
        self.generic_visit(node)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.bind_target(node.target, None)
        self.generic_visit(node)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.scope.bind(node.name, None)
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        self.scope.globals.update(node.names)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        for name in node.names:  # bound elsewhere: unknown here
            self.scope.bind(name, None)

    def generic_visit(self, node: ast.AST) -> None:
        if isinstance(node, _MATCH_NAMES) and getattr(node, "name", None):
            self.scope.bind(node.name, None)
        super().generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname:
                self.scope.bind(alias.asname, None)
                self.scope.imports[alias.asname] = alias.name
            else:
                head = alias.name.split(".")[0]
                self.scope.bind(head, None)
                self.scope.imports[head] = head

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = "." * node.level + (node.module or "")
        for alias in node.names:
            if alias.name == "*":
                continue
            local = alias.asname or alias.name
            self.scope.bind(local, None)
            self.scope.imports[local] = f"{base}.{alias.name}"

    # -- what the finder reads ----------------------------------------------------------------

    def visit_Call(self, node: ast.Call) -> None:
        self.facts.calls.append((node, self.scope))
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in self.setters:
            first = node.args[0] if node.args else (node.keywords[0].value if node.keywords else None)
            if first is not None and not (isinstance(first, ast.Constant) and first.value is None):
                self.facts.ttl_set.add(self.module.code(func.value))
        self.generic_visit(node)

    def visit_Dict(self, node: ast.Dict) -> None:
        self.facts.dicts.append((node, self.scope))
        for key, value in zip(node.keys, node.values):  # source order, not all keys first
            if key is not None:
                self.visit(key)
            self.visit(value)


# ------------------------------------------------------------------------------- reading values


def resolve_name(name: str, scope: Scope) -> Value | None:
    """The one value bound to `name` as seen from `scope` (innermost binding scope; class bodies
    are skipped from inside their methods), with the scope it was bound in; None when the name is
    bound more than once, by a non-assignment, or not at all."""
    current: Scope | None = scope
    innermost = True
    while current is not None:
        if current.kind == "class" and not innermost:
            current = current.parent
            continue
        if name in current.globals:
            current, innermost = current.module, False
            continue
        values = current.bindings.get(name)
        if values is not None:
            if len(values) == 1 and values[0] is not None:
                return values[0], current
            return None
        innermost = False
        current = current.parent
    return None


def follow(expr: ast.expr, scope: Scope, depth: int = 8) -> Value | None:
    """Follow a name through single assignments to the expression it stands for; other
    expressions are returned as they are. None when a name cannot be followed."""
    while isinstance(expr, ast.Name):
        if depth == 0:
            return None
        found = resolve_name(expr.id, scope)
        if found is None:
            return None
        expr, scope = found
        depth -= 1
    return expr, scope


def is_none(expr: ast.expr, scope: Scope) -> bool:
    """True when the expression is, or is a name bound once to, the literal None."""
    found = follow(expr, scope)
    return found is not None and isinstance(found[0], ast.Constant) and found[0].value is None


def number(expr: ast.expr, scope: Scope) -> float | None:
    """The value of an int or float literal, signed or not (or a name bound once to one), else None."""
    found = follow(expr, scope)
    if found is None:
        return None
    node, sign = found[0], 1.0
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign = -1.0 if isinstance(node.op, ast.USub) else 1.0
        node = node.operand
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return sign * float(node.value)
    return None


def string(expr: ast.expr, scope: Scope) -> str | None:
    """The value of a string literal, not an f-string (or a name bound once to one), else None."""
    found = follow(expr, scope)
    if found is not None and isinstance(found[0], ast.Constant) and isinstance(found[0].value, str):
        return found[0].value
    return None


def qualify(module: Module, expr: ast.expr, scope: Scope) -> str | None:
    """The dotted name `expr` stands for, as seen from `scope`: an import in an enclosing
    function counts (`def f(): from redisvl... import SemanticCache`), any other local binding of
    the head name hides the module's imports (None), else `Module.qualified_name`."""
    split = dotted_parts(expr)
    if split is None:
        return None
    name, attrs = split
    current: Scope | None = scope
    innermost = True
    while current is not None:
        if current.kind == "class" and not innermost:
            current = current.parent
            continue
        if name in current.globals:
            current, innermost = current.module, False
            continue
        if name in current.bindings:
            if current.kind == "module" and name in module.imports:
                break
            dotted = current.imports.get(name)
            return ".".join([dotted, *attrs]) if dotted else None
        current, innermost = current.parent, False
    return module.qualified_name(expr)


def function_parameters(node: ast.AST) -> list[ast.arg]:
    """The positional parameters of a function definition, in order ([] for anything else)."""
    if isinstance(node, _FUNCTIONS):
        return [*node.args.posonlyargs, *node.args.args]
    return []
