"""Facts of class bodies, read from the syntax tree once per class node (kept on it): the
`self.ATTR` assignments, annotations and growth of a class's methods, the members a class body
defines, and the annotation of a list of messages. No evaluation: the evaluator's objects
(`objects.py`) read them."""
from __future__ import annotations

import ast
from collections import deque

from .configured import same_attribute as _same_attribute

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def walk_statements(body):
    """The statements of a block, recursively, without entering nested defs and classes (breadth
    first: a block's statements, then those nested in them)."""
    stack = deque(body)
    while stack:
        stmt = stack.popleft()
        if isinstance(stmt, (*_FUNCS, ast.ClassDef)):
            continue
        yield stmt
        for attr in ("body", "orelse", "finalbody"):
            sub = getattr(stmt, attr, None)
            if isinstance(sub, list):
                stack.extend(sub)
        for handler in getattr(stmt, "handlers", ()):
            stack.extend(handler.body)
        for case in getattr(stmt, "cases", ()):
            stack.extend(case.body)


def _class_index(cls: ast.ClassDef) -> tuple[dict, set]:
    """The `self.ATTR` writes of a class's methods, read once per class (a syntactic fact of the
    tree, cached on the class node): ATTR -> [(method, value node)] of its assignments in method
    and statement order (`self_assigns`), and the ATTRs a method appends to, extends or `+=`
    with something other than a number (`grown`), the ATTRs it steps as counters (`self.turn += 1`,
    `-=`, `*=`: `stepped`), and the annotations of `self.ATTR: T = ...` (`self_annotation`)."""
    cached = getattr(cls, "_promptlint_self_index", None)
    if cached is not None:
        return cached
    assigns: dict[str, list] = {}
    grows: set[str] = set()
    steps: set[str] = set()
    annotations: dict[str, ast.AST] = {}
    for stmt in cls.body:
        if not isinstance(stmt, _FUNCS):
            continue
        for node in walk_statements(stmt.body):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if _is_self(t) and not _same_attribute(t.attr, node.value):
                        entries = assigns.setdefault(t.attr, [])
                        if not entries or entries[-1][0] is not stmt or entries[-1][1] is not node.value:
                            entries.append((stmt, node.value))
            elif isinstance(node, ast.AnnAssign):
                if _is_self(node.target):
                    annotations.setdefault(node.target.attr, node.annotation)
                if node.value is not None and _is_self(node.target):
                    assigns.setdefault(node.target.attr, []).append((stmt, node.value))
            elif isinstance(node, ast.AugAssign):
                if _is_self(node.target) and isinstance(node.op, ast.Add) and not _number(node.value):
                    grows.add(node.target.attr)
                elif _is_self(node.target):
                    steps.add(node.target.attr)  # `self.iteration += 1`: a counter, no list
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute) \
                    and node.value.func.attr in ("append", "extend", "insert") and _is_self(node.value.func.value):
                grows.add(node.value.func.value.attr)
    cls._promptlint_self_index = (assigns, grows, annotations, steps)
    return cls._promptlint_self_index


def _number(node) -> bool:
    """True for a number literal (`1`, `0.5`, `-1`): what a counter is stepped by."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _is_self(target) -> bool:
    return isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"


def self_assigns(cls: ast.ClassDef, attr: str) -> list:
    """(method, value node) of every `self.attr = value` in the class's methods."""
    return _class_index(cls)[0].get(attr, [])


def self_annotation(cls: ast.ClassDef, attr: str) -> ast.AST | None:
    """The annotation of the first `self.attr: T = ...` in the class's methods, or None."""
    return _class_index(cls)[2].get(attr)


def stepped(cls: ast.ClassDef, attr: str) -> bool:
    """True when a method changes `self.attr` by an augmented assignment that grows no list: a
    counter stepped by a number (`self.iteration += 1`), `-=`, `*=`..."""
    return attr in _class_index(cls)[3]


