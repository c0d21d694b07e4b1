"""Calls: known functions by qualified name, functions and methods of the analysed tree (with the
call's arguments bound to their parameters), and calls we cannot follow.

A known function is looked up in one table keyed by its qualified name (`library.KNOWN`), however
it is imported: `yaml.safe_dump(x)` and `from yaml import safe_dump; safe_dump(x)` are the same
call. A call we cannot follow changes as often as its most volatile input: data fetched with the
user's message is new on every request (Policy 7).
"""
from __future__ import annotations

import ast
from ...model import replace

from ...classify import OBJECT_FACTORIES
from ...model import Kind, Segment, Volatility
from ..module import unparsed
from . import builtin_calls, decided_returns, default_guards, library, store_rows, type_dispatch
from .budget import MAX_DEPTH, SPENT
from .class_members import members_named
from .closures import captured_default
from .configured import configured_returns
from .role_calls import role_call
from .methods import MethodsMixin
from .opaque_calls import OpaqueCallsMixin
from .hashing import annotated_set
from .objects import annotated_unordered, is_static_method
from .frames import Frame, Thunk
from .wrapped import wrapped_at
from ..walk import nodes_under
from ..marking_helpers import marked_roots
from .values import Alt, ClassRef, Func, Mapping, Obj, Seq, Spread, Text, Value, dynamic, is_none, most_volatile
from .segment_text import const_str


