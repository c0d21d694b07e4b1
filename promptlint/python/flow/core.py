"""The evaluator: an `ast` expression in a frame to a symbolic `Value` (docs/architecture.md "The flow of data").

It understands literals, f-strings, `+`, `str.format`, `%`, `join`, `textwrap.dedent`, names bound
in the same function or module (scopes.py), names imported from other modules of the tree, files
read with a static path, config values with static keys, and return values of functions and
methods of the analysed tree with the call's arguments bound to the parameters (calls.py). What it
cannot resolve is a dynamic segment of kind `unknown`, never a guess.

The Evaluator is one class made of mixins, one module each: scopes (bindings), text, calls,
objects (attributes and classes), containers, operators, derived values (derived.py); this module
holds the dispatch on node types.
"""
from __future__ import annotations

import ast
from pathlib import Path

from ...model import Kind, Segment, Source, Volatility, replace
from ... import classify
from ..module import display_name, star_imports
from .bodies import Bodies
from .budget import MAX_DEPTH, OUT_OF_STEPS, SPECULATIVE_BUDGET, Budget
from .calls import CallsMixin
from .closures import closure_value
from .per_option import each_option, per_caller_in
from .configured import all_configured, configured_test
from .handed import changed_by
from . import builders
from .containers import ContainersMixin
from .derived import DerivedMixin
from .variants import list_variants
from .builtin_calls import zip_member
from .keyed import sorted_in_place
from .maps import MapsMixin
from .objects import ObjectsMixin
from .own_attrs import own_attrs, own_key
from .params import ParamsMixin
from .operators import OperatorsMixin
from .scopes import END, ScopesMixin
from .frames import Frame, Thunk, replace_thunk
from .. import loop_values
from .text import TextMixin
from .segment_text import const_str
from . import rewrites
from .roles import narrow, role_member
from .values import Alt, ClassRef, Func, Mapping, Obj, PathV, Seq, Spread, Text, Value, dynamic, most_volatile, static


_COMPUTING = object()  # a Thunk's cache while its value is computed (see `Evaluator.force`)


