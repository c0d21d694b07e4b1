"""A list field declared empty in a class body (`messages: List[ChatMessage] = []` of a pydantic
model, `Field(default_factory=list)`, a dataclass's `field(default_factory=list)`, attrs'
`Factory(list)`) that the class's methods grow (`self.messages.append(m)`): each instance holds
what its methods add, not the empty default, so the evaluator reads it as a list its methods grow
(objects.py), as it reads one that `__init__` sets to `[]`. Read from values and the class's
syntax."""
from __future__ import annotations

import ast

from ..module import callee_name
from .class_facts import grown
from .values import Seq

_FIELDS = frozenset({"Field", "field", "PrivateAttr", "attrib", "ib"})


def grown_field(default, cls: ast.ClassDef, attr: str) -> bool:
    """True when the class-body field `attr` of `cls` defaults to an empty list (`default`, its
    value, an empty list not grown by itself; or written so: `Field(default_factory=list)`) and a
    method of `cls` appends to, extends or `+=` `self.attr`."""
    empty = isinstance(default, Seq) and not default.items and not default.repeated
    return (empty or empty_list_field(cls, attr)) and grown(cls, attr)


def empty_list_field(cls: ast.ClassDef, attr: str) -> bool:
    """True when a statement of the class body gives `attr` an empty list as its default: `[]`,
    `list()`, a field call with `default_factory=list` / `factory=list` / `default=[]`, or
    `Factory(list)`."""
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == attr:
            value = stmt.value
        elif isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == attr for t in stmt.targets):
            value = stmt.value
        else:
            continue
        return value is not None and _empty_list(value)
    return False


def _empty_list(node) -> bool:
    if isinstance(node, ast.List):
        return not node.elts
    if not isinstance(node, ast.Call):
        return False
    name = callee_name(node)
    if name == "list":
        return not node.args and not node.keywords
    if name == "Factory":
        return len(node.args) == 1 and isinstance(node.args[0], ast.Name) and node.args[0].id == "list"
    if name not in _FIELDS:
        return False
    kw = {k.arg: k.value for k in node.keywords if k.arg is not None}
    made = kw.get("default_factory", kw.get("factory"))
    if made is not None:
        return isinstance(made, ast.Name) and made.id == "list" or isinstance(made, ast.Lambda) and _empty_list(made.body)
    return "default" in kw and _empty_list(kw["default"])
