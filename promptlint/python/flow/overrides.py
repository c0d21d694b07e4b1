"""The template-method pattern: a method of a base class calls an abstract method on its instance
(`prompt = self.build_base_prompt()` in `BasePromptBuilder.build_prompt`), which each subclass of
the tree overrides. The call gives what each override returns, one value per subclass
(`Alt.per_caller`: a deployment uses one subclass, the same on every request), each override
read on an instance of its own class; the abstract body returns nothing to read.

An abstract method: decorated `@abstractmethod`, or whose body (its docstring aside) only raises
`NotImplementedError`, or is a stub (`...`, `pass`, the docstring alone): it returns nothing to read.

An overridable method, one with a body of its own (`def system_prompt(self): return "You are a
helpful assistant."`), called on `self` in the base class's own code (an instance of the class or
of any subclass) gives what each override returns, and what its own body returns when the class
can itself be instantiated (not abstract: no method of its MRO is abstract), one value per class
as above, when each is text or a list (a prompt, messages: a dict or an object stays the method's
own, one request read from it). On another instance (built by a call of its class, `MyAgent()`, or handed in with an
annotated type, `connector: BaseConnector`) the method of the class it names is read, as before.

The overrides are those of the classes of the package tree that extend the receiver's class,
directly or through others (`python/tree_search.subclassers_of`); past `MAX_OVERRIDES` of them, or
when the subclasses cannot all be read, the call is not followed (the method's own body is read).
"""
from __future__ import annotations

import ast

from .values import Alt, ClassRef, Func, Obj, Seq, Text

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


def stub(node) -> bool:
    """True for an abstract method (`abstract`) or one whose body, its docstring aside, is `...`,
    `pass` or nothing: it returns nothing to read."""
    if abstract(node):
        return True
    body = node.body[1:] if node.body and _docstring(node.body[0]) else node.body
    return all(isinstance(s, ast.Pass) or isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
               and s.value.value is Ellipsis for s in body)


def overridden(ev, member: Func, base, node: ast.Call, args, kwargs, frame, env):
    """The value of a call of the method `member` on `base` (an instance of its class, or of a
    subclass that does not override it): for an abstract method or a stub, what each override of
    the tree's subclasses returns; for a method with a body of its own, on an instance whose class
    is not known exactly (`open_receiver`), what each override returns and, unless the class is
    abstract, what its own body returns; else None (module docstring)."""
    if member.cls is None or frame.module.path is None or not isinstance(base, Obj):
        return None
    own = not stub(member.node)
    if own and not open_receiver(base):
        return None
    receiver = base.args[0] if base.args and isinstance(base.args[0], ClassRef) else None
    module, cls = (receiver.module, receiver.node) if receiver is not None else (member.module, member.cls)
    found = _overrides(ev, module, cls, member.node.name)
    if not found:
        return None
    span = frame.module.span(node)
    results, read = [], []
    if own and not _abstract_class(ev, module, cls):
        bound = ev.bind(member, args, kwargs, frame, env, node)
        result = ev.call_function(member, bound, frame.depth + 1, span)
        if result is not None:
            result = ev.after_call(result, node, ev.forced(bound), frame)
            if not _written(result):
                return result  # a dict, an object: the method's own (`_written`)
            results.append(result)
            read.append((module, cls, member.module.span(member.node)))
    for sub_module, sub, method in found:
        self_value = _instance_of(ev, sub_module, sub)
        fn = Func(sub_module, method, sub, self_value)
        bound = ev.bind(fn, args, kwargs, frame, env, node)
        result = ev.call_function(fn, bound, frame.depth + 1, span)
        if result is not None:
            results.append(ev.after_call(result, node, ev.forced(bound), frame))
            read.append((sub_module, sub, sub_module.span(method)))
    if not results or own and not all(_written(r) for r in results):
        return None
    if open_receiver(base) and sum(_changes(ev, r, frame) for r in results) > 1:
        _note_classes(ev, cls, read)
    return results[0] if len(results) == 1 else Alt(results, span, per_caller=True)


def dispatched(ev, cls: ast.ClassDef) -> list:
    """The overridable calls on `self` of `cls` read in the analysis of the file whose classes give
    values that change, two or more of them (one layout draws one: python/subclass_sends.py):
    for each, [(module, class, span of the method read)], one per class, in order."""
    return ev._return_cache.get(("dispatched", id(cls)), [])


def _note_classes(ev, cls: ast.ClassDef, read: list) -> None:
    found = ev._return_cache.setdefault(("dispatched", id(cls)), [])
    if all([span for *_, span in read] != [span for *_, span in known] for known in found):
        found.append(read)


def _instance_of(ev, module, cls: ast.ClassDef) -> Obj:
    """`self` of a subclass whose override is read, one object per class in the analysis of a
    file: the caches of its reads (its fields, its methods' returns: keyed by the instance) are
    its own, never another subclass's, and shared by every call that reads the override."""
    key = ("override self", id(cls))
    found = ev._return_cache.get(key)
    if found is None:
        found = ev._return_cache[key] = Obj(f"self:{cls.name}", args=[ClassRef(module, cls)], node=cls)
    return found


def open_receiver(base) -> bool:
    """True for `self` of a method of the class (`self:NAME`): an instance of the class or of any
    subclass of the tree; not the `self` of one class drawn on its own (`exact_self`). (An
    instance of an annotated type, `connector: BaseConnector`, reads the class's own method: the
    class it names is the one the code relies on.)"""
    return isinstance(base, Obj) and base.qualname.startswith("self:") and base.span is None


def exact_self(module, cls: ast.ClassDef, span) -> Obj:
    """`self` of a method read for an instance of `cls` exactly (the request a base class's
    method sends, drawn for that class: python/subclass_sends.py): its overridable calls read the
    method `cls` has, no override of a subclass. `span`: where the request is sent."""
    return Obj(f"self:{cls.name}", args=[ClassRef(module, cls)], node=cls, span=span)


def _written(value) -> bool:
    """True for text or a list (a prompt, a message list), or one of several such values: what an
    overridable method gives is read per class only then. A dict (a request's options, a
    payload a subclass completes with `super()`) or an object (a client) stays the method's own:
    one request is read from it, not a choice between the classes' dicts or clients."""
    if isinstance(value, Alt):
        return all(_written(o) for o in value.options)
    return isinstance(value, (Text, Seq))


def _changes(ev, value, frame) -> bool:
    """True when `value` holds content that changes: a time, an id, an unordered iteration,
    serialized data, or content per request, conversation, day or process."""
    from ...model import Kind, Volatility
    return any(not s.is_static and (s.kind in (Kind.TIMESTAMP, Kind.UNIQUE_ID, Kind.UNORDERED_ITERATION, Kind.SERIALIZED)
                                    or s.volatility not in (Volatility.STABLE, Volatility.UNKNOWN))
               for s in ev.text_of(value, frame))


def _abstract_class(ev, module, cls: ast.ClassDef) -> bool:
    """True when a class of the MRO of `cls` has an abstract method (`abstract`): the class is
    not instantiated itself, only its subclasses are."""
    return any(abstract(s) for _, c in ev.mro(module, cls) for s in c.body
               if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)))


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
                if method is not None and not stub(method):
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