class Evaluator(ScopesMixin, TextMixin, CallsMixin, ObjectsMixin, ParamsMixin, ContainersMixin, MapsMixin, OperatorsMixin,
                DerivedMixin):
    """Evaluates `ast` expressions to Values; one per run, sharing the Project's module cache.

    `template_hook(evaluator, base, node, args, kwargs, frame, env)` renders a template object's
    `.render(...)` (None when unknown); `config_hook(path, text, keys)` places a config value at its
    line in its file.
    """

    def __init__(self, project, template_hook=None, config_hook=None):
        self.project = project
        self.template_hook = template_hook
        self.config_hook = config_hook
        self._module_frames: dict[Path, Frame] = {}
        self._return_cache: dict = {}
        self._active: set = set()
        self.budget = Budget()
        self.reached: list = []  # spans of the functions read for the current prompt
        self.reached_funcs: list = []  # (module, function node) of the same functions
        #: id(function node) -> (module, function node, class, the names of its parameters whose
        #: callers' arguments were read for the current prompt: `callers.caller_arguments`)
        self.asked: dict = {}
        self.marked: list = []  # spans of `cache_control` set by statements in those functions
        self._marks: dict = {}  # id(function node) -> its `cache_control` statements' spans
        self.marking_reads: dict = {}  # (id(function node), own keys) -> (node, marking_helpers reading)
        self._apart: dict = {}  # (id(function node), list name) -> `rewrites.rendered_apart`
        self._bodies = Bodies()  # the readings of bodies (scopes.py), kept across files when their code alone made them

    def forget(self) -> None:
        """Drop every cached value (frames, return values; of the body readings all but those of
        held modules' code alone, `flow.bodies`): no value keeps a dropped module alive."""
        self._module_frames.clear()
        self._return_cache.clear()
        self._active.clear()
        self._marks.clear()
        self.marking_reads.clear()
        self._apart.clear()
        self._bodies.forget(self.project)
        self.budget.start_file()

    def reset_budget(self, speculative: bool = False) -> None:
        """Start the work budget of one prompt; `speculative`: of a candidate read only in case it
        is one (`budget.SPECULATIVE_BUDGET`), dropped when `budget.exhausted` after its reading."""
        self.budget.reset(SPECULATIVE_BUDGET if speculative else None)
        self.reached = []
        self.reached_funcs = []
        self.asked = {}
        self.marked = []

    @staticmethod
    def display(path: Path) -> str:
        return display_name(path)

    # ---------------------------------------------------------------- frames
    def module_frame(self, module) -> Frame:
        frame = self._module_frames.get(module.path)
        if frame is None:
            frame = Frame(module=module, module_level=True)
            self._module_frames[module.path] = frame
        return frame

    @staticmethod
    def function_frame(module, func, cls=None, bindings=None, self_value=None, depth: int = 0) -> Frame:
        return Frame(module=module, func=func, cls=cls, bindings=bindings or {}, self_value=self_value, depth=depth)

    def unbound_frame(self, module, func, cls=None, depth: int = 0, hops: int | None = None) -> Frame:
        """The frame of `func` (a method of `cls`) with no argument bound and no instance given: one per
        (function, class, depth, hops) in the analysis of one file, whoever asks for it (the site
        finder reading the function, a caller read for the arguments it passes, the function around
        a nested one), so its body is read, and each name it binds evaluated, once."""
        key = ("unbound frame", id(func), id(cls), depth, hops)
        found = self._return_cache.get(key)
        if found is None or found.module is not module:
            found = self._return_cache[key] = Frame(module=module, func=func, cls=cls, depth=depth, hops=hops)
        return found

    def force(self, frame: Frame, th: Thunk) -> Value:
        """The value of a binding (computed once; a recursive definition is unknown: the value
        read while it is being computed, made on the first such read only). A thunk of a body
        reading (`th.shared`) has one value per frame."""
        if th.shared:
            values = frame.values
            cached = values.get(th)
            if cached is not None:
                if cached is _COMPUTING:
                    cached = values[th] = dynamic(None, th.name or "a name", evidence="recursive definition")
                return cached
            values[th] = _COMPUTING
            cached = values[th] = self._force(frame, th)
            return cached
        cached = th.cache
        if cached is not None:
            if cached is _COMPUTING:
                cached = th.cache = dynamic(None, th.name or "a name", evidence="recursive definition")
            return cached
        th.cache = _COMPUTING
        th.cache = self._force(frame, th)
        return th.cache

    def _force(self, frame: Frame, th: Thunk) -> Value:
        m = frame.module
        if th.kind == "value":
            return th.value
        if th.kind == "param":
            return self.param(frame, th)
        if th.kind == "expr":
            return self.eval(th.node, frame, th.env)
        if th.kind == "default":  # a parameter's default: evaluated when the function is defined
            return per_process(self.eval(th.node, frame, th.env))
        if th.kind == "bound":  # another frame's binding (closures.captured_default): read in that frame
            return self.force(th.value, th.prev)
        if th.kind == "unpack":  # (`prev`: the whole value, read once for every name unpacked from it)
            whole = self.force(frame, th.prev) if th.prev is not None else self.eval(th.node, frame, th.env)
            picked = _element(whole, th.value)
            if picked is not None:
                return picked
            src = most_volatile(self.text_of(whole, frame)) if isinstance(whole, (Text, Alt)) else None
            if src is not None and src.kind in (Kind.USER_INPUT, Kind.TIMESTAMP, Kind.UNIQUE_ID):
                return self.derived(whole, th.node, frame, th.name)  # a part of data fetched for this request
            fetched = self._unpacked_fetch(whole, th.node, frame, th.env)
            if fetched is not None:
                return self.derived(fetched, th.node, frame, th.name)
            return dynamic(m.span(th.node), th.name, evidence=f"unpacked from `{m.code(th.node)}`")
        if th.kind == "alt":
            options = [self.force(frame, o) for o in th.options]
            if all(o is options[0] for o in options):
                return options[0]  # (branches that only called methods of an object that is no builder: builders.applied)
            return Alt(options, fallback=th.fallback, configured=th.node is not None and self._branch_test(th, frame))
        if th.kind in ("iter", "counter") and th.each is not None:  # a value of each pass (loop_values.py)
            return loop_values.mark(self._force(frame, replace_thunk(th)), th.each, m.span(th.each))
        if th.kind == "iter":  # (`prev`: the iterable, read once for every name bound from it)
            zipped = zip_member(self, th.node, th.index, frame, th.env, th.name)
            if zipped is not None:  # `for q, doc in zip(questions, docs)`: an item of `docs`
                return zipped
            whole = self.force(frame, th.prev) if th.prev is not None else self.eval(th.node, frame, th.env)
            item = self.item_of(whole, th.node, frame, th.name, loop=True)
            if th.index is not None and isinstance(item, Seq) and item.is_tuple:
                # `for field, values in out.items()` of a dict of texts in an unordered order, `for
                # name, row in zip(names, rows)`: the member at the name's place
                item = _element(item, th.index) or item
            if th.value is not None:  # narrowed by a test of its role (roles.py)
                item = narrow(item, th.value, lambda v: self.static_text(v, frame))
            return item
        if th.kind == "global":
            found = self.resolve_global(m, th.name, frame.depth)
            return found if found is not None else dynamic(None, th.name, evidence=f"`{th.name}` is not resolved")
        if th.kind == "counter":
            return dynamic(m.span(th.node), th.name, Kind.UNKNOWN, Volatility.STABLE, "a loop counter")
        prev = self.force(frame, th.prev) if th.prev is not None else None
        if th.kind == "aug":
            return self.augment(th, prev, frame)
        if th.kind == "setitem":
            return self.set_item(th, prev, frame)
        if th.kind == "setpath":
            return self.set_path(th, prev, frame)
        if th.kind == "setkey":
            return self.set_key(th, prev, frame)
        if th.kind == "keygrow":
            return self.key_grown(th, prev, frame)
        if th.kind == "update":
            return self.updated(th, prev, frame)
        if th.kind == "setdefault":
            return self.defaulted(th, prev, frame)
        if th.kind == "handed":
            return changed_by(self, th, prev, frame)
        if th.kind == "called":
            return builders.applied(self, th, prev, frame)
        if th.kind == "sort":
            return sorted_in_place(prev)
        if th.kind == "map":
            return self.mapped_loop(th, prev, frame)
        if th.kind == "apart":
            return rewrites.marked(prev, th.node, frame.module)
        if th.kind == "window":
            return self.windowed(prev, th.node, frame, th.name, th.value)
        if th.kind == "rendered":  # the newest entries written into one text (scopes._loop): text, not a list
            cut = self.windowed(prev, th.node, frame)
            return Text([*cut.segs, Segment(text=th.name)]) if isinstance(cut, Text) and th.name else cut
        if th.kind == "shuffle":
            return self.shuffled(th, prev, frame)
        if th.kind in ("append", "extend", "insert"):
            variants = list_variants(prev)
            if variants is not None:  # (what it adds read once for all of them)
                added = self.growth(th, frame) if variants else None
                return Alt([self.grow(th, o, frame, added) for o in variants], prev.span, configured=all_configured(prev))
            return self.grow(th, prev, frame)
        return dynamic(m.span(th.node), m.code(th.node) if th.node is not None else th.name)

    def _branch_test(self, th: Thunk, frame: Frame) -> bool:
        """`configured_test` of the `if` whose branches bound `th` one way or another: read once per
        frame for all the names those branches bind (their alternatives share the test and the
        bindings before it)."""
        key = ("configured", id(th.node), id(th.env))
        known = frame.shared.get(key)
        if known is not None and known[0] is th.env:
            return known[1]
        found = configured_test(self, th.node, frame, th.env)
        if not self.budget.exhausted:  # (a reading cut short by the budget is not kept)
            frame.shared[key] = (th.env, found)  # (keeps the bindings whose id the key holds alive)
        return found

    def _unpacked_fetch(self, whole: Value, node, frame: Frame, env) -> Value | None:
        """A name unpacked from the result of a call given the user's message or the conversation
        (`*_, last = self.mem.run(messages=messages)`), where the call's result `whole` gives no
        element we can read and holds nothing known (a generator of the tree that loops over records
        we cannot read): data fetched with that message, as the result of a call we cannot follow is
        (`fetched`). None for another call, and for a result holding static text or the conversation
        itself (`head, *rest = [system] + messages`: its first item is not fetched). An awaited call
        (`*_, last = await agent.run(messages)`) counts as the call."""
        if isinstance(node, ast.Await):
            node = node.value
        if not isinstance(node, ast.Call):
            return None
        if any(s.text.strip() or s.kind not in (Kind.UNKNOWN, Kind.CONDITIONAL) or s.volatility is not Volatility.UNKNOWN
               for s in self.text_of(whole, frame)):  # (an Alt's variants are told apart by a condition)
            return None
        inputs = [self.eval(a.value if isinstance(a, ast.Starred) else a, frame, env) for a in node.args]
        inputs += [self.eval(k.value, frame, env) for k in node.keywords if k.arg is not None]
        return self.fetched(node, inputs, frame)

    def static_text(self, value: Value, frame: Frame) -> str | None:
        """The text of a value made only of static text (a message's role), else None."""
        segs = self.text_of(value, frame)
        return "".join(s.text for s in segs) if segs and all(s.is_static for s in segs) else None

    # ---------------------------------------------------------------- names
    def resolve_global(self, module, name: str, at_depth: int = 0) -> Value | None:
        """A module-level name: a def, a class, an assignment or an import of the tree."""
        if name in module.functions:
            return Func(module, module.functions[name])
        if name in module.classes:
            return ClassRef(module, module.classes[name])
        if name in module.assigns:
            frame = self.module_frame(module)
            self.ensure(frame)
            th = frame.snapshots[END].get(name)
            return per_process(self.force(frame, th)) if th is not None else None
        if name in module.imports:
            return self.resolve_dotted(module.imports[name], at_depth)
        return None

    def star_global(self, module, name: str, at_depth: int = 0) -> Value | None:
        """A name the module's own code uses that a star import of it binds (`from .agent import
        *`; the last one whose module defines it): that module's def, class, assignment or import.
        Only for the module's own names: a package's `__init__` re-exporting its modules by star
        imports (`dspy.Predict`) keeps its attributes unread, as a library's API."""
        if name.startswith("_") or at_depth > MAX_DEPTH:
            return None
        for base in reversed(star_imports(module)):
            other = self.project.find(base)
            if other is not None and other is not module and (
                    name in other.functions or name in other.classes or name in other.assigns or name in other.imports):
                return self.resolve_global(other, name, at_depth + 1)
        return None

    def resolve_dotted(self, dotted: str, depth: int = 0) -> Value | None:
        """The value a dotted name of the analysed tree stands for (`pkg.mod.NAME.attr`), or an
        SDK's text constant (`anthropic.HUMAN_PROMPT`: `classify.SDK_TEXTS`)."""
        found = self.project.resolve_symbol(dotted) if depth <= MAX_DEPTH else None
        if found is None:
            return static(classify.SDK_TEXTS[dotted], None) if dotted in classify.SDK_TEXTS else None
        module, name = found
        if "." in name:
            head, _, rest = name.partition(".")
            base = self.resolve_global(module, head, depth + 1)
            for attr in rest.split("."):
                base = self.attr_of(base, attr, None, self.module_frame(module)) if base is not None else None
            return base
        return self.resolve_global(module, name, depth + 1)

    def _name(self, name: str, node, frame: Frame, env: dict | None) -> Value | None:
        if env is not None and name in env:
            return self.force(frame, env[name])
        if env is None:
            v = self.lookup(frame, name, node)
            if v is not None:
                return per_process(v) if frame.module_level else v
        if frame.func is not None and not frame.module_level:
            v = closure_value(self, frame, name)  # a name of the function around a nested one
            if v is not None:
                return v
        found = self.resolve_global(frame.module, name, frame.depth)
        return found if found is not None else self.star_global(frame.module, name, frame.depth)

    # ---------------------------------------------------------------- eval
    def eval(self, node: ast.AST, frame: Frame, env: dict | None = None) -> Value:
        """The Value of `node` in `frame` (env: bindings visible at that point, else looked up by row).
        Called 760,000 times a corpus run: `Budget.spend` written out, the handler called directly."""
        budget = self.budget
        budget.left -= 1  # (`budget.spend()`: one prompt may not cost more than a bounded amount of work)
        if budget.inner:
            budget.file_left -= 1
        if budget.left < 0:
            return dynamic(frame.module.span(node), frame.module.code(node), evidence=OUT_OF_STEPS.format(budget.limit))
        handler = _DISPATCH.get(type(node))
        try:
            if handler is not None:
                return handler(self, node, frame, env)
            return dynamic(frame.module.span(node), frame.module.code(node), evidence="expression not analysed")
        except RecursionError:
            m = frame.module
            return dynamic(m.span(node), m.code(node)[:200], evidence="too deeply nested to analyse")

    def _constant(self, node: ast.Constant, frame: Frame, env) -> Value:
        m = frame.module
        if isinstance(node.value, (str, bytes)):
            return self.string(node, frame)
        if node.value is Ellipsis:
            return dynamic(m.span(node), "...", evidence="expression not analysed")
        if isinstance(node.value, (bool, type(None))):
            return Text([Segment(text=str(node.value), span=m.span(node), truth=bool(node.value))])
        return Text([Segment(text=m.code(node), span=m.span(node))])

    def _name_node(self, node: ast.Name, frame: Frame, env) -> Value:
        m = frame.module
        v = self._name(node.id, node, frame, env)
        if v is not None:
            if (isinstance(v, Text) and len(v.segs) == 1 and not v.segs[0].is_static and v.segs[0].span is not None
                    and (v.segs[0].source is Source.PARAMETER or v.segs[0].evidence.startswith("the name"))):
                span = m.span(node)
                if v.segs[0].span.row < span.row and v.segs[0].origin is None:
                    # an unbound parameter: it enters the prompt here; the parameter is where it comes from
                    return Text([replace(v.segs[0], span=span, origin=v.segs[0].span)])
            return v
        span = m.span(node)
        if node.id == "__file__":
            return PathV(m.path)
        if node.id in m.imports:
            return Obj(m.imports[node.id], span=span, node=node)
        late = m.late_import(node.id, node)
        if late is not None:  # imported inside the function (`from pkg import mod` in a method)
            found = self.resolve_dotted(late, frame.depth)
            return found if found is not None else Obj(late, span=span, node=node)
        found = classify.classify_name(node.id)
        if found:
            kind, vol, prec, why = found
            return dynamic(span, node.id, kind, vol, why, precision=prec, name_only=True)
        return dynamic(span, node.id, evidence=f"`{node.id}` is not resolved")

    def _attribute(self, node: ast.Attribute, frame: Frame, env) -> Value:
        if isinstance(node.value, ast.Name) and node.value.id == "self" and node.attr in own_attrs(frame.func) \
                and not frame.module_level:
            # `self.prompt` read in the method that builds it (`= ""`, then `+=`): what it built so far
            th = (env if env is not None else self.env_at(frame, node)).get(own_key(node.attr))
            if th is not None:
                return self.force(frame, th)
        return self.attribute_of(self.eval(node.value, frame, env), node, frame)

    def attribute_of(self, base: Value, node: ast.Attribute, frame: Frame) -> Value:
        """The attribute `node.attr` of `base`, the value of `node.value`."""
        if per_caller_in(base):  # one value per caller: the attribute of each (per_option.py)
            return each_option(base, lambda o: self.attribute_of(o, node, frame))
        m = frame.module
        qual = m.qualified_name(node)
        v = self.attr_of(base, node.attr, node, frame)
        if v is not None:
            return v
        if qual in ("sys.platform", "os.name", "os.sep", "os.linesep"):
            return dynamic(m.span(node), m.code(node), Kind.UNKNOWN, Volatility.STABLE, "host description")
        if qual == "sys.stdin":
            return dynamic(m.span(node), m.code(node), Kind.USER_INPUT, Volatility.PER_REQUEST, "read from standard input")
        if (role := role_member(node)) is not None:  # `MessageRole.SYSTEM` of a library's enum: "system"
            return Text([Segment(text=role, span=m.span(node))])
        if isinstance(base, Mapping) and "role" in base.items and node.attr in base.items:
            return base.items[node.attr]  # a message read as an object (`messages[-1].content`)
        if classify.PROMPT_ATTR.search(node.attr) and unresolved(base):
            found = self.by_name(node.attr, frame.module.path, frame.depth)
            if found is not None:
                return found
        return self.derived(base, node, frame, m.code(node), attr=node.attr)

    def _await(self, node, frame, env) -> Value:
        return self.eval(node.value, frame, env)

    def _lambda(self, node, frame, env) -> Value:
        m = frame.module
        return dynamic(m.span(node), m.code(node), Kind.UNKNOWN, Volatility.STABLE, "a function")


