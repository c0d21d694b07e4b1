"""What a set holds, read from its syntax alone: numbers (their order is the same in every
process) or strings (their order depends on the hash seed, and they sort without a key).

A set iterates in the order of its elements' hashes (and of their insertions). `str` and `bytes`
hash with a per-process seed (PYTHONHASHSEED), so a set of strings comes in a different order in
each worker; an `int` or `bool` hashes to its value, a `float` to a value derived from it, and a
tuple of such values to a combination of theirs: a set of only those iterates in the same order in
every process. `None` is left out: before Python 3.12 its hash is its address, which address-space
randomisation changes per process. Anything whose type is not known from the syntax (a name, an
attribute, a call other than the few below) is of unknown type.

`element_type(node)` answers for a set display, a set comprehension and `set(...)` /
`frozenset(...)` calls; `seed_free_set(node)` is its "number" case; `annotated_set(annotation)`
reads a type annotation (`set[str]`, `frozenset[Task]`: a set whose order is not the same in
every process; `set[int]`: one whose order is). Nothing is evaluated; a module
that rebinds the builtins named here (`str`, `len`, `range`...) is not looked for.
"""
from __future__ import annotations

import ast
from typing import Iterable
from ..walk import subtree

NUMBER, STR = "number", "str"
# Builtins whose result is always an int or a bool (or that raise), and always a str.
_NUMBER_CALLS = frozenset({"len", "ord", "int", "bool"})
_STR_CALLS = frozenset({"str", "repr", "ascii", "chr", "format"})
# str methods that return a str (on a receiver known to be a str).
_STR_METHODS = frozenset({"lower", "upper", "strip", "lstrip", "rstrip", "title", "casefold", "capitalize",
                          "replace", "format", "removeprefix", "removesuffix", "zfill", "center", "ljust", "rjust"})


def seed_free_set(node: ast.AST) -> bool:
    """True when the set that `node` builds holds only values whose hash ignores the hash seed:
    a set display (`{1, 2, (3, 4)}`), a set comprehension over `range(...)` or over such a
    display (`{i * 2 for i in range(5)}`), or `set(...)` / `frozenset(...)` of `range(...)`, of
    such a display or of such a comprehension. False for anything else (an empty `set()` too)."""
    return element_type(node) == NUMBER


def element_type(node: ast.AST) -> str | None:
    """"number" (ints, bools, floats, complex, tuples of them), "str", or None (unknown or mixed)
    for the elements of the set that `node` builds: a set display, a set comprehension, or
    `set(...)` / `frozenset(...)` of an iterable whose elements are known (an empty `set()` is
    unknown: what `.add` / `.update` put in it later is not read here). None for any other node."""
    if isinstance(node, ast.Set):
        return _common(_kind(e, {}) for e in node.elts)
    if isinstance(node, ast.SetComp):
        return _comprehension(node)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("set", "frozenset"):
        if node.keywords or len(node.args) > 1:
            return None
        return None if not node.args else _iterable(node.args[0], {})  # `set()`: filled later by `.add`
    return None


def _common(kinds: Iterable[str | None]) -> str | None:
    """The one kind all of `kinds` share, else None (also for no kinds at all)."""
    found = set(kinds)
    return found.pop() if len(found) == 1 else None


def _iterable(node: ast.AST, names: dict[str, str]) -> str | None:
    """The kind of the elements that iterating `node` yields."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
        return NUMBER
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        if any(isinstance(e, ast.Starred) for e in node.elts):
            return None
        return _common(_kind(e, names) for e in node.elts)
    if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
        return _comprehension(node, names)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.keywords \
            and node.func.attr in ("split", "splitlines", "rsplit") and _kind(node.func.value, names) == STR:
        return STR
    return None


def _comprehension(node: ast.ListComp | ast.GeneratorExp | ast.SetComp, outer: dict | None = None) -> str | None:
    """The element kind of a comprehension: its element's kind, where each loop variable has the
    kind of the elements its generator iterates (none when they are not known, or when it is
    unpacked: `len(c.name) for c in cols` is a number whatever `cols` holds)."""
    names = dict(outer or {})
    for comp in node.generators:
        kind = _iterable(comp.iter, names)
        for target in ast.walk(comp.target):
            if isinstance(target, ast.Name):
                names.pop(target.id, None)
        if isinstance(comp.target, ast.Name) and kind is not None:
            names[comp.target.id] = kind
    return _kind(node.elt, names)


def _kind(node: ast.AST, names: dict[str, str]) -> str | None:
    """"number", "str" or None for one expression (`names`: loop variables of known kind)."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, str):
            return STR
        return NUMBER if isinstance(node.value, (bool, int, float, complex)) else None
    if isinstance(node, ast.JoinedStr):
        return STR
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.UnaryOp):
        return NUMBER if _kind(node.operand, names) == NUMBER else None
    if isinstance(node, ast.BinOp):
        left, right = _kind(node.left, names), _kind(node.right, names)
        if left == STR and (isinstance(node.op, ast.Mod) or (isinstance(node.op, ast.Add) and right == STR)):
            return STR
        return NUMBER if left == right == NUMBER else None
    if isinstance(node, (ast.BoolOp, ast.IfExp)):
        values = node.values if isinstance(node, ast.BoolOp) else [node.body, node.orelse]
        return _common(_kind(v, names) for v in values)
    if isinstance(node, ast.Compare):
        return NUMBER if all(_kind(v, names) == NUMBER for v in (node.left, *node.comparators)) else None
    if isinstance(node, ast.Tuple):
        return NUMBER if node.elts and all(_kind(e, names) == NUMBER for e in node.elts) else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        # whatever the argument: an int or a bool (a str), or an exception
        return NUMBER if node.func.id in _NUMBER_CALLS else STR if node.func.id in _STR_CALLS else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        receiver = _kind(node.func.value, names)
        if receiver == STR and (node.func.attr in _STR_METHODS or node.func.attr == "join"):
            return STR
    return None