class CallsMixin(MethodsMixin, OpaqueCallsMixin, library.LibraryMixin):
    """Call evaluation of the Evaluator."""

    def call(self, node: ast.Call, frame: Frame, env) -> Value:
        result = self._call(node, frame, env)
        if isinstance(result, Text):
            result = self.role_message(node, frame, env) or result
        if store_rows.reads_store(self, node, frame, env):
            return store_rows.marked(result, node, frame)  # rows read back from a store (`Segment.stored`)
        return result

    def role_message(self, node: ast.Call, frame: Frame, env) -> Mapping | None:
        """A message made by a helper whose body we cannot read but whose name says its role
        (`self.system_message(text)`, `make_user_msg(text)`: an abstract method, a method of an SDK
        adapter): the message `{"role": role, "content": text}`, else None."""
        found = role_call(node)
        if found is None:
            return None
        role, content = found
        m = frame.module
        return Mapping({"role": Text([Segment(text=role, span=m.span(node.func))]),
                        "content": self.eval(content, frame, env)}, span=m.span(node))

    def _call(self, node: ast.Call, frame: Frame, env) -> Value:
        m = frame.module
        func = node.func
        qual = m.qualified_name(func) or library.alias_called(func) or ""
        args = [a for a in node.args if not isinstance(a, ast.Starred)]
        kwargs = {k.arg: k.value for k in node.keywords if k.arg is not None}
        handler = library.KNOWN.get(qual) or library.known_prefix(qual)
        if handler is not None:
            return handler(self, node, qual, args, kwargs, frame, env)
        if isinstance(func, ast.Attribute):
            inherited = self._super_method(func, frame)
            if inherited is not None:  # `super().render(...)`: the base class's method, on this instance
                bound = self.bind(inherited, args, kwargs, frame, env, node)
                result = self.call_function(inherited, bound, frame.depth + 1, m.span(node))
                if result is not None:
                    return self.after_call(result, node, self.forced(bound), frame)
                return self.opaque_call(node, self.forced(bound), frame)
            base = self.eval(func.value, frame, env)
            return self.method(base, func.attr, node, args, kwargs, frame, env)
        name = func.id if isinstance(func, ast.Name) else None
        builtin = builtin_calls.BUILTINS.get(name) if name is not None and not self._shadowed(name, node, frame, env) else None
        if builtin is not None:
            result = builtin(self, node, qual, args, kwargs, frame, env)
            if result is not None:
                return result
        target = self.eval(func, frame, env)
        return self.invoke(target, node, args, kwargs, frame, env, qual)

    def _super_method(self, func: ast.Attribute, frame: Frame) -> Func | None:
        """The method `super().NAME` calls in a method of a class of the tree (the first base of
        the tree that defines it, bound to the same instance), or None."""
        call = func.value
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "super"
                and not call.args and frame.cls is not None):
            return None
        self_value = frame.self_value or Obj(f"self:{frame.cls.name}", args=[ClassRef(frame.module, frame.cls)],
                                             node=frame.cls)
        for module, cls in list(self.mro(frame.module, frame.cls))[1:]:
            for stmt in cls.body:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == func.attr:
                    return Func(module, stmt, cls, self_value)
        return None

    def _shadowed(self, name: str, node, frame: Frame, env) -> bool:
        """True when a builtin's name is bound to a function or class of the tree here."""
        if env is not None:
            th = env.get(name)
        else:
            th = self.env_at(frame, node).get(name) if not frame.module_level else None
        if th is not None and th.kind == "value" and isinstance(th.value, (Func, ClassRef)):
            return True
        return name in frame.module.functions or name in frame.module.classes

    def invoke(self, target, node, args, kwargs, frame: Frame, env, qual: str) -> Value:
        """Call `target` (a function or class of the tree, or an unknown callable)."""
        m = frame.module
        span = m.span(node)
        if isinstance(target, Func):
            bound = self.bind(target, args, kwargs, frame, env, node)
            result = self.call_function(target, bound, frame.depth + 1, span)
            if result is not None:
                result = wrapped_at(_rendered_by(result, target, span), target, span)
                return self.after_call(result, node, self.forced(bound), frame)
            return self.opaque_call(node, self.forced(bound), frame)
        if isinstance(target, ClassRef):
            if len(args) == 1 and not kwargs and not isinstance(args[0], ast.Starred) and self.plain_str(target):
                # `TextPrompt("...{task}...")` of `class TextPrompt(str)`: the text it is given
                text = self.eval(args[0], frame, env)
                if isinstance(text, Text):
                    return text
            if len(args) == 1 and not kwargs and not isinstance(args[0], ast.Starred) and self.plain_list(target):
                return self.eval(args[0], frame, env)  # `MessageList(messages)` of `class MessageList(list)`: that list
            values = {k: self.eval(v, frame, env) for k, v in kwargs.items()}
            init = self.init_of(target)
            if init is not None:  # positional arguments by the names of `__init__`'s parameters
                names = [p.arg for p in [*init.node.args.posonlyargs, *init.node.args.args]][1:]
                for name, arg in zip(names, args):
                    values.setdefault(name, self.eval(arg, frame, env))
                if len(args) == len(node.args) and len(kwargs) == len(node.keywords):  # no *args / **kwargs
                    for name, th in self.defaults(init).items():
                        if name not in values:
                            values[name] = self.force(th.value, th)
            else:  # a dataclass or NamedTuple: positional arguments by its fields, in order
                for name, arg in zip(self.fields_of(target), args):
                    values.setdefault(name, self.eval(arg, frame, env))
            spreads = [self.eval(k.value, frame, env) for k in node.keywords if k.arg is None]
            for spread in spreads:  # `cls(**{"max_units": 3})`: the keys it names
                if _closed(spread):
                    for key, item in _one_mapping(spread).items.items():
                        values.setdefault(key, item)
            if not all(_closed(spread) for spread in spreads):
                # `cls(**{k: v for k, v in found.items() if v is not None})`: keys not known, so
                # any field it does not name may be set by it: not known (never its default)
                named = [p.arg for p in [*init.node.args.posonlyargs, *init.node.args.args][1:]] if init is not None \
                    else self.fields_of(target) or [st.target.id for _, c in self.mro(target.module, target.node)
                                                     for st in c.body if isinstance(st, ast.AnnAssign)
                                                     and isinstance(st.target, ast.Name)]
                for name in named:
                    values.setdefault(name, dynamic(span, m.code(node), Kind.UNKNOWN, Volatility.UNKNOWN,
                                                    "set by a `**mapping` whose keys are not known"))
            return Obj(f"instance:{target.node.name}", node=target.node, args=[ClassRef(target.module, target.node)],
                       kwargs=values, span=span)
        # an unknown callable: an SDK class, a library function
        kw_vals = {k: self.eval(v, frame, env) for k, v in kwargs.items()}
        arg_vals = [self.eval(a, frame, env) for a in args]
        short = qual.rsplit(".", 1)[-1] if qual else ""
        if short and short[:1].isupper() or qual in OBJECT_FACTORIES:
            return Obj(qual, args=arg_vals, kwargs=kw_vals, span=span, node=node)
        return self.opaque_call(node, arg_vals + list(kw_vals.values()), frame)

    def plain_list(self, cls: ClassRef) -> bool:
        """True for a class of the tree that subclasses `list` (itself or through bases of the tree)
        and defines no `__new__` or `__init__` on the way: built from one list, it holds that list's
        items (`class MessageList(list)` adding methods)."""
        return self._plain_of(cls, "list")

    def plain_str(self, cls: ClassRef) -> bool:
        """True for a class of the tree that subclasses `str` (itself or through bases of the tree)
        and defines no `__new__` or `__init__` on the way: built from one text, it is that text
        (`class TextPrompt(str)` adding methods); a `__new__` may change what it holds."""
        return self._plain_of(cls, "str")

    def _plain_of(self, cls: ClassRef, base: str) -> bool:
        """True when `cls` subclasses the builtin `base` with no `__new__` / `__init__` on the way."""
        for _module, c in self.mro(cls.module, cls.node):
            if any(isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name in ("__new__", "__init__")
                   for stmt in c.body):
                return False
            if any(isinstance(b, ast.Name) and b.id == base for b in c.bases):
                return True
        return False

    def init_of(self, cls: ClassRef) -> Func | None:
        """The `__init__` of a class of the tree (or of its bases), or None."""
        for module, c in self.mro(cls.module, cls.node):
            for stmt in members_named(c, "__init__"):  # (the body's statements that may define it, in order)
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == "__init__":
                    return Func(module, stmt, c)
        return None

    def fields_of(self, cls: ClassRef) -> list[str]:
        """The fields of a dataclass or NamedTuple of the tree, in the order its generated
        constructor takes them (bases first; `ClassVar`s are not fields); [] for another class."""
        chain = list(self.mro(cls.module, cls.node))
        if not any(_makes_fields(c) for _, c in chain):
            return []
        names: list[str] = []
        for _, c in reversed(chain):
            for stmt in c.body:
                if (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
                        and "ClassVar" not in unparsed(stmt.annotation) and stmt.target.id not in names
                        and not _keyword_only(stmt.value)):
                    names.append(stmt.target.id)
        return names

    def bind(self, fn: Func, args, kwargs, frame: Frame, env, node: ast.Call | None = None) -> dict:
        """The call's arguments bound to the function's parameters (lazily, in the caller's frame);
        with the call `node` written without `*args` / `**kwargs`, the parameters it does not pass
        take their defaults."""
        a = fn.node.args
        sig = _signature(fn.node)
        names = sig.positional
        if fn.cls is not None and names and not sig.static:
            names = names[1:]  # the receiver, whatever its name (`def add_callbacks(selfs, kwargs)`)
        bound: dict = {}
        for i, arg in enumerate(args):
            if i < len(names):
                bound[names[i]] = Thunk("expr", node=arg, env=env, value=frame)
        accepted = set(names) | sig.keyword_only
        extra: dict = {}
        for k, v in kwargs.items():
            if k in accepted or a.kwarg is None:
                bound[k] = Thunk("expr", node=v, env=env, value=frame)
            else:
                extra[k] = self.eval(v, frame, env)
        if a.kwarg is not None:  # `**kw`: the other keywords, as a dict (with those a `**params` passes)
            opened = False  # (a `**params` of keys not known: so is `kw`)
            for kw in node.keywords if node is not None else ():
                spread = _one_mapping(self.eval(kw.value, frame, env)) if kw.arg is None else None
                if isinstance(spread, Mapping) and not spread.repeated:
                    extra = {**{k: v for k, v in spread.items.items() if k not in accepted}, **extra}
                opened = opened or kw.arg is None and (spread is None or spread.repeated or spread.open)
            bound[a.kwarg.arg] = Mapping(extra, open=opened, keywords=a.kwarg.arg)
        if node is not None and len(args) == len(node.args) and len(kwargs) == len(node.keywords):
            for name, th in self.defaults(fn).items():
                bound.setdefault(name, th)
        return bound

    def defaults(self, fn: Func) -> dict:
        """The parameters of `fn` that have a default, each with its default as a thunk evaluated
        once in the function's module (at import: per process); of a function nested in another,
        a default that reads a name (`def score(*, keys=keys)`) is that name's binding in the
        enclosing function where the nested one is defined (closures.captured_default)."""
        out = {}
        for name, default in _signature(fn.node).defaults:
            key = ("default", id(default))
            th = self._return_cache.get(key)
            if th is None:
                th = self._return_cache[key] = captured_default(self, fn.module, fn.node, default) \
                    or Thunk("default", node=default, env={}, value=self.module_frame(fn.module))
            out[name] = th
        return out

    def forced(self, bound: dict) -> list:
        return [self.force(b.value, b) if isinstance(b, Thunk) else b for b in bound.values()]

    def call_function(self, fn: Func, bindings: dict, depth: int, span) -> Value | None:
        """The return value of a function of the tree, with parameters bound to `bindings`."""
        if depth > MAX_DEPTH:
            return dynamic(span, fn.node.name + "()", evidence="call chain too deep to follow")
        self.reached.append(fn.module.span(fn.node))
        self.reached_funcs.append((fn.module, fn.node))
        self.marked.extend(self._marks.get(id(fn.node), ()))
        explicit = any(not isinstance(v, Thunk) or v.kind != "default" for v in bindings.values())
        # (a base class's method on instances of different classes counts once per class: each
        # subclass brings its own attributes, as `Template.render` of each template class)
        receiver = fn.self_value.qualname if isinstance(fn.self_value, Obj) else None
        if explicit and not self.budget.bound_call((id(fn.node), receiver)):
            bindings, explicit = {}, False  # called from many places: read it once, parameters unknown
        key = (id(fn.node), id(fn.self_value), tuple(sorted((k, id(v)) for k, v in bindings.items())))
        if not explicit and key in self._return_cache:  # a bound call's argument thunks are new every time:
            return self._return_cache[key]  # caching it would only match a later call reusing their ids
        if key in self._active:
            return dynamic(span, fn.node.name + "()", evidence="recursive call")
        if not self.budget.following:
            return dynamic(span, fn.node.name + "()", evidence=SPENT)
        self._active.add(key)
        self.budget.inner += 1
        try:
            frame = Frame(module=fn.module, func=fn.node, cls=fn.cls, bindings=bindings,
                          self_value=fn.self_value, depth=depth)
            self.ensure(frame)
            if frame.markers and id(fn.node) not in self._marks:
                self._marks[id(fn.node)] = [span for span, _ in frame.markers]
                self.marked.extend(self._marks[id(fn.node)])
            picked = self._dispatched(fn, bindings, frame)  # (a return by the argument's type: type_dispatch.py)
            rets = [r for r in (self.force(frame, t) for t in picked or frame.returns) if not is_none(r)]
            if frame.markers:  # cache breakpoints set on the items of the list it returns
                roots = marked_roots(self.project, fn.module, fn.node, fn.cls, self.marking_reads)
                rets = [_with_markers(*_routed(r, t, frame.markers, roots))
                        for r, t in zip((self.force(frame, t) for t in picked or frame.returns), picked or frame.returns)
                        if not is_none(r)]
            result = None if not rets else rets[0] if len(rets) == 1 else \
                Alt(rets, span, configured=configured_returns(self, frame))
            if annotated_set(fn.node.returns) and self._unread_order(result, frame):
                result = annotated_unordered(fn.module, fn.node.returns, f"`{fn.node.name}()`'s result")
        finally:
            self._active.discard(key)
            self.budget.inner -= 1
        if not explicit:
            self._return_cache[key] = result
            self._return_cache[("self", key)] = fn.self_value  # keeps id(self_value) unique while cached
        return result

    def _dispatched(self, fn: Func, bindings: dict, frame: Frame) -> list:
        """The return of `fn` its argument's type selects, when `fn` only returns by the type of one
        parameter (`if isinstance(obj, dict): return {...}`) bound to a dict or list the code writes
        (flow/type_dispatch.py): [its return thunk], else []."""
        def field(attr: str) -> str | None:  # (`if self.template_format == "jinja2":` of a built instance)
            return const_str(self.attr_of(fn.self_value, attr, None, frame)) if isinstance(fn.self_value, Obj) else None
        live = decided_returns.picked(self, fn.node, bindings, frame.returns, field) if len(frame.returns) > 1 else None
        if live is not None:  # (`if name == "review": return ...` ruled out by a constant argument)
            return live
        found = type_dispatch.dispatch(fn.node) if len(frame.returns) > 1 else None
        bound = bindings.get(found[0]) if found is not None else None
        if bound is None:  # (or the early return of a parameter left at its default None: default_guards.py)
            early = default_guards.early_return(fn.node, _signature(fn.node).defaults) if len(frame.returns) > 1 else None
            given = bindings.get(early[0]) if early is not None else None
            left = isinstance(given, Thunk) and given.kind == "default" and isinstance(given.node, ast.Constant) \
                and given.node.value is None
            return [t for t in frame.returns if getattr(t, "node", None) is early[1]] if left else []
        ret = type_dispatch.chosen(fn.node, self.force(bound.value, bound) if isinstance(bound, Thunk) else bound)
        return [t for t in frame.returns if ret is not None and getattr(t, "node", None) is ret]

    def _unread_order(self, result: Value | None, frame: Frame) -> bool:
        """True when a function's return value says nothing about its order or how often it
        changes (unknown, or stable text of unknown order): its return annotation (a set) then
        tells more. False for a list or dict we read, and for a value already unordered or
        known to change (a fetched result keeps its own cause)."""
        if result is None:
            return True
        if isinstance(result, (Seq, Mapping)):
            return False
        src = most_volatile(self.text_of(result, frame))
        return src is not None and src.kind is not Kind.UNORDERED_ITERATION and \
            src.volatility in (Volatility.UNKNOWN, Volatility.STABLE)