def grown(cls: ast.ClassDef, attr: str) -> bool:
    """True when a method appends to, extends or `+=` the list `self.attr`."""
    return attr in _class_index(cls)[1]


def changed_by_methods(cls: ast.ClassDef, attr: str) -> bool:
    """True when a method of `cls` sets `self.attr` again, grows it as a list or steps it as a
    counter (`self_assigns`, `grown`, `stepped`): the attribute does not keep what the instance
    was built with."""
    return bool(self_assigns(cls, attr)) or grown(cls, attr) or stepped(cls, attr)


_LISTS = ("list", "List", "Sequence", "Iterable", "MutableSequence")


def unannotated(ann):
    """The type an `Annotated[T, ...]` annotation (`typing` or `typing_extensions`) gives: `T`
    (`Annotated[Calendar, Depends("calendar")]` -> `Calendar`: what follows it is metadata for a
    framework, not the type); any other annotation (None too) as it is."""
    if isinstance(ann, ast.Subscript) and (isinstance(ann.value, ast.Name) and ann.value.id == "Annotated"
                                           or isinstance(ann.value, ast.Attribute) and ann.value.attr == "Annotated"):
        inner = ann.slice
        return inner.elts[0] if isinstance(inner, ast.Tuple) and inner.elts else inner
    return ann


def message_list(ann) -> bool:
    """True for the annotation of a list of messages (`list[Message]`, `List["ChatMessage"]`,
    `Sequence[BaseMessage]`): a class whose name ends in Message, in a list."""
    if not (isinstance(ann, ast.Subscript) and isinstance(ann.value, (ast.Name, ast.Attribute))):
        return False
    outer = ann.value.id if isinstance(ann.value, ast.Name) else ann.value.attr
    inner = ann.slice
    if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
        name = inner.value.rsplit(".", 1)[-1]
    elif isinstance(inner, (ast.Name, ast.Attribute)):
        name = inner.id if isinstance(inner, ast.Name) else inner.attr
    else:
        return False
    return outer in _LISTS and name.endswith("Message")


def members_named(c: ast.ClassDef, attr: str) -> list[ast.stmt]:
    """The statements of the body of class `c` that may define `attr`, in order: a method of that
    name, an assignment to it (`attr = ...`, `a = attr = ...`), an annotation of it (`attr: T`),
    the only ones `_class_member` reads. From an index of the body made once per class node
    (kept on it): a member looked up by walking the whole body each time cost 1.5 of 164 profiled
    seconds on the corpus (23,000 lookups)."""
    index = getattr(c, "_promptlint_members", None)
    if index is None:
        index = {}
        for stmt in c.body:
            if isinstance(stmt, _FUNCS):
                names = [stmt.name]
            elif isinstance(stmt, ast.Assign):
                names = [t.id for t in stmt.targets if isinstance(t, ast.Name)]
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                names = [stmt.target.id]
            else:
                continue
            for name in dict.fromkeys(names):
                index.setdefault(name, []).append(stmt)
        c._promptlint_members = index
    return index.get(attr, ())


def attrs_factory(module, node) -> tuple[ast.AST | None, bool]:
    """(the factory, whether it takes the instance) of an attrs field's default: `Factory(f,
    takes_self=True)`, `field(default=Factory(f))`, `field(factory=f)` / `attr.ib(factory=f)`;
    (None, False) for any other value."""
    if not isinstance(node, ast.Call):
        return None, False
    short = (module.qualified_name(node.func) or "").rsplit(".", 1)[-1]
    kw = {k.arg: k.value for k in node.keywords if k.arg is not None}
    if short == "Factory":
        made = node.args[0] if node.args else kw.get("factory")
        takes = kw.get("takes_self")
        if takes is None and len(node.args) > 1:
            takes = node.args[1]
        return made, isinstance(takes, ast.Constant) and takes.value is True
    if short in ("field", "ib", "attrib"):
        if "factory" in kw:
            return kw["factory"], False
        if "default" in kw:
            return attrs_factory(module, kw["default"])
    return None, False
