"""Whether the items of an iterable are known to support `<` among themselves, read from code.

A safe `sorted(...)` fix must not raise (docs/policies.md "Fix safety"): `sorted` compares items with
`<`, which strings, paths and numbers support among their own kind and most objects do not. This
module reads a libcst expression and says what kind every item it yields is: "str", "path",
"number", "bytes", "empty" (yields nothing), or None (not known). It knows:

- listings: `os.listdir`, `glob.glob` / `glob.iglob`, `fnmatch.filter` (str); `os.scandir`
  ("direntry": no `<`, sorted by a key), also as the name a `with` statement binds; `.iterdir()`,
  `.glob()`, `.rglob()` methods (paths); `str.split` / `splitlines` (str);
- displays and comprehensions of literals, f-strings, `str(...)`, str methods, `Path(...)`, and
  cuts or indexes of a string (`str(x)[:50]`);
- `set(x)`, `frozenset(x)`, `list(x)`, `tuple(x)`, `sorted(x)`, `dict.fromkeys(x)`, `x.keys()`
  of a dict display, `x.union(y)` and the set operators `| & ^ -`;
- names bound in the same function (or at module level) to such values, with `.add` / `.append`
  / `.update` / `.extend` / `|=` / `+=` mutations taken into account; parameters annotated
  `list[str]`, `set[str]`, `Iterable[Path]` and the like.
Anything else is None: the caller then offers `sorted(...)` as an unsafe fix or uses a key.
"""
from __future__ import annotations

import libcst as cst

from ._common import parents

_STR_LISTINGS = {"os.listdir", "glob.glob", "glob.iglob", "fnmatch.filter"}
_PATH_METHODS = {"iterdir", "glob", "rglob"}
_STR_METHODS = {"lower", "upper", "strip", "lstrip", "rstrip", "title", "casefold", "capitalize",
                "removeprefix", "removesuffix", "replace", "format", "join", "zfill", "center",
                "ljust", "rjust", "expandtabs", "swapcase"}
_SPLITS = {"split", "rsplit", "splitlines"}
_PASS_THROUGH = {"set", "frozenset", "list", "tuple", "sorted", "reversed", "iter",
                 "builtins.set", "builtins.frozenset", "builtins.list", "builtins.tuple", "builtins.sorted"}
_SET_METHODS = {"union", "intersection", "difference", "symmetric_difference", "copy"}
_ELEMENT_ADDERS = {"add", "append"}
_ITEMS_ADDERS = {"update", "extend", "intersection_update", "difference_update", "symmetric_difference_update"}
_CONTAINERS = {"list", "set", "frozenset", "tuple", "Iterable", "Sequence", "Collection", "List", "Set",
               "FrozenSet", "Tuple", "AbstractSet", "MutableSet", "MutableSequence", "Iterator", "KeysView"}
_SCALARS = {"str": "str", "Path": "path", "PurePath": "path", "PosixPath": "path", "int": "number",
            "float": "number", "bytes": "bytes"}
MAX_DEPTH = 6


def orderable(module, expr: cst.BaseExpression) -> bool:
    """True when every item `expr` yields is known to be of one kind that supports `<`."""
    return _Reader(module).items(expr, 0, {}) not in (None, "direntry")


def item_kind(module, expr: cst.BaseExpression) -> str | None:
    """The kind of every item `expr` yields ("str", "path", "number", "bytes", "empty", or
    "direntry": an `os.DirEntry`, which has no `<`), or None."""
    return _Reader(module).items(expr, 0, {})


def _merge(kinds) -> str | None:
    found = set()
    for kind in kinds:
        if kind is None:
            return None
        if kind != "empty":
            found.add(kind)
    if not found:
        return "empty"
    return found.pop() if len(found) == 1 else None


