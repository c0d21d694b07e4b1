"""Prompt-builder classes, read from their syntax alone: a class whose methods add sections to a
container attribute of the instance and one of whose methods joins them into the text a request
carries (docs/policies.md, Policy 9: a prompt is wherever prompt text is built).

    class PromptBuilder:
        def __init__(self):
            self.sections = {}                          # the container: [], {}, StringIO(), ""
        def add_section(self, name, template, props={}):
            self.sections[name] = Section(template, props)   # an adder: an add statement
            return self
        def add_customer(self, customer):
            self.add_section("customer", "The user is {name}.", {"name": customer.name})  # an adder too
        def build(self):                                # the renderer: a loop over the container
            buf = StringIO()
            for name, s in self.sections.items():
                buf.write(s.template.format(**s.props))
                buf.write("\\n\\n")
            return buf.getvalue().strip()

A class that sorts a container before joining it (`"\\n".join(sorted(self.parts))`) is none: the
order of the calls is not the order of its text. Facts (`builder_of(cls)`, cached on the class node): the container attributes (`Builder.kinds`:
attribute -> "list" | "dict" | "buffer" | "text", as `__init__` makes it empty), the adders
(method name -> its add operations, in statement order) and the loop renderers (method name ->
`Render`: the loop over a container and what each pass writes, for the shapes the evaluator
does not read by itself: a buffer or list written in a loop). An add operation is a tuple:

- `("add", attr, node)`: `self.X.append(E)`, `self.X.write(E)`, `self.X += E` (`node` is E);
- `("extend", attr, node)`: `self.X.extend(E)` (the items of E);
- `("front", attr, node)`: `self.X.insert(0, E)`;
- `("set", attr, node, key)`: `self.X[K] = E` of a dict (`key` the node K);
- `("call", name, call)`: `self.name(...)`, another adder of the class;
- `("if", test, body_ops, else_ops)`: operations under a condition.

A method that adds in a loop, or adds to a container in any other way, is no adder: its effect
is not modelled (the instance is then as the evaluator reads it without these facts).
"""
from __future__ import annotations

import ast
from typing import NamedTuple

from ..walk import subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_EMPTY_CALLS = {"list": "list", "dict": "dict", "OrderedDict": "dict", "StringIO": "buffer"}
_ATTR = "_promptlint_builder"
#: Methods of lists, dicts, sets and text: a call of one is no section added, unless the name
#: is bound to an instance the code built (`b = PromptBuilder()`, then `b.add(text)`).
_CONTAINER_METHODS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update",
                                "setdefault", "add", "discard", "copy", "get", "keys", "values", "items", "write",
                                "join", "format", "strip", "split", "replace", "encode", "close", "flush"})


class Render(NamedTuple):
    """A loop renderer: `attr` the container it loops over, `view` "items" | "values" | "keys" |
    "" (the container itself), `target` the loop's target node, `writes` the expressions each
    pass writes, in order (`buf.write(E)`, `out.append(E)`, `out += E`), `sep` the node of the
    separator a join of the written list puts between passes (None: written one after the other)."""
    attr: str
    view: str
    target: ast.AST
    writes: tuple
    sep: ast.AST | None


class Builder(NamedTuple):
    """`kinds` container attribute -> kind; `adders` method name -> its add operations;
    `renders` method name -> Render; `init` the add operations of `__init__` (what a new
    instance holds)."""
    kinds: dict
    adders: dict
    renders: dict
    init: tuple = ()


def _self_attr(node) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


def _empty_kind(node) -> str | None:
    """The kind of an empty container a value node makes, or None."""
    if isinstance(node, ast.List) and not node.elts:
        return "list"
    if isinstance(node, ast.Dict) and not node.keys:
        return "dict"
    if isinstance(node, ast.Constant) and node.value == "":
        return "text"
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        return _EMPTY_CALLS.get(name)
    return None


def _containers(cls: ast.ClassDef) -> dict:
    """attribute -> kind, of the containers `__init__` makes empty (`self.parts = []`), or a list
    display (`self.messages = [{"role": "system", "content": text}]`)."""
    init = next((s for s in cls.body if isinstance(s, _FUNCS) and s.name == "__init__"), None)
    out: dict = {}
    for node in subtree(init) if init is not None else ():
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            kind = "list" if isinstance(node.value, ast.List) else _empty_kind(node.value)
            if len(targets) == 1 and _self_attr(targets[0]) and kind is not None:
                out.setdefault(_self_attr(targets[0]), kind)
    return out