_SET_TYPES = frozenset({"set", "frozenset", "Set", "FrozenSet", "AbstractSet", "MutableSet"})
_NUMBER_TYPES = frozenset({"int", "float", "bool", "complex"})


def annotated_set(ann: ast.AST | None) -> bool:
    """True when the annotation `ann` says the value is a set whose elements are not known to be
    numbers: `set`, `frozenset`, `Set[...]`, `AbstractSet[...]`, `MutableSet[...]` (bare, from
    `typing` or `collections.abc`, quoted, in `Optional[...]` or `... | None`), with any element
    type but `int`, `float`, `bool`, `complex` and tuples of them (`set[int]` iterates in the same
    order in every process). False for every other annotation and for None."""
    return set_annotation(ann) == STR_OR_OBJECT


STR_OR_OBJECT = "other"


def set_annotation(ann: ast.AST | None) -> str | None:
    """"number" for an annotation of a set of numbers (`set[int]`, `frozenset[tuple[int, int]]`),
    "other" for a set of anything else or of unknown elements (`set[str]`, `set["Task"]`, `set`),
    None when `ann` is not a set annotation (see `annotated_set`)."""
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        try:
            ann = ast.parse(ann.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):  # `set[str] | None`
        sides = [s for s in (ann.left, ann.right) if not (isinstance(s, ast.Constant) and s.value is None)]
        return set_annotation(sides[0]) if len(sides) == 1 else None
    if isinstance(ann, ast.Subscript) and _type_name(ann.value) == "Optional":
        return set_annotation(ann.slice)
    if _type_name(ann.value if isinstance(ann, ast.Subscript) else ann) not in _SET_TYPES:
        return None
    return NUMBER if isinstance(ann, ast.Subscript) and _number_type(ann.slice) else STR_OR_OBJECT


_SCALAR_TYPES = _NUMBER_TYPES | {"str"}
_SEQUENCE_TYPES = frozenset({"list", "List", "Sequence", "MutableSequence", "tuple", "Tuple", "Iterable"})


def keyless_annotation(ann: ast.AST | None) -> bool:
    """True when the annotation says text, a number or a sequence of them (`str`, `list[str]`,
    `tuple[int, ...]`): JSON of such a value has no object keys whose order could change."""
    if _type_name(ann) in _SCALAR_TYPES:
        return True
    if not (isinstance(ann, ast.Subscript) and _type_name(ann.value) in _SEQUENCE_TYPES):
        return False
    inner = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
    return all(_type_name(e) in _SCALAR_TYPES or isinstance(e, ast.Constant) and e.value is Ellipsis for e in inner)


def _type_name(node: ast.AST | None) -> str | None:
    """The last name of a type expression (`typing.AbstractSet` -> "AbstractSet")."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _number_type(node: ast.AST) -> bool:
    """True for `int`, `float`, `bool`, `complex` and tuples of them (`tuple[int, int]`)."""
    if isinstance(node, ast.Subscript) and _type_name(node.value) in ("tuple", "Tuple"):
        inner = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return bool(inner) and all(_number_type(e) or isinstance(e, ast.Constant) and e.value is Ellipsis for e in inner)
    return _type_name(node) in _NUMBER_TYPES


def node_at(tree: ast.AST, span_of, span) -> ast.AST | None:
    """The outermost node of `tree` whose `span_of(node)` equals `span`, or None."""
    for node in subtree(tree):
        if isinstance(node, ast.expr):
            try:
                if span_of(node) == span:
                    return node
            except (ValueError, IndexError):
                continue
    return None
