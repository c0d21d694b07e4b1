"""Values chosen by configuration: the same for every request a process serves (docs/policies.md,
Policy 7), told from the code, not from names.

- A field of a class of the tree declared in its body with the default None (`description:
  Optional[str] = None`, `x: str = Field(default=None)`) that no method of the class or its bases
  assigns or grows, and no statement of its module writes (`agent.description = ...`): each
  instance is given it when it is built, or keeps the default (`configured_field`). A required
  field (no default: `Field(...)`) is not: each caller gives it, as it likes.
- A parameter of `__init__` with a default (`def __init__(self, prompt=None)`): the value an
  instance is built with (`init_parameter`).
- A condition of an `if` that reads only such values (`if self.markdown:`, `if not
  self.add_datetime_to_instructions:`, `if self.task is not None and USE_TASKS:`): the text it
  adds is fixed text for a given configuration (`configured_test`).

A name that says more (`user_id`, `query`, `messages`) keeps what the name says: those values
are not cleared here (Policy 7: the name is then the only evidence, and it is kept).
"""
from __future__ import annotations

import ast

from ... import classify
from ...model import Kind, Volatility
from .values import dynamic

_INIT = ("__init__", "__post_init__", "model_post_init")
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: The evidence of a value this module finds to be configuration ends with it.
MARK = "(configuration)"
# Calls whose result depends only on what they are given (a test of configuration stays one).
_PURE_CALLS = {"len", "bool", "isinstance", "callable", "hasattr", "getattr", "str", "int", "any", "all"}


def named_otherwise(attr: str) -> bool:
    """True when the name alone says the value changes (an id, a time, the user's message,
    retrieved content, the conversation): the name is kept as the evidence."""
    return classify.classify_name(attr) is not None or attr.lower() in classify.HISTORY_NAMES


def none_field(cls: ast.ClassDef, attr: str) -> ast.stmt | None:
    """The class-body statement declaring `attr` with the default None (`attr = None`, `attr: T =
    None`, `attr: T = Field(default=None)` / `field(default=None)`), or None."""
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == attr:
            value = stmt.value
        elif isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == attr for t in stmt.targets):
            value = stmt.value
        else:
            continue
        if isinstance(value, ast.Constant) and value.value is None:
            return stmt
        if isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)) \
                and (value.func.id if isinstance(value.func, ast.Name) else value.func.attr) in ("Field", "field"):
            kw = {k.arg: k.value for k in value.keywords if k.arg is not None}
            default = kw.get("default", value.args[0] if value.args else None)
            if isinstance(default, ast.Constant) and default.value is None:
                return stmt
        return None
    return None


def written_in_module(tree: ast.AST, attr: str) -> bool:
    """True when a statement of the module, outside an `__init__`, assigns, augments or deletes
    `X.attr` where X may be an instance handed in (`self.attr = ...` in a method, `agent.attr =
    value` of a parameter or a global); an object the function makes itself (`fn =
    Function(...); fn.description = ...`) is not one built elsewhere."""
    index = getattr(tree, "_promptlint_attr_writes", None)
    if index is None:
        index = set()
        _writes(tree, False, set(), index)
        tree._promptlint_attr_writes = index
    return attr in index


def _writes(node, in_init: bool, local: set, out: set) -> None:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, _FUNCS):
            made = {t.id for n in ast.walk(child) if isinstance(n, ast.Assign) for t in n.targets
                    if isinstance(t, ast.Name)}
            _writes(child, in_init or child.name in _INIT, made, out)
            continue
        if not in_init:
            targets = child.targets if isinstance(child, (ast.Assign, ast.Delete)) else \
                [child.target] if isinstance(child, ast.AugAssign) or \
                isinstance(child, ast.AnnAssign) and child.value is not None else []
            for t in targets:
                for sub in ast.walk(t):
                    if isinstance(sub, ast.Attribute) and isinstance(sub.ctx, (ast.Store, ast.Del)) \
                            and not (isinstance(sub.value, ast.Name) and sub.value.id in local):
                        out.add(sub.attr)
        _writes(child, in_init, local, out)


def configured_field(module, cls: ast.ClassDef, attr: str):
    """The value of `self.attr` when `attr` is a configuration field of `cls` (see the module
    docstring: declared with the default None, never written after the instance is built), a
    stable segment at its declaration; else None."""
    stmt = none_field(cls, attr)
    if stmt is None or named_otherwise(attr) or written_in_module(module.tree, attr):
        return None
    return dynamic(module.span(stmt), f"self.{attr}", Kind.UNKNOWN, Volatility.STABLE,
                   f"`{cls.name}.{attr}`: a field with a default, set when the instance is built {MARK}")


def init_parameter(frame, param: ast.arg, has_default: bool):
    """The value of a parameter of `__init__` with a default that no caller we read binds: the
    configuration the instance is built with (stable), or None for any other parameter."""
    func = frame.func
    if func is None or frame.cls is None or func.name != "__init__" or not has_default \
            or named_otherwise(param.arg):
        return None
    return dynamic(frame.module.span(param), param.arg, Kind.UNKNOWN, Volatility.STABLE,
                   f"the parameter `{param.arg}` of `{frame.cls.name}.__init__`, with a default {MARK}")


def is_configured(segs) -> bool:
    """True for text made only of static text and values this module finds to be configuration
    (at least one): the same bytes on every request of a process."""
    return any(not s.is_static and MARK in s.evidence for s in segs) and \
        all(s.is_static or s.volatility is Volatility.STABLE for s in segs)
