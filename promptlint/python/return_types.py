"""What a function's return annotation says its value can be, for the prompt candidates of its
`return` statements (candidates.returned): read once per function from the annotation, before
(and instead of) the value.

A returned value becomes a layout only as prompt text, as a list holding messages (a dict with a
"role" key, a message object: a class constructed with `role=` or named `...Message`) or, from a
function named for the system prompt, as one system message (a dict or an object with a role).
A function annotated to return none of those (`-> int`, `-> bool`, `-> bytes`, `-> ModelResponse`,
`-> list[ModelRequestPart]`, `-> dict[str, Any]` where no system message is looked for) returns
no prompt, whatever its body computes: reading its value (the calls it makes, the arguments its
callers pass) is work spent on no layout. On the benchmark corpus the functions named for prompts
whose return became no layout spent 362,000 of the run's 1.12 million evaluations.

A type alias assigned at the top level (`ModelMessage = Annotated[ModelRequest | ModelResponse,
...]`) allows what its value allows (`-> list[ModelMessage]`: a list of plain objects); an alias
named `...Message` that can be called builds objects named so, which may be messages.

An annotation says nothing when it names text or any type (`str`, `Any`, no annotation), a type
this module cannot see whole (a name imported from a module the analysis has not read, an alias
whose value is not a type expression, a class with a base outside the tree that may be `str` or
`list`), or a list of items that may be messages (dicts, objects of a class named `...Message` or
with a `role` field).
"""
from __future__ import annotations

import ast

from .module import attribute_chain