def _op(stmt, kinds: dict, methods: set, init: bool = False):
    """The add operation of one statement (module docstring), False for a statement that changes
    a container otherwise (the method is then no adder), None for any other statement."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        f = call.func
        if isinstance(f, ast.Attribute) and (attr := _self_attr(f.value)) in kinds:
            kind = kinds[attr]
            if f.attr in ("append", "write") and len(call.args) == 1 and kind in ("list", "buffer"):
                return ("add", attr, call.args[0])
            if f.attr == "extend" and len(call.args) == 1 and kind == "list":
                return ("extend", attr, call.args[0])
            if f.attr == "insert" and len(call.args) == 2 and isinstance(call.args[0], ast.Constant) \
                    and call.args[0].value == 0 and kind == "list":
                return ("front", attr, call.args[1])
            return False
        if isinstance(f, ast.Attribute) and _self_attr(f) in methods:
            return ("call", f.attr, call)
        return None
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        t = stmt.targets[0]
        if isinstance(t, ast.Subscript) and (attr := _self_attr(t.value)) in kinds:
            return ("set", attr, stmt.value, t.slice) if kinds[attr] == "dict" else False
        if _self_attr(t) in kinds:
            if init and isinstance(stmt.value, ast.List) and stmt.value.elts and kinds[_self_attr(t)] == "list":
                return ("extend", _self_attr(t), stmt.value)  # `self.messages = [{"role": "system", ...}]`
            return None if init and _empty_kind(stmt.value) is not None else False  # (made in `__init__`; replaced)
    if isinstance(stmt, ast.AugAssign) and (attr := _self_attr(stmt.target)) in kinds:
        if isinstance(stmt.op, ast.Add) and kinds[attr] == "text":
            return ("add", attr, stmt.value)
        if isinstance(stmt.op, ast.Add) and kinds[attr] == "list":
            return ("extend", attr, stmt.value)
        return False
    return None


def _ops(stmts, kinds: dict, methods: set, init: bool = False):
    """The add operations of a block, in order, or None when it changes a container in a way
    not modelled (in a loop, or other than by the operations above)."""
    out = []
    for stmt in stmts:
        if isinstance(stmt, ast.If):
            body, orelse = _ops(stmt.body, kinds, methods, init), _ops(stmt.orelse, kinds, methods, init)
            if body is None or orelse is None:
                return None
            if body or orelse:
                out.append(("if", stmt.test, tuple(body), tuple(orelse)))
            continue
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            inner = _ops(stmt.body, kinds, methods, init)
            if inner is None:
                return None
            out.extend(inner)
            continue
        if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, ast.Try)):
            if any(_op(s, kinds, methods, init) is not None for s in subtree(stmt) if isinstance(s, ast.stmt)):
                return None  # (added in a loop or under a handler: not modelled)
            continue
        found = _op(stmt, kinds, methods, init)
        if found is False:
            return None
        if found is not None:
            out.append(found)
    return out


def _adders(cls: ast.ClassDef, kinds: dict) -> dict:
    """method name -> its add operations, for the methods that add to a container (directly or
    through another adder of the class) and do nothing else to one."""
    methods = {s.name: s for s in cls.body if isinstance(s, _FUNCS) and not s.name.startswith("__")}
    out: dict = {}
    for _ in range(4):  # adders calling adders: a few rounds reach the fixed point
        known = set(out)
        out = {}
        for name, method in methods.items():
            ops = _ops(method.body, kinds, known)
            if ops and _adds(ops):
                out[name] = tuple(ops)
        if set(out) == known:
            break
    return out


def _adds(ops) -> bool:
    """True when the operations add something (not only calls of methods that are not adders)."""
    return any(op[0] != "if" or _adds(op[2]) or _adds(op[3]) for op in ops)


def _loop_of(it) -> tuple | None:
    """(attribute, view) of a loop's iterable `self.X` / `self.X.items()` (`values`, `keys`)."""
    if (attr := _self_attr(it)) is not None:
        return attr, ""
    if isinstance(it, ast.Call) and not it.args and isinstance(it.func, ast.Attribute) \
            and it.func.attr in ("items", "values", "keys") and (attr := _self_attr(it.func.value)) is not None:
        return attr, it.func.attr
    return None


def _written(body, out_name: str) -> list | None:
    """What one pass of a loop body writes to `out_name` (`out.write(E)`, `out.append(E)`, `out
    += E`), in order; a `try` body counts as the body (its handlers only raise). None when the
    body does anything else with it, or branches."""
    found = []
    for stmt in body:
        if isinstance(stmt, ast.Try):
            inner = _written(stmt.body, out_name)
            if inner is None:
                return None
            found.extend(inner)
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute) \
                and isinstance(stmt.value.func.value, ast.Name) and stmt.value.func.value.id == out_name \
                and stmt.value.func.attr in ("write", "append") and len(stmt.value.args) == 1:
            found.append(stmt.value.args[0])
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == out_name \
                and isinstance(stmt.op, ast.Add):
            found.append(stmt.value)
        elif any(isinstance(n, ast.Name) and n.id == out_name for n in subtree(stmt)):
            return None
    return found


