"""Templates a class holds for a method of its own or of a base class to fill (Policy 9: a prompt
is wherever prompt text is built): the text of a class attribute (`instruction = '''...{question}...'''`)
or of a constructor default (`def __init__(self, instruction=None): instruction = instruction or
'''...'''`, handed to `super().__init__(instruction=instruction)`) that reaches `self.NAME`, where a
method of the class or of a base of the tree fills it (`self.instruction.format(**data)`). Each
such text is a prompt candidate where it is written, its `{placeholders}` template variables at
their places: the fill's values (a mapping of keys not known) are not read.

What makes it prompt text: the name it is kept under or handed as says prompt (`instruction`,
`system_prompt`), or the filled text is kept under such a name (`prompt_obj.prompt =
self.template.format(**values)`). A class attribute named for prompts is already a prompt constant
(candidates.constant); this reads the others, and the constructor's defaults.
"""
from __future__ import annotations

import ast

from .prompt_names import prompt_named, role_of
from .text_shapes import is_template
from .walk import subtree

_FILLS = ("format", "format_map")
_MAX_HOPS = 4  # constructors a value is handed through (`super().__init__(instruction=...)`) before it is kept


def templates(finder, cls: ast.ClassDef) -> None:
    """The candidates of the templates `cls` holds for a fill of its class or bases (module docstring)."""
    from .candidates import text_layout
    from .dollar_templates import template_text
    held = list(_held(cls))
    if not held:
        return
    mro = list(finder.ev.mro(finder.m, cls))
    for literal, name, attrs in held:
        for attr in sorted(attrs(mro)):
            fill = _filled(mro, attr)
            if fill is None:
                continue
            target = fill if fill is not True else None
            if not (prompt_named(attr) or prompt_named(name) or target is not None and prompt_named(target)):
                continue
            frame = finder.ev.module_frame(finder.m)
            value = template_text(finder, finder.ev.eval(literal, frame), frame, attr)
            role = role_of(target) if target is not None else role_of(attr)
            text_layout(finder, literal, finder.ev.text_of(value, frame), finder.m.span(literal), role)
            break


def _held(cls: ast.ClassDef):
    """(literal, name, attributes) for each template literal `cls` holds: a class attribute's
    value, or a default of a parameter of its `__init__` (in the signature, or given in the body:
    `p = p or LIT`, `if p is None: p = LIT`); `attributes(mro)` gives the names of `self` it
    reaches."""
    for stmt in cls.body:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None and is_template(stmt.value):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if len(targets) == 1 and isinstance(targets[0], ast.Name) and not prompt_named(targets[0].id):
                name = targets[0].id  # (one named for prompts is a prompt constant already)
                yield stmt.value, name, lambda mro, n=name: {n}
    init = next((s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and s.name == "__init__"), None)
    if init is None:
        return
    args = init.args
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    for arg, default in pairs:
        if is_template(default):
            yield default, arg.arg, lambda mro, p=arg.arg: _kept_as(mro, init, p, 0)
    params = {a.arg for a in positional + args.kwonlyargs}
    for node in subtree(init):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id in params:
            for literal in _literals(node.value):
                yield literal, node.targets[0].id, lambda mro, p=node.targets[0].id: _kept_as(mro, init, p, 0)


def _literals(value):
    """The template literals `value` may be: itself, an operand of `or`, a branch of an `if` expression."""
    if is_template(value):
        yield value
    elif isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
        for v in value.values:
            yield from _literals(v)
    elif isinstance(value, ast.IfExp):
        yield from _literals(value.body)
        yield from _literals(value.orelse)


def _mentions(value, name: str) -> bool:
    """True when `value` is the parameter `name`, or it or a default (`name or "..."`)."""
    if isinstance(value, ast.Name):
        return value.id == name
    if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
        return any(_mentions(v, name) for v in value.values)
    if isinstance(value, ast.IfExp):
        return _mentions(value.body, name) or _mentions(value.orelse, name)
    return False


def _kept_as(mro, init, param: str, hops: int) -> set[str]:
    """The attributes of `self` the parameter `param` of the constructor `init` is kept as:
    `self.A = param` there, or handed by keyword to a constructor of a base (`super().__init__(K=param)`,
    `Base.__init__(self, K=param)`) that keeps its parameter `K` so."""
    found: set[str] = set()
    if hops > _MAX_HOPS:
        return found
    for node in subtree(init):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and _mentions(node.value, param):
            t = node.targets[0]
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                found.add(t.attr)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__":
            for k in node.keywords:
                if k.arg is not None and _mentions(k.value, param):
                    for base_init in _base_inits(mro, init):
                        found |= _kept_as(mro, base_init, k.arg, hops + 1)
    return found


def _base_inits(mro, init):
    """The constructors of the classes of `mro` after the one `init` belongs to."""
    at = next((i for i, (_, c) in enumerate(mro) if init in c.body), None)
    if at is None:
        return
    for _, c in mro[at + 1:]:
        for s in c.body:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__":
                yield s


def _filled(mro, attr: str):
    """How a method of a class of `mro` fills `self.<attr>` (`self.attr.format(**data)`): the name
    the filled text is kept under (`prompt_obj.prompt = ...`, `prompt = ...`) or returned from (a
    function named for prompts), True when it is filled otherwise, None when no method fills it."""
    found = None
    for _, c in mro:
        for method in c.body:
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in subtree(method):
                value = node.value if isinstance(node, (ast.Assign, ast.Return)) else None
                if isinstance(value, ast.Call) and _fills(value, attr):
                    if isinstance(node, ast.Return):
                        return method.name if prompt_named(method.name) else True
                    t = node.targets[0] if len(node.targets) == 1 else None
                    named = t.attr if isinstance(t, ast.Attribute) else t.id if isinstance(t, ast.Name) else None
                    if named is not None and prompt_named(named):
                        return named
                    found = True
                elif isinstance(node, ast.Call) and _fills(node, attr):
                    found = found or True
    return found


def _fills(call: ast.Call, attr: str) -> bool:
    """`self.<attr>.format(...)` / `.format_map(...)`."""
    f = call.func
    return isinstance(f, ast.Attribute) and f.attr in _FILLS and isinstance(f.value, ast.Attribute) \
        and f.value.attr == attr and isinstance(f.value.value, ast.Name) and f.value.value.id == "self"