#: Decorators of attrs whose generated constructor takes the annotated fields in order.
_ATTRS_CLASSES = ("define", "frozen", "mutable", "attrs")


#: Methods that render a template object into text (`template.render(context)`, `prompt.format(...)`).
_RENDERS = frozenset({"render", "render_async", "format", "format_prompt", "format_messages", "substitute",
                      "safe_substitute"})


class _Signature:
    """The parameters of a function node as calls bind them (`_signature`)."""

    __slots__ = ("positional", "keyword_only", "static", "defaults")

    def __init__(self, node) -> None:
        a = node.args
        self.positional = [p.arg for p in [*a.posonlyargs, *a.args]]  # (never changed: `names[1:]` copies)
        self.keyword_only = frozenset(p.arg for p in a.kwonlyargs)
        self.static = is_static_method(node)
        names = self.positional
        pairs = [*zip(names[len(names) - len(a.defaults):], a.defaults), *zip([p.arg for p in a.kwonlyargs], a.kw_defaults)]
        self.defaults = [(name, default) for name, default in pairs if default is not None]


def _signature(node) -> _Signature:
    """The parameters of the function `node`, read once per node (kept on it: trees are never
    changed after parsing; every call of a function of the tree binds its arguments by them)."""
    sig = getattr(node, "_promptlint_signature", None)
    if sig is None:
        sig = node._promptlint_signature = _Signature(node)
    return sig