class _Reader:
    def __init__(self, module):
        self.m = module
        self.seen: set[tuple[int, str]] = set()

    # ------------------------------------------------------------------ items of an iterable
    def items(self, expr, depth: int, env: dict) -> str | None:
        if depth > MAX_DEPTH:
            return None
        d = depth + 1
        if isinstance(expr, (cst.List, cst.Set, cst.Tuple)):
            return _merge(self.items(e.value, d, env) if isinstance(e, cst.StarredElement)
                          else self.element(e.value, d, env) for e in expr.elements)
        if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
            return self.element(expr.elt, d, self._comp_env(expr, d, env))
        if isinstance(expr, cst.DictComp):
            return self.element(expr.key, d, self._comp_env(expr, d, env))
        if isinstance(expr, cst.Dict):
            return _merge(self.element(e.key, d, env) if isinstance(e, cst.DictElement) else None
                          for e in expr.elements)
        if isinstance(expr, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)):
            return self.element(expr, d, env)  # iterating a string yields strings
        if isinstance(expr, cst.BinaryOperation):
            if isinstance(expr.operator, cst.Subtract):
                return self.items(expr.left, d, env)
            if isinstance(expr.operator, (cst.BitOr, cst.BitAnd, cst.BitXor, cst.Add)):
                return _merge([self.items(expr.left, d, env), self.items(expr.right, d, env)])
            return None
        if isinstance(expr, cst.IfExp):
            return _merge([self.items(expr.body, d, env), self.items(expr.orelse, d, env)])
        if isinstance(expr, cst.Call):
            return self._call_items(expr, d, env)
        if isinstance(expr, cst.Name):
            if expr.value in env:  # an element: iterating it is known only for a str
                return "str" if env[expr.value][0] == "str" else None
            return self._name_items(expr, d)
        return None

    def _call_items(self, call: cst.Call, d: int, env: dict) -> str | None:
        name = self.m.qualified_name(call.func)
        args = [a for a in call.args if a.keyword is None and not a.star]
        if name in _STR_LISTINGS:
            return "str"
        if name == "os.scandir":
            return "direntry"
        if name in _PASS_THROUGH or name == "dict.fromkeys":
            return self.items(args[0].value, d, env) if args else "empty"
        if isinstance(call.func, cst.Attribute):
            method, receiver = call.func.attr.value, call.func.value
            if method in _PATH_METHODS:
                return "path"
            if method in _SPLITS:  # str.split yields str, bytes.split bytes: one kind either way
                return "bytes" if self.element(receiver, d, env) == "bytes" else "str"
            if method == "keys" and isinstance(receiver, cst.Dict):
                return self.items(receiver, d, env)
            if method in _SET_METHODS:
                return _merge([self.items(receiver, d, env)] + [self.items(a.value, d, env) for a in args])
        return None

    def _comp_env(self, comp, d: int, env: dict) -> dict:
        inner = dict(env)
        node = comp.for_in
        while node is not None:
            if isinstance(node.target, cst.Name):
                inner[node.target.value] = (self.items(node.iter, d, inner),)
            node = node.inner_for_in
        return inner

    # ------------------------------------------------------------------ one value
    def element(self, expr, depth: int, env: dict) -> str | None:
        if depth > MAX_DEPTH:
            return None
        d = depth + 1
        if isinstance(expr, cst.SimpleString):
            return "bytes" if "b" in expr.prefix.lower() else "str"
        if isinstance(expr, cst.FormattedString):
            return "str"
        if isinstance(expr, cst.ConcatenatedString):
            return _merge([self.element(expr.left, d, env), self.element(expr.right, d, env)])
        if isinstance(expr, (cst.Integer, cst.Float)):
            return "number"
        if isinstance(expr, cst.Name) and expr.value in env:
            return env[expr.value][0]
        if isinstance(expr, cst.IfExp):
            return _merge([self.element(expr.body, d, env), self.element(expr.orelse, d, env)])
        if isinstance(expr, cst.Subscript):
            return self._subscript(expr, d, env)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Modulo)):
            left = self.element(expr.left, d, env)
            if left == "str":
                return "str"
            if isinstance(expr.operator, cst.Add):
                right = self.element(expr.right, d, env)
                return "str" if right == "str" else None
            return None
        if isinstance(expr, cst.Call):
            name = self.m.qualified_name(expr.func) or ""
            if name in ("str", "repr", "format", "os.path.join", "os.path.basename", "os.path.splitext"):
                return "str" if name != "os.path.splitext" else None
            if name in ("int", "float", "len"):
                return "number"
            if name.split(".")[-1] in ("Path", "PurePath", "PurePosixPath", "PosixPath") and \
                    (name.startswith("pathlib.") or name in ("Path", "PurePath")):
                return "path"
            if isinstance(expr.func, cst.Attribute) and expr.func.attr.value in _STR_METHODS:
                return "str"
        return None

    def _subscript(self, expr: cst.Subscript, d: int, env: dict) -> str | None:
        """A cut or index of a string is a string (`str(x)[:50]`, `name[0]`); a cut of bytes is
        bytes (an index of bytes is an int, not known here)."""
        kind = self.element(expr.value, d, env)
        if kind == "str":
            return "str"
        if kind == "bytes" and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Slice):
            return "bytes"
        return None

    # ------------------------------------------------------------------ names
    def _name_items(self, name: cst.Name, d: int) -> str | None:
        """The item kind of a local or module-level name: every binding and mutation agrees."""
        scope, params = self._scope(name)
        key = (id(scope), name.value)
        if key in self.seen:
            return None
        self.seen.add(key)
        kinds = []
        for param in params:
            if param.name.value == name.value:
                kinds.append(self._annotation(param.annotation))
        for stmt in self._statements(scope):
            kinds.extend(self._binding(stmt, name.value, d))
        if not kinds and scope is not self.m.tree:
            globals_ = self._statements(self.m.tree)
            kinds = [k for stmt in globals_ for k in self._binding(stmt, name.value, d)]
        return _merge(kinds) if kinds else None

    def _scope(self, node):
        """The function that holds `node` (or the module) and its parameters."""
        parent_of = parents(self.m)
        current = parent_of.get(node)
        while current is not None:
            if isinstance(current, (cst.FunctionDef, cst.Lambda)):
                params = current.params
                found = [*params.posonly_params, *params.params, *params.kwonly_params]
                body = current if isinstance(current, cst.FunctionDef) else None
                return (body or self.m.tree), found
            current = parent_of.get(current)
        return self.m.tree, []

    def _statements(self, scope):
        """Small statements of a function or module body, nested blocks included, nested
        function and class bodies left out."""
        body = scope.body.body if isinstance(scope, cst.FunctionDef) else scope.body
        stack, out = list(body), []
        while stack:
            node = stack.pop(0)
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                continue
            if isinstance(node, cst.SimpleStatementLine):
                out.extend(node.body)
            elif isinstance(node, cst.BaseSmallStatement):
                out.append(node)
            else:  # a compound statement or one of its clauses (else, except, finally, case)
                if isinstance(node, cst.BaseCompoundStatement):
                    out.append(node)
                for child in node.children:
                    if isinstance(child, cst.BaseSuite):
                        stack.extend(child.body)
                    elif isinstance(getattr(child, "body", None), cst.BaseSuite):
                        stack.append(child)
        return out

    def _binding(self, stmt, name: str, d: int) -> list:
        """Kinds the statement gives `name`'s items ([] when it does not touch the name)."""
        if isinstance(stmt, cst.Assign):
            if any(isinstance(t.target, cst.Name) and t.target.value == name for t in stmt.targets):
                return [self.items(stmt.value, d, {})]
            if any(_mentions(t.target, name) for t in stmt.targets):
                return [None]  # unpacked or subscripted
            return []
        if isinstance(stmt, cst.AnnAssign) and isinstance(stmt.target, cst.Name) and stmt.target.value == name:
            return [self.items(stmt.value, d, {}) if stmt.value is not None else self._annotation(stmt.annotation)]
        if isinstance(stmt, cst.AugAssign) and isinstance(stmt.target, cst.Name) and stmt.target.value == name:
            return [self.items(stmt.value, d, {})]
        if isinstance(stmt, (cst.Global, cst.Nonlocal)) and any(n.name.value == name for n in stmt.names):
            return [None]
        if isinstance(stmt, cst.With):  # `with os.scandir(d) as entries:` iterates what the call returns
            bound = [i for i in stmt.items if i.asname is not None and _mentions(i.asname.name, name)]
            if bound:
                item = bound[0]
                named = isinstance(item.asname.name, cst.Name) and isinstance(item.item, cst.Call)
                return [self._call_items(item.item, d, {}) if named else None]
            return []
        if isinstance(stmt, cst.For) and _mentions(stmt.target, name):
            return [None]
        if isinstance(stmt, cst.Expr) and isinstance(stmt.value, cst.Call):
            call = stmt.value
            func = call.func
            if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == name:
                args = [a.value for a in call.args]
                if func.attr.value in _ELEMENT_ADDERS or func.attr.value == "insert":
                    value = args[-1] if args else None
                    return [self.element(value, d, {}) if value is not None else None]
                if func.attr.value in _ITEMS_ADDERS:
                    return [self.items(a, d, {}) for a in args] or [None]
        return []

    def _annotation(self, annotation) -> str | None:
        """The item kind an annotation such as `list[str]` or `Iterable[Path]` promises."""
        if annotation is None:
            return None
        node = annotation.annotation
        if not isinstance(node, cst.Subscript):
            return None
        outer = (self.m.qualified_name(node.value) or "").split(".")[-1]
        if outer not in _CONTAINERS or not node.slice:
            return None
        first = node.slice[0].slice
        if not isinstance(first, cst.Index):
            return None
        inner = (self.m.qualified_name(first.value) or "").split(".")[-1]
        return _SCALARS.get(inner)


def _mentions(node, name: str) -> bool:
    """True when `name` is bound by the target(s) `node` (a `with` item counts by its `as`)."""
    stack = [node] if not isinstance(node, (list, tuple)) else list(node)
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name) and current.value == name:
            return True
        if isinstance(current, cst.WithItem):
            if current.asname is not None:
                stack.append(current.asname.name)
            continue
        if isinstance(current, cst.CSTNode):
            stack.extend(current.children)
    return False