def _renders(cls: ast.ClassDef, kinds: dict) -> dict:
    """method name -> Render, for the methods that loop over a container writing each pass to a
    local buffer, list or text, and return that (`buf.getvalue()`, `sep.join(out)`, `out`)."""
    out: dict = {}
    for method in cls.body:
        if not isinstance(method, _FUNCS) or method.name == "__init__":
            continue
        loops = [s for s in method.body if isinstance(s, (ast.For, ast.AsyncFor)) and _loop_of(s.iter)
                 and _loop_of(s.iter)[0] in kinds]
        if len(loops) != 1:
            continue
        loop = loops[0]
        at = method.body.index(loop)
        made = [s for s in method.body[:at] if isinstance(s, ast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], ast.Name) and _empty_kind(s.value) is not None]
        for made_stmt in made:
            name = made_stmt.targets[0].id
            writes = _written(loop.body, name)
            if not writes:
                continue
            sep = _returned_join(method.body[at + 1:], name)
            if sep is False:
                continue
            attr, view = _loop_of(loop.iter)
            out[method.name] = Render(attr, view, loop.target, tuple(writes), sep)
            break
    return out


def _returned_join(rest, name: str):
    """How the statements after the loop return what it wrote to `name`: the separator node of
    `return sep.join(name)`, None for `return name` / `name.getvalue()` (possibly stripped, or
    bound to a name that is returned, with statements between that do not return), False for
    anything else."""
    names = {name}
    for stmt in rest:
        value = stmt.value if isinstance(stmt, (ast.Return, ast.Assign)) else None
        while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                and value.func.attr in ("strip", "rstrip", "lstrip") :
            value = value.func.value
        found = None
        if isinstance(value, ast.Name) and value.id in names:
            found = (None,)
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and not value.args \
                and value.func.attr == "getvalue" and isinstance(value.func.value, ast.Name) \
                and value.func.value.id in names:
            found = (None,)
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "join" \
                and len(value.args) == 1 and isinstance(value.args[0], ast.Name) and value.args[0].id in names:
            found = (value.func.value,)
        if isinstance(stmt, ast.Return):
            return found[0] if found is not None else False
        if found is not None and isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
            names = {stmt.targets[0].id}  # `prompt = buffer.getvalue().strip()`, then `return prompt`
    return False


def _sorted_reads(cls: ast.ClassDef, kinds: dict) -> bool:
    """True when a method sorts a container (`sorted(self.parts)`, `self.parts.sort()`): its
    sections are then joined in their sorted order, not in the order they were added."""
    for node in subtree(cls):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "sorted" and node.args \
                and any(_self_attr(n) in kinds for n in subtree(node.args[0])):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "sort" \
                and _self_attr(node.func.value) in kinds:
            return True
    return False


def builder_of(cls: ast.ClassDef) -> Builder | None:
    """The builder facts of a class (module docstring), or None when it has no adder."""
    known = getattr(cls, _ATTR, 0)
    if known != 0:
        return known
    kinds = _containers(cls)
    found = None
    if kinds and not _sorted_reads(cls, kinds):
        adders = _adders(cls, kinds)
        if adders:
            init = next((s for s in cls.body if isinstance(s, _FUNCS) and s.name == "__init__"), None)
            made = _ops(init.body, kinds, set(adders), True) if init is not None else []
            found = Builder(kinds, adders, _renders(cls, kinds), tuple(made or ()))
    setattr(cls, _ATTR, found)
    return found


def receiver(call: ast.Call, env: dict) -> str | None:
    """The local name a statement's call (or chain of calls) adds to, for the statement reader:
    `b.add_section(...)`, `b.add(x).add(y)`; None when the root is no local name, or the call is
    a container's method on a name not bound to a constructor call (`payload.pop("stream")`)."""
    node = call
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        node = node.func.value
    if not isinstance(node, ast.Name) or node.id not in env or not isinstance(call.func, ast.Attribute):
        return None
    th = env[node.id]
    if _added_to(th):
        return node.id
    if th.kind != "expr" or not isinstance(th.node, ast.Call):
        return None
    if call.func.attr in _CONTAINER_METHODS:
        f = th.node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        return node.id if name[:1].isupper() else None
    return node.id


def _added_to(th, depth: int = 0) -> bool:
    """True for a binding a statement's call added to (`called`), or branches one of which is."""
    if th.kind == "called":
        return True
    return th.kind == "alt" and depth < 8 and any(_added_to(o, depth + 1) for o in th.options)