def _rendered_by(result, fn: Func, call_span):
    """A helper's result rendered there from the data its caller gives (`def fill(template,
    context): return env.from_string(template).render(context)`): for the caller, the value is
    produced by the call of the helper (`fill(prompt, {"input": item})`), where that data is given,
    so its place (the object, or the origin of the text's values) is that call, not the render
    inside the helper. Values made inside the helper of their own (a clock, an id) keep theirs."""
    if call_span is None or not isinstance(result, (Obj, Text)):
        return result
    if isinstance(result, Obj):
        if result.span is None or result.qualname.rsplit(".", 1)[-1] not in _RENDERS:
            return result
        renders = {result.span} if _inside(fn.module.span(fn.node), result.span) else set()
        return replace(result, span=call_span) if renders else result
    renders = _render_spans(fn)
    if not renders or not any(not s.is_static and (s.origin or s.span) in renders for s in result.segs):
        return result
    return Text([replace(s, origin=call_span) if not s.is_static and s.kind not in _OWN_PLACE
                 and (s.origin or s.span) in renders else s for s in result.segs])


_OWN_PLACE = (Kind.TIMESTAMP, Kind.UNIQUE_ID, Kind.SERIALIZED, Kind.UNORDERED_ITERATION, Kind.HISTORY)


def _render_spans(fn: Func) -> set:
    """The spans of the render calls in a function's own body (`template.render(context)`)."""
    cached = getattr(fn.node, "_render_spans", None)
    if cached is None:
        cached = {fn.module.span(n) for n in nodes_under(fn.node) if isinstance(n, ast.Call)
                  and isinstance(n.func, ast.Attribute) and n.func.attr in _RENDERS}
        fn.node._render_spans = cached
    return cached


