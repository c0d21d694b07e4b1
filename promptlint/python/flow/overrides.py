"""The template-method pattern: a method of a base class calls an abstract method on its instance
(`prompt = self.build_base_prompt()` in `BasePromptBuilder.build_prompt`), which each subclass of
the tree overrides. The call gives what each override returns, one value per subclass
(`Alt.per_caller`: a deployment uses one subclass, the same on every request), each override
read on an instance of its own class; the abstract body returns nothing to read.

An abstract method: decorated `@abstractmethod`, or whose body (its docstring aside) only raises
`NotImplementedError`. The overrides are those of the classes of the package tree that extend the
receiver's class, directly or through others (`python/tree_search.subclassers_of`); past
`MAX_OVERRIDES` of them, or when the subclasses cannot all be read, the call is not followed.
"""
from __future__ import annotations

import ast

from .values import Alt, ClassRef, Func, Obj

MAX_OVERRIDES = 8  # classes whose override is read; more: a framework's base, the call is not followed
_MAX_DEPTH = 3  # generations of subclasses walked
_MAX_MODULES = 8  # modules read for the subclasses of one class (open_classes.MAX_SUBCLASSERS)


def abstract(node) -> bool:
    """True for a method decorated `@abstractmethod` or whose body only raises `NotImplementedError`."""
    if any(_named(d, "abstractmethod") for d in node.decorator_list):
        return True
    body = node.body[1:] if node.body and _docstring(node.body[0]) else node.body
    return len(body) == 1 and isinstance(body[0], ast.Raise) and body[0].exc is not None \
        and _named(body[0].exc.func if isinstance(body[0].exc, ast.Call) else body[0].exc, "NotImplementedError")


def overridden(ev, member: Func, base, node: ast.Call, args, kwargs, frame, env):
    """The value of a call of the abstract method `member` on `base` (an instance of its class,
    or of a subclass that does not override it): what each override of the tree's subclasses
    returns, else None (module docstring)."""
    if member.cls is None or not abstract(member.node) or frame.module.path is None:
        return None
    receiver = base.args[0] if isinstance(base, Obj) and base.args and isinstance(base.args[0], ClassRef) else None
    module, cls = (receiver.module, receiver.node) if receiver is not None else (member.module, member.cls)
    found = _overrides(ev, module, cls, member.node.name)
    if not found:
        return None
    span = frame.module.span(node)
    results = []
    for sub_module, sub, method in found:
        self_value = Obj(f"self:{sub.name}", args=[ClassRef(sub_module, sub)], node=sub)
        fn = Func(sub_module, method, sub, self_value)
        bound = ev.bind(fn, args, kwargs, frame, env, node)
        result = ev.call_function(fn, bound, frame.depth + 1, span)
        if result is not None:
            results.append(ev.after_call(result, node, ev.forced(bound), frame))
    if not results:
        return None
    return results[0] if len(results) == 1 else Alt(results, span, per_caller=True)


def _overrides(ev, module, cls: ast.ClassDef, name: str) -> list | None:
    """(module, class, method) of each class of the tree extending `cls` that defines `name`,
    in the order they are found; None past `MAX_OVERRIDES` or when the subclasses cannot be read."""
    key = ("overrides", id(cls), name)
    if key in ev._return_cache:
        return ev._return_cache[key]
    out: list = []
    todo, seen = [(module, cls, 0)], {id(cls)}
    while todo and out is not None:
        mod, klass, depth = todo.pop(0)
        if depth >= _MAX_DEPTH or getattr(mod, "path", None) is None:
            continue
        modules = ev.project.subclassers_of(klass.name, mod.path, _MAX_MODULES)
        if modules is None:
            out = None
            break
        for other in modules:
            for sub in other.classes.values():
                if id(sub) in seen or not any(_extends(ev, other, b, klass) for b in sub.bases):
                    continue
                seen.add(id(sub))
                method = next((s for s in sub.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                               and s.name == name), None)
                if method is not None and not abstract(method):
                    out.append((other, sub, method))
                todo.append((other, sub, depth + 1))
        if len(out) > MAX_OVERRIDES:
            out = None
    ev._return_cache[key] = out
    return out


def _extends(ev, module, base: ast.expr, cls: ast.ClassDef) -> bool:
    """True when a base of a class statement, read in its module, is `cls` (not a namesake)."""
    if isinstance(base, ast.Subscript):
        base = base.value
    if not (isinstance(base, ast.Name) and base.id == cls.name or isinstance(base, ast.Attribute) and base.attr == cls.name):
        return False
    ref = ev._base_class(module, base)
    return ref is not None and ref.node is cls


def _named(node, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name or isinstance(node, ast.Attribute) and node.attr == name


def _docstring(stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)