#: The handler of each node type, (evaluator, node, frame, env): the Evaluator's methods, unwrapped.
_DISPATCH = {
    ast.Constant: Evaluator._constant,
    ast.JoinedStr: Evaluator.fstring,
    ast.Name: Evaluator._name_node,
    ast.Attribute: Evaluator._attribute,
    ast.List: Evaluator.sequence,
    ast.Tuple: Evaluator.sequence,
    ast.Set: Evaluator.sequence,
    ast.Dict: Evaluator.mapping,
    ast.BinOp: Evaluator._binop,
    ast.Call: Evaluator.call,
    ast.Subscript: Evaluator.subscript,
    ast.IfExp: Evaluator._ifexp,
    ast.BoolOp: Evaluator._boolop,
    ast.GeneratorExp: Evaluator.comprehension,
    ast.ListComp: Evaluator.comprehension,
    ast.SetComp: Evaluator.comprehension,
    ast.DictComp: Evaluator.comprehension,
    ast.Await: Evaluator._await,
    ast.NamedExpr: lambda ev, node, frame, env: ev.eval(node.value, frame, env),
    ast.Lambda: Evaluator._lambda,
}


def per_process(value: Value | None) -> Value | None:
    """Values computed at import are fixed per process: now() at module level is per-process."""
    if isinstance(value, Alt):
        return Alt([per_process(o) for o in value.options], value.span, value.fallback)
    if isinstance(value, Text):
        return Text([_fixed_at_import(s) for s in value.segs])
    if isinstance(value, PathV) and value.volatile is not None:  # `Path(tempfile.mkdtemp())` at import
        return PathV(value.path, _fixed_at_import(value.volatile))
    return value


