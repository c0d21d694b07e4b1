"""Attributes of the instance that a method builds itself before reading them: `self.system_prompt
= ""`, then `self.system_prompt += KNOWLEDGE.format(ref_doc=doc)` and `+= TOOLS`, then
`[{"role": "system", "content": self.system_prompt}]` in the same method. There the attribute
holds what the method's own statements gave it, as a local name would (scopes.py binds it under
the key `"self.ATTR"`, `own_key`), not the class-wide reading of every method's writes (for which a
`+=` makes a list its methods grow: objects.py). Read from the syntax tree alone, once per function
node (cached on it)."""
from __future__ import annotations

import ast

from ...syntax_walk import nodes_under
from .class_facts import walk_statements

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: Methods of a list, dict or set that change it in place: an attribute changed so is no text rebuilt.
_MUTATORS = frozenset({"append", "extend", "insert", "update", "pop", "popitem", "remove", "clear", "setdefault",
                       "add", "discard", "sort", "reverse", "__setitem__", "__delitem__"})


def own_key(attr: str) -> str:
    """The key of `self.attr` among a body's bindings (no name of the code holds a dot)."""
    return "self." + attr


def _is_self(node) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _number(node) -> bool:
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def own_attrs(func) -> frozenset[str]:
    """The ATTRs that `func` (a method) assigns (`self.ATTR = value`, one target) and then adds to
    with `self.ATTR += value` (not a number: a counter is no text), and changes in no other way
    (no `self.ATTR.append(...)`, `self.ATTR[k] = v`, `del self.ATTR[k]`, other augmented
    operators): text the method builds in place. Empty for a function that is no method, or
    None. Nested functions and classes are not read."""
    if func is None or not isinstance(func, _FUNCS):
        return frozenset()
    cached = getattr(func, "_promptlint_own_attrs", None)
    if cached is not None:
        return cached
    assigned, added, other = set(), set(), set()
    for node in nodes_under(func):  # `self.ATTR.append(x)` anywhere (in a nested function too): changed in place
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS \
                and _is_self(node.func.value):
            other.add(node.func.value.attr)
    for stmt in walk_statements(func.body):
        if isinstance(stmt, ast.Assign):
            for t in stmt.targets:
                if _is_self(t):
                    (assigned if len(stmt.targets) == 1 else other).add(t.attr)
                elif isinstance(t, ast.Subscript) and _is_self(t.value):
                    other.add(t.value.attr)
                elif isinstance(t, (ast.Tuple, ast.List)):
                    other.update(e.attr for e in t.elts if _is_self(e))
        elif isinstance(stmt, ast.AnnAssign) and _is_self(stmt.target) and stmt.value is not None:
            assigned.add(stmt.target.attr)
        elif isinstance(stmt, ast.AugAssign):
            if _is_self(stmt.target) and isinstance(stmt.op, ast.Add) and not _number(stmt.value):
                added.add(stmt.target.attr)
            elif _is_self(stmt.target):
                other.add(stmt.target.attr)
            elif isinstance(stmt.target, ast.Subscript) and _is_self(stmt.target.value):
                other.add(stmt.target.value.attr)
        elif isinstance(stmt, ast.Delete):
            for t in stmt.targets:
                base = t.value if isinstance(t, ast.Subscript) else t
                if _is_self(base):
                    other.add(base.attr)
    found = frozenset((assigned & added) - other)
    func._promptlint_own_attrs = found
    return found


def method_writers(cls: ast.ClassDef | None, attr: str) -> frozenset[str]:
    """The names of the methods of `cls` (its own body) that write `self.attr` in any way (assign,
    augment, change in place): a call of one of them may change what the attribute holds."""
    if cls is None:
        return frozenset()
    index = getattr(cls, "_promptlint_attr_writers", None)
    if index is None:
        index = {}
        for stmt in cls.body:
            if not isinstance(stmt, _FUNCS):
                continue
            for node in walk_statements(stmt.body):
                for sub in ast.walk(node):
                    target = None
                    if isinstance(sub, (ast.Assign, ast.Delete)):
                        for t in sub.targets:
                            for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t]):
                                base = e.value if isinstance(e, ast.Subscript) else e
                                if _is_self(base):
                                    index.setdefault(base.attr, set()).add(stmt.name)
                    elif isinstance(sub, (ast.AugAssign, ast.AnnAssign)):
                        target = sub.target.value if isinstance(sub.target, ast.Subscript) else sub.target
                    elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) \
                            and sub.func.attr in _MUTATORS:
                        target = sub.func.value
                    if _is_self(target):
                        index.setdefault(target.attr, set()).add(stmt.name)
        index = {k: frozenset(v) for k, v in index.items()}
        cls._promptlint_attr_writers = index
    return index.get(attr, frozenset())


def calls_writer(stmt, cls: ast.ClassDef | None, func, attr: str) -> bool:
    """True when statement `stmt` calls a method of the instance (`self.add_tools(...)`), other than
    `func` itself, that writes `self.attr` (`method_writers`): after it the attribute may hold
    something else."""
    writers = method_writers(cls, attr) - {getattr(func, "name", None)}
    if not writers:
        return False
    for node in ast.walk(stmt):
        if isinstance(node, ast.Call) and _is_self(node.func) and node.func.attr in writers:
            return True
    return False