#: Kinds of value an annotation allows: "text", "map" (a dict), "obj" (an instance of a plain
#: class), "msg" (an object that may be a message), "scalar" (a number, a bool, bytes, None),
#: "any"; a list is ("list", kinds of its items).
_SCALARS = {"int", "float", "bool", "bytes", "bytearray", "complex", "None", "NoneType", "NoReturn", "Never"}
_TEXT = {"str", "LiteralString", "Literal"}
_MAPS = {"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "defaultdict"}
_LISTS = {"list", "List", "Sequence", "MutableSequence", "tuple", "Tuple", "set", "Set", "frozenset", "FrozenSet",
          "Iterable", "Iterator", "Collection", "deque", "Deque"}
_UNIONS = {"Optional", "Union"}
#: Bases outside the tree that make a class no text, no list and no dict.
_PLAIN_BASES = {"object", "BaseModel", "ABC", "Generic", "Protocol", "Exception", "BaseException"}
_DEPTH = 8  # nested annotations, aliases and bases read (an alias or a class may name itself)


def never_prompt(finder, func, named: bool, role: str) -> bool:
    """True when `func`'s return annotation proves none of its returns is a prompt candidate:
    for a function `named` for prompts, no text, no list that may hold messages and (for the
    `role` "system") no dict or object that may be a system message; for one not so named (only
    a message list counts there), no list that may hold messages. Cached per function."""
    if func.returns is None:
        return False
    cache = finder.__dict__.setdefault("_never_prompt", {})
    key = (id(func), named, role)
    found = cache.get(key)
    if found is None:
        found = cache[key] = not _may_be_prompt(_kinds(finder, finder.m, func.returns, 0), named, role == "system")
    return found


def never_tools(finder, func) -> bool:
    """True when `func`'s return annotation allows only text and scalars (`-> bool`, `-> str | None`):
    no tools list or registry, so its returns are not read in case they are one (candidates.returned).
    Cached per function."""
    if func.returns is None:
        return False
    cache = finder.__dict__.setdefault("_never_tools", {})
    found = cache.get(id(func))
    if found is None:
        found = cache[id(func)] = _kinds(finder, finder.m, func.returns, 0) <= {"scalar", "text"}
    return found


def _may_be_prompt(kinds: set, named: bool, system: bool) -> bool:
    for kind in kinds:
        if kind == "any" or kind == "text" and named or kind in ("map", "obj", "msg") and named and system:
            return True
        if isinstance(kind, tuple) and kind[1] & {"any", "map", "msg"}:
            return True  # a list of items that may be messages
        if isinstance(kind, tuple) and any(isinstance(k, tuple) and _may_be_prompt({k}, named, system) for k in kind[1]):
            return True  # (a tuple returned with a message list among its items)
    return False


def _kinds(finder, module, ann, depth: int) -> set:
    """The kinds of value annotation `ann`, written in `module`, allows (see the module's table)."""
    if depth > _DEPTH:
        return {"any"}
    if isinstance(ann, ast.Constant) and ann.value is None:
        return {"scalar"}
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        return _kinds(finder, module, ann.left, depth + 1) | _kinds(finder, module, ann.right, depth + 1)
    if isinstance(ann, ast.Subscript):
        base = _last(ann.value)
        args = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        if base in _UNIONS:
            kinds = {k for a in args for k in _kinds(finder, module, a, depth + 1)}
            return kinds | {"scalar"} if base == "Optional" else kinds
        if base == "Annotated":
            return _kinds(finder, module, args[0], depth + 1)
        if base in _LISTS:
            items = frozenset(k for a in args if not (isinstance(a, ast.Constant) and a.value is Ellipsis)
                              for k in _kinds(finder, module, a, depth + 1))
            return {("list", items)}
        if base in _MAPS:
            return {"map"}
        return {"text"} if base in _TEXT else {"any"}
    if not isinstance(ann, (ast.Name, ast.Attribute)):
        return {"any"}
    name = _last(ann)
    if name in _SCALARS:
        return {"scalar"}
    if name in _TEXT:
        return {"text"}
    if name in _MAPS:
        return {"map"}
    if name in _LISTS:
        return {("list", frozenset({"any"}))}
    found = _class(finder, module, ann)
    if found is None:
        return _alias(finder, module, ann, depth + 1)
    if not _plain(finder, *found, depth + 1):
        return {"any"}
    module, cls = found
    fields = {t.id for n in cls.body if isinstance(n, (ast.AnnAssign, ast.Assign))
              for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
    return {"msg"} if cls.name.endswith("Message") or "role" in fields else {"obj"}


def _alias(finder, module, node, depth: int) -> set:
    """The kinds of a type alias assigned at the top level of `module` or of a module it imports
    the name from that the analysis already reads (`ModelMessage = Annotated[ModelRequest |
    ModelResponse, Discriminator("kind")]`, `Messages: TypeAlias = list[Message]`): those of the
    value of each of its assignments; {"any"} for a name that is no such alias. An alias named
    `...Message` that can be called (`Message = Annotated[ChatMessage, ...]`: it builds its class)
    makes objects the evaluator takes for messages by that name: "msg" too. A union cannot be
    called: its name builds nothing."""
    found = _assigned(finder, module, node)
    if found is None:
        return {"any"}
    module, name, values = found
    kinds: set = set()
    for value in values:
        kinds |= _kinds(finder, module, value, depth)
        if name.endswith("Message") and _callable_type(value):
            kinds.add("msg")
    return kinds


def _callable_type(node) -> bool:
    """False for a type expression that cannot be called (a union: `A | B`, `Union[...]`,
    `Optional[...]`, or one of them `Annotated`), True for any other."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return False
    if isinstance(node, ast.Subscript):
        base = _last(node.value)
        if base in _UNIONS:
            return False
        if base == "Annotated":
            first = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) and node.slice.elts else node.slice
            return _callable_type(first)
    return True


def _assigned(finder, module, node, hops: int = 0):
    """(module, name, value nodes) of the top-level assignments of a name in `module` (none of its
    functions or classes), or in the module of the tree it is imported from when the analysis
    already reads that module; None when there are none."""
    if isinstance(node, ast.Name) and node.id in module.assigns:
        if node.id in module.imports or node.id in module.functions or node.id in module.classes:
            return None  # (bound more than one way: not known which)
        return module, node.id, module.assigns[node.id]
    found = _imported(finder, module, node, hops)
    return _assigned(finder, found[0], ast.Name(id=found[1]), hops + 1) if found is not None else None


def _imported(finder, module, node, hops: int):
    """(module, name) a name or dotted name of `module` is imported as, when the analysis already
    reads that module (`Project.used`: nothing is loaded for this) and at most 2 hops were taken,
    else None."""
    qual = module.qualified_name(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
    if not qual or "." not in qual or hops > 2:
        return None
    head, _, name = qual.rpartition(".")
    other = finder.ev.project.used(head)
    return (other, name) if other is not None else None


def _last(node) -> str:
    chain = attribute_chain(node)
    return chain[-1] if chain else ""


def _class(finder, module, node, hops: int = 0):
    """(module, ClassDef) of a class name in `module`: its own class, or one imported from a
    module the analysis already reads (`Project.used`: nothing is loaded for this), else None."""
    if isinstance(node, ast.Name) and node.id in module.classes:
        return module, module.classes[node.id]
    found = _imported(finder, module, node, hops)
    if found is None:
        return None
    other, name = found
    if name in other.classes:
        return other, other.classes[name]
    if name in other.imports:  # re-exported (`from .messages import ModelResponse` in a package)
        return _class(finder, other, ast.Name(id=name), hops + 1)
    return None


def _plain(finder, module, cls: ast.ClassDef, depth: int) -> bool:
    """True when instances of `cls` are no text, no list and no dict: each base is a plain
    class of the tree or one of `_PLAIN_BASES`."""
    if depth > _DEPTH:
        return False
    for base in cls.bases:
        node = base.value if isinstance(base, ast.Subscript) else base
        if _last(node) in _PLAIN_BASES and not isinstance(base, ast.Subscript) or _last(node) in ("Generic", "Protocol"):
            continue
        found = _class(finder, module, node)
        if found is None or not _plain(finder, *found, depth + 1):
            return False
    return True
