"""The default int value of a setting an instance reads (`self.threshold_count`), for the margin
of a cut (`python/flow/cut_margins.py`): a class-level `threshold_count: int = 0`, a pydantic or
dataclass field `Field(default=0, ...)` / `field(default=0)`, or a parameter default that
`__init__` stores (`def __init__(self, threshold=0): self.threshold = threshold`); looked up in the
class and its bases, in the module or in the module of the analysed tree a base is imported from.
None when not known."""
from __future__ import annotations

import ast

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _int(node) -> int | None:
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def _value(node) -> int | None:
    """The int a class-level value gives: a literal, or a field call's `default=` (or first argument)."""
    if _int(node) is not None:
        return _int(node)
    if isinstance(node, ast.Call):
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        if "default" in kw:
            return _int(kw["default"])
        if node.args:
            return _int(node.args[0])
    return None


def _in_class(cls: ast.ClassDef, attr: str) -> tuple[bool, int | None]:
    """(found, value) of `attr` defined in the body of `cls` or stored by its `__init__`."""
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == attr:
            return True, _value(stmt.value) if stmt.value is not None else None
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == attr for t in stmt.targets):
            return True, _value(stmt.value)
        if isinstance(stmt, _FUNCS) and stmt.name == "__init__":
            args = stmt.args
            defaults = dict(zip([a.arg for a in args.args][len(args.args) - len(args.defaults):], args.defaults))
            defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
            for n in ast.walk(stmt):
                if isinstance(n, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr == attr
                                                     and isinstance(t.value, ast.Name) and t.value.id == "self"
                                                     for t in n.targets):
                    if isinstance(n.value, ast.Name) and n.value.id in defaults:
                        return True, _int(defaults[n.value.id])
                    return True, _value(n.value)
    return False, None


class Defaults:
    """Reads the defaults of settings of the classes of one module (and their bases)."""

    def __init__(self, module, project):
        self.module = module
        self.project = project

    def _class(self, module, base) -> tuple[object, ast.ClassDef] | None:
        """(module, class statement) that a base of a class statement names, or None."""
        name = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else None
        if name is None:
            return None
        for stmt in module.tree.body:
            if isinstance(stmt, ast.ClassDef) and stmt.name == name:
                return module, stmt
        dotted = module.qualified_name(base)
        if not dotted or "." not in dotted or self.project is None:
            return None
        try:
            found = self.project.resolve_symbol(dotted)
        except Exception:  # an unreadable module of the tree: not known
            return None
        if found is None:
            return None
        other, short = found
        for stmt in other.tree.body:
            if isinstance(stmt, ast.ClassDef) and stmt.name == short:
                return other, stmt
        return None

    def default(self, module, cls: ast.ClassDef, attr: str, depth: int = 0) -> int | None:
        found, value = _in_class(cls, attr)
        if found or depth > 4:
            return value
        for base in cls.bases:
            up = self._class(module, base)
            if up is not None:
                value = self.default(up[0], up[1], attr, depth + 1)
                if value is not None:
                    return value
        return None

    def reader(self, cls: ast.ClassDef | None):
        """A function giving the default of a margin expression read in a method of `cls`
        (`self.threshold_count` -> 0), None when not known."""
        def default_of(node) -> int | None:
            if isinstance(node, ast.Name):  # a module constant (`MAX_TURNS = 40`)
                return next((_int(s.value) for s in self.module.tree.body if isinstance(s, ast.Assign)
                             and any(isinstance(t, ast.Name) and t.id == node.id for t in s.targets)), None)
            if cls is None or not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                                   and node.value.id == "self"):
                return None
            return self.default(self.module, cls, node.attr)
        return default_of
