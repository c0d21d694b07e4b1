"""Whether the data given to `json.dumps` is known to have string keys in every dict, nested ones
too: only then can `sort_keys=True` not raise (json sorts each dict's keys before writing them,
and `{1: "a", "b": 2}` raises TypeError: `'<' not supported between 'str' and 'int'`).

Facts read from the code, never guessed: a dict display whose keys are string literals and whose
values are known too, a list or tuple of such values, a literal, an f-string, data parsed from
JSON text (`json.loads(...)`, `response.json()`: JSON object keys are strings), a parameter not
rebound whose annotation says so (`dict[str, str]`, `list[dict[str, int]]`, `Optional[...]`), a
local bound once to such a value, an item of one (`parsed["result"]`).
`Dict[str, Any]`, a bare `dict`, an attribute, a call's result: unknown, so False.
"""
from __future__ import annotations

import ast

_SCALARS = frozenset({"str", "int", "float", "bool", "None", "NoneType"})
_DICTS = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "defaultdict"})
_SEQUENCES = frozenset({"list", "List", "Sequence", "MutableSequence", "tuple", "Tuple", "Iterable"})
_OPTIONAL = frozenset({"Optional", "Union"})
_JSON_MODULES = frozenset({"json", "simplejson", "orjson", "ujson"})  # their loads: JSON keys are strings
_DEPTH = 8


def string_keyed(ev, node: ast.AST | None, frame, depth: int = 0) -> bool:
    """True when every dict the value of `node` holds (itself included, at any depth) is known to
    have only string keys; a scalar (no dict at all) is True. `ev.env_at(frame, node)` gives the
    bindings a name is looked up in (a parameter's annotation)."""
    if node is None or depth > _DEPTH:
        return False
    if isinstance(node, (ast.Constant, ast.JoinedStr)):
        return True
    if isinstance(node, ast.Dict):
        return all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys) \
            and all(string_keyed(ev, v, frame, depth + 1) for v in node.values)
    if isinstance(node, (ast.List, ast.Tuple)):
        return all(string_keyed(ev, e, frame, depth + 1) for e in node.elts)
    if isinstance(node, ast.Call):
        func = node.func
        if node.keywords or not isinstance(func, ast.Attribute):  # no object_hook / object_pairs_hook
            return False
        return func.attr == "json" or func.attr == "loads" and _name(func.value) in _JSON_MODULES
    if isinstance(node, ast.Subscript):  # an item of such data (`parsed["result"]`) is such data
        return string_keyed(ev, node.value, frame, depth + 1)
    if isinstance(node, ast.Name) and frame.func is not None:
        bound = ev.env_at(frame, node).get(node.id)
        if bound is None or bound.node is None:
            return False
        if bound.kind == "expr":  # a local bound once (`profile = httpx.get(url).json()`)
            return string_keyed(ev, bound.node, frame, depth + 1)
        return bound.kind == "param" and string_keyed_annotation(bound.node.annotation)
    return False


def string_keyed_annotation(ann: ast.AST | None, depth: int = 0) -> bool:
    """True when the annotation `ann` says every dict in the value has string keys: a scalar
    (`str`, `int`, `None`), `dict[str, X]` / `Mapping[str, X]`, `list[X]`, `tuple[X, ...]`,
    `Optional[X]`, `X | None`, with each X such a type. `Any`, `object`, a bare `dict`, a class
    (whose instance json cannot write anyway): False."""
    if ann is None or depth > _DEPTH:
        return False
    if isinstance(ann, ast.Constant):
        return ann.value is None or ann.value is Ellipsis or (
            isinstance(ann.value, str) and _parsed_annotation(ann.value, depth))
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        return string_keyed_annotation(ann.left, depth + 1) and string_keyed_annotation(ann.right, depth + 1)
    if isinstance(ann, (ast.Name, ast.Attribute)):
        return _name(ann) in _SCALARS
    if not isinstance(ann, ast.Subscript):
        return False
    head = _name(ann.value)
    inner = list(ann.slice.elts) if isinstance(ann.slice, ast.Tuple) else [ann.slice]
    if head in _DICTS:
        return len(inner) == 2 and _name(inner[0]) == "str" and string_keyed_annotation(inner[1], depth + 1)
    if head in _SEQUENCES or head in _OPTIONAL:
        return all(string_keyed_annotation(e, depth + 1) for e in inner)
    return False


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _parsed_annotation(text: str, depth: int) -> bool:
    """A string annotation (`"dict[str, str]"`), parsed."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return False
    return string_keyed_annotation(tree.body, depth + 1)