def _fixed_at_import(s: Segment) -> Segment:
    """A clock reading or an id new on every call, made once at import: fixed per process."""
    if s.kind in (Kind.TIMESTAMP, Kind.UNIQUE_ID) and s.volatility is Volatility.PER_REQUEST and not s.name_only:
        return replace(s, volatility=Volatility.PER_PROCESS)
    return s


def unresolved(value) -> bool:
    """A receiver we know nothing about: an unresolved name or attribute, an external object."""
    if isinstance(value, Text):  # (a configuration known by its name only, `settings`, counts too)
        seg = value.segs[0] if len(value.segs) == 1 else None
        return seg is not None and seg.kind is Kind.UNKNOWN and (
            seg.volatility is Volatility.UNKNOWN or seg.volatility is Volatility.STABLE and seg.name_only)
    return isinstance(value, Obj) and not value.qualname.startswith(("self:", "instance:"))


def _element(value, index):
    """Element `index` of a tuple value (each branch of an Alt), or None when not known; a tuple
    `index` is a path of places into nested tuples (`(1, 0)`: the first item of the second)."""
    if isinstance(index, tuple):
        for at in index:
            value = _element(value, at) if value is not None else None
        return value
    if isinstance(value, Seq) and not value.repeated and -len(value.items) <= index < len(value.items) \
            and not any(isinstance(i, Spread) for i in value.items):
        return value.items[index]
    if isinstance(value, Alt):
        picked = [_element(o, index) for o in value.options]
        if picked and all(p is not None for p in picked):
            return Alt(picked, value.span)
    return None


__all__ = ["Evaluator", "Frame", "const_str", "per_process", "unresolved"]