def _inside(outer, inner) -> bool:
    return outer.filename == inner.filename and outer.start <= inner.start and inner.end <= outer.end


def _makes_fields(cls: ast.ClassDef) -> bool:
    """True for a class decorated `@dataclass` / `@dataclasses.dataclass(...)`, attrs'
    `@define` / `@frozen` / `@attr.s`, and for `class X(NamedTuple)`: its generated constructor
    takes its annotated fields in order."""
    for d in cls.decorator_list:
        node = d.func if isinstance(d, ast.Call) else d
        name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
        if name == "dataclass" or name in _ATTRS_CLASSES or name == "s" and isinstance(node, ast.Attribute) \
                and isinstance(node.value, ast.Name) and node.value.id == "attr":
            return True
    return any((b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "")) == "NamedTuple" for b in cls.bases)


def _closed(value) -> bool:
    """True for a mapping whose keys are all known (a `**mapping` that sets only those)."""
    found = _one_mapping(value)
    return isinstance(found, Mapping) and not found.repeated and not found.open


def _one_mapping(value, depth: int = 0) -> Mapping | None:
    """A dict, or the dicts of the branches that build one (`params = {...}; if x: params["k"] = v`)
    as one holding every key any of them has; None for another value."""
    if isinstance(value, Mapping):
        return value
    if not isinstance(value, Alt) or depth > 3:
        return None
    items: dict = {}
    opened = False
    for option in value.options:
        found = _one_mapping(option, depth + 1)
        if found is None:
            return None
        for k, v in found.items.items():
            items.setdefault(k, v)
        opened = opened or found.open or found.repeated
    return Mapping(items, open=opened)


def _keyword_only(value) -> bool:
    """True for a field declared `field(kw_only=True)` / `attr.ib(kw_only=True)`: not positional."""
    return isinstance(value, ast.Call) and any(
        k.arg == "kw_only" and isinstance(k.value, ast.Constant) and k.value.value is True for k in value.keywords)


def _routed(value: Value, returned, markers: list, roots: dict) -> tuple[Value, tuple]:
    """(value, the markers left): a returned tuple of names (`return messages, system`) whose
    lists carry the breakpoints the function set on each name's blocks (`roots`: span -> name,
    `marking_helpers.marked_roots`), each list marked with its own; `_with_markers` gives those left
    to the first list."""
    node = getattr(returned, "node", None)
    if not (isinstance(value, Seq) and value.is_tuple and isinstance(node, ast.Tuple) and roots
            and len(node.elts) == len(value.items)):
        return value, tuple(markers)
    items, left = list(value.items), list(markers)
    for i, el in enumerate(node.elts):
        own = tuple(m for m in markers if isinstance(el, ast.Name) and roots.get(m[0]) == el.id)
        if own and isinstance(items[i], Text) and items[i].segs and not any(s.is_static for s in items[i].segs):
            span = items[i].segs[0].span  # a list we cannot read: one of unknown length holding it
            items[i] = Seq([Spread(items[i], span, items[i].segs[0].expr)], span, repeated=True, markers=own)
            left = [m for m in left if m not in own]
        elif own and _marked_list(items[i]):
            items[i] = _with_markers(items[i], own)
            left = [m for m in left if m not in own]
    return (replace(value, items=items) if left != list(markers) else value), tuple(left)


def _is_none(v: Value) -> bool:
    return isinstance(v, Text) and len(v.segs) == 1 and v.segs[0].is_static and v.segs[0].text == "None"


def _with_markers(value: Value, markers: tuple) -> Value:
    """A returned list with the cache breakpoints its function set on its items; in a returned
    tuple (`return messages, system`), the first list it holds carries them (the tuple is
    unpacked by the caller; the markers are not tied to one name, so they go to one list only,
    and counted once). A list not known (the parameter the function marks and hands back,
    `for m in messages: m["content"][-1]["cache_control"] = ...; return messages`) is a list of
    unknown length holding it, which carries them."""
    if not markers:
        return value
    if isinstance(value, Text) and value.segs and not any(s.is_static for s in value.segs) \
            and any(repeated is True for _span, repeated in markers):
        span = value.segs[0].span
        return Seq([Spread(value, span, value.segs[0].expr)], span, repeated=True, markers=markers)
    if isinstance(value, Alt) and _marked_list(value):
        # a list grown in a loop by branches (`if m.role == "system": ... else: out.append(...)`):
        # each variant carries them (the layout merges the variants' markers, counted once)
        return replace(value, options=[_with_markers(o, markers) if _marked_list(o) else o for o in value.options])
    if not isinstance(value, Seq):
        return value
    if value.is_tuple:
        at = next((i for i, x in enumerate(value.items) if _marked_list(x)), None)
        if at is None:
            return value
        items = list(value.items)
        items[at] = _with_markers(items[at], markers)
        return replace(value, items=items)
    return replace(value, markers=tuple(dict.fromkeys((*value.markers, *markers))))


def _marked_list(value: Value, depth: int = 0) -> bool:
    """True for a list (not a tuple) or a list grown by branches (an `Alt` with a list among its
    variants): what a returned tuple's markers go to."""
    if isinstance(value, Alt):
        return depth < 6 and any(_marked_list(o, depth + 1) for o in value.options)
    return isinstance(value, Seq) and not value.is_tuple
