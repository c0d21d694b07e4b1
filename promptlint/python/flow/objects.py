"""Objects: attributes of instances and classes of the analysed tree, and prompt attributes found
by name (parameters: params.py).

`obj.attr` for an instance of a class of the tree is its method, a property's return value, a class
attribute, or the value assigned to `self.attr` in its methods (in `__init__`: set once per
instance). A list on the instance grown turn after turn (`self.messages.append(...)`) is the
replayed conversation.
"""
from __future__ import annotations

import ast
from ...model import replace

from ...model import Kind, Volatility
from ..module import attribute_chain, is_static_method
from . import builders
from .callers import field_arguments
from .class_facts import (attrs_factory, changed_by_methods, declares, grown,
                          grown_at_setup, held_writes, holds_conversation, members_named, none_default,
                          required_field, self_annotation, self_assigns, setup_methods, stepped, walk_statements)
from .class_facts import optional_of
from .configured import configured_field, own_instance as _own, serves_calls
from ..langchain_models import annotated_chat_model
from .mcp_clients import mcp_sdk_instance
from .narrowed import declaring_subclass
from .hashing import NUMBER, annotated_set, set_annotation
from .frames import Frame, Thunk
from .grown_fields import grown_field
from .keyed_attrs import written
from .setup_values import setup_grown
from .values import Alt, ClassRef, Func, Mapping, Obj, PathV, Text, Value, dynamic, handed_in, most_volatile

#: The evidence of an instance list appended to in a method: it grows across the calls of a
#: conversation (replayed as history where a send call reads it); by itself not proof that it is one.
GROWN = "grows across turns"

_PROPERTY = ("property", "cached_property", "functools.cached_property")
MAX_ASSIGNS = 6  # `self.attr = ...` statements read for one attribute (more: one of them unknown)
_BUILTIN_TYPES = {"str", "int", "float", "bool", "bytes", "list", "dict", "tuple", "set", "Any", "object",
                  "Optional", "List", "Dict", "Sequence", "Iterable", "Mapping", "Path", "Callable", "None"}
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def decorator_name(d: ast.AST) -> str:
    """The dotted name of a decorator (`@app.route(...)` -> "app.route")."""
    return ".".join(attribute_chain(d.func if isinstance(d, ast.Call) else d))


def per_instance(value):
    """A value computed once when an object is made: a uuid or a clock reading then identifies
    the instance (a conversation, a session), it does not change per request (in each branch:
    `name or random.choice(NAMES)`)."""
    if isinstance(value, Alt):
        return Alt([per_instance(o) for o in value.options], value.span, value.fallback)
    if isinstance(value, Text):
        return Text([replace(s, volatility=Volatility.PER_CONVERSATION,
                             evidence=(s.evidence + " (set once per instance)") if s.evidence else "set once per instance")
                     if s.kind in (Kind.TIMESTAMP, Kind.UNIQUE_ID) and s.volatility is Volatility.PER_REQUEST
                     and not s.name_only else s for s in value.segs])
    return value


def annotated_unordered(module, ann: ast.AST, what: str, handed: str = "") -> Text:
    """The value of something annotated as a set (`hashing.annotated_set`): a source whose
    iteration order differs between processes, produced at the annotation `ann`; `what` names
    it for the evidence ("the parameter `tags`", "`Task.depends_on`"); `handed`, the name of the
    parameter it is when it is one (`Segment.source`)."""
    return dynamic(module.span(ann), what.removeprefix("the parameter ").strip("`"), Kind.UNORDERED_ITERATION,
                   Volatility.PER_PROCESS,
                   f"{what} is annotated `{module.code(ann)}`: iteration order depends on the hash seed",
                   **(handed_in(handed) if handed else {}))


def _sorted_call(node) -> bool:
    """True for `sorted(...)`: a list in a fixed order, whatever the annotation says."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "sorted"


def unknown_only(segs) -> bool:
    """True when nothing in the text says how often it changes (its most volatile part is of
    unknown volatility)."""
    src = most_volatile(segs)
    return src is not None and src.volatility is Volatility.UNKNOWN and src.kind is not Kind.HISTORY



def _instances(value) -> bool:
    """An instance of a class of the tree, or one of several of them."""
    if isinstance(value, Alt):
        return all(_instances(o) for o in value.options)
    return isinstance(value, Obj) and value.qualname.startswith("instance:")


def _filled_later(value) -> bool:
    """True for an empty list or dict display (`step_results=[]`): a container a record is built
    with to be filled afterwards, not its content."""
    from .values import Mapping, Seq
    return isinstance(value, (Seq, Mapping)) and not value.items and not getattr(value, "repeated", False)


def _unbuilt(self_value) -> bool:
    """True for the instance a method's own frame reads (`self:Cls`, or none): its construction
    is not in view, so its fields hold what the class's constructor calls pass."""
    return self_value is None or isinstance(self_value, Obj) and self_value.qualname.startswith("self:")


def _handed_in(self_value) -> bool:
    """True for the instance a method's own frame reads, or an instance handed in as a parameter
    annotated with its class (`request: CompletionRequest`: built by no call we read). A field
    with a default keeps its default reading there (whoever built the instance may have left it
    out); a required field can only hold what a constructor call passed."""
    return _unbuilt(self_value) or isinstance(self_value, Obj) and self_value.qualname.startswith("instance:") \
        and self_value.span is None and not self_value.kwargs



def instance_class(module, c: ast.ClassDef, self_value) -> tuple:
    """(module, class) of the instance a method reads: its own class (`self:DuckAgent` reading
    a field its base `Agent` declares is built by `DuckAgent(...)` calls, never by `Agent(...)`
    ones), else `c` (with its `module`)."""
    if isinstance(self_value, Obj) and self_value.args and isinstance(self_value.args[0], ClassRef):
        return self_value.args[0].module, self_value.args[0].node
    return module, c


def builtin_annotation(ann) -> bool:
    node = ann.value if isinstance(ann, ast.Subscript) else ann
    return isinstance(node, ast.Name) and node.id in _BUILTIN_TYPES or isinstance(ann, (ast.Subscript, ast.BinOp))


class ObjectsMixin:
    """Attribute and parameter resolution of the Evaluator."""

    def attr_of(self, base: Value | None, attr: str, node, frame: Frame) -> Value | None:
        if isinstance(base, Alt) and _instances(base):
            # one of several instances of the tree's classes (an element of a list of results):
            # the attribute of each
            found = [self.attr_of(o, attr, node, frame) for o in base.options]
            if not found or any(f is None for f in found):
                return None
            return found[0] if len(found) == 1 else Alt(found, base.span, base.fallback)
        if isinstance(base, PathV):
            if attr == "parent":
                return PathV(base.path.parent if base.path else None, base.volatile)
            if attr in ("stem", "name", "suffix"):
                if base.path is None and base.volatile is not None:
                    return Text([base.volatile])
                if base.path is None:  # a part of a path not known statically: unknown, as the path is
                    m = frame.module
                    return dynamic(m.span(node), m.code(node), Kind.UNKNOWN, Volatility.STABLE,
                                   "a part of a path not known statically")
                return Text([self._static_segment(str(getattr(base.path, attr)))])
            return None
        if isinstance(base, Obj) and frame.cls is not None and isinstance(node, ast.Attribute) \
                and isinstance(node.value, ast.Attribute) and (node.value.attr, attr) in held_writes(frame.cls) \
                and isinstance(node.value.value, ast.Name) and node.value.value.id == "self":
            # `self._state.task`: a field of a record the instance holds, set by this class's methods
            return dynamic(frame.module.span(node), frame.module.code(node), evidence=f"set by the methods of `{frame.cls.name}`")
        if isinstance(base, Obj) and base.state is not None and (found := builders.member(self, base, attr, frame)):
            return found  # a container of a prompt builder whose sections the code added
        if isinstance(base, Obj) and base.qualname.startswith(("self:", "instance:")):
            module = frame.module
            if base.args and isinstance(base.args[0], ClassRef):
                module = base.args[0].module
                if attr in base.kwargs and base.qualname.startswith("instance:") \
                        and self.init_of(base.args[0]) is None and declares(base.node, attr) \
                        and not _filled_later(base.kwargs[attr]) \
                        and not any(changed_by_methods(c, attr) for _, c in self.mro(module, base.node)):
                    # a record built with its fields (`Result(context=text, raw=data)`, a dataclass,
                    # a pydantic model) that none of its methods sets again: the field holds what
                    # the constructor was given (not an empty list it is built with to be filled:
                    # `PlanResult(step_results=[])`)
                    return base.kwargs[attr]
            found = self.member(module, base.node, attr, base, frame.depth)
            if found is None and base.qualname.startswith("instance:") and isinstance(base.node, ast.ClassDef):
                # an instance known by its base class (`config: StrategyConfig`) read for a field
                # only a subclass has: that subclass's field (flow/narrowed.py)
                sub = declaring_subclass(self, module, base.node, attr, frame.module)
                if sub is not None:
                    inst = Obj(f"instance:{sub[1].name}", node=sub[1], args=[ClassRef(*sub)])
                    found = self.member(sub[0], sub[1], attr, inst, frame.depth)
            return found
        if isinstance(base, ClassRef):
            return self.member(base.module, base.node, attr, None, frame.depth)
        if isinstance(base, Obj) and attr in base.kwargs:
            return base.kwargs[attr]
        if isinstance(base, Obj) and isinstance(base.node, ast.Name):  # an imported module: `prompts.SYSTEM`
            dotted = f"{base.qualname}.{attr}"
            found = self.resolve_dotted(dotted, frame.depth)
            if found is None and self.project.find(dotted) is not None:  # a submodule: `pkg.mod.NAME`
                found = Obj(dotted, span=base.span, node=base.node)
            return found
        return None

    @staticmethod
    def _static_segment(text: str):
        from ...model import Segment
        return Segment(text=text)

    def member(self, module, cls: ast.ClassDef, attr: str, self_value, depth: int) -> Value | None:
        """`obj.attr` for an instance of a class of the tree (see the module docstring); cached,
        and unknown while it is being computed (an attribute defined from itself)."""
        key = ("member", id(cls), attr, id(self_value))
        if key in self._return_cache:
            return self._return_cache[key]
        self._return_cache[key] = dynamic(None, f"self.{attr}", evidence="defined from itself")
        found = self._member(module, cls, attr, self_value, depth)
        self._return_cache[key] = found
        return found

    def know_member(self, obj: Obj, attr: str, value: Value) -> None:
        """Record what `obj.attr` holds for one instance of a class of the tree, known from where
        the instance is set up rather than from the class (`kept_conversations.setup_text`: the
        system text a keeper of a conversation was made with): `member` answers it for the rest
        of the file's analysis."""
        self._return_cache[("member", id(obj.node), attr, id(obj))] = value

    def _member(self, module, cls: ast.ClassDef, attr: str, self_value, depth: int) -> Value | None:
        for cls_module, c in self.mro(module, cls):
            found = self._class_member(cls_module, c, attr, self_value, depth)
            if found is not None and not grown_field(found, c, attr):  # (`messages: list = []` its methods grow)
                return written(self, cls_module, c, attr, found, self_value, depth)
            assigns = self_assigns(c, attr)
            if grown(c, attr) and not self._holds_records(cls_module, self_annotation(c, attr)) \
                    and (holds_conversation(c, attr) or not grown_at_setup(c, attr)):
                node = assigns[0][1] if assigns else c
                return dynamic(cls_module.span(node), f"self.{attr}", Kind.HISTORY, Volatility.UNKNOWN,
                               f"`self.{attr}` {GROWN}", unconfirmed=not holds_conversation(c, attr))
            if stepped(c, attr):  # `self.iteration += 1`: none of the values it is assigned, but a count
                node = assigns[0][1] if assigns else c
                return dynamic(cls_module.span(node), f"self.{attr}", Kind.UNKNOWN, Volatility.UNKNOWN,
                               f"`self.{attr}`: a counter its methods step (`+=`)")
            if not assigns:
                typed = self._annotated_instance(cls_module, c, attr, None) if declares(c, attr) else None
                if typed is not None:
                    return typed  # `flow: "Flow" = Field(description=...)`: each instance is given a Flow
                continue
            values = []
            for method, value_node in assigns[:MAX_ASSIGNS]:
                frame = self._method_frame(cls_module, c, method, self_value, depth + 1)
                value = self.eval(value_node, frame)
                if grown_at_setup(c, attr):  # (`_member`: then not the conversation)
                    value = setup_grown(self, cls_module, c, attr, value, self_value, depth)
                value = written(self, cls_module, c, attr, value, self_value, depth)  # `self.params["k"] = v` later
                values.append(per_instance(value) if method.name in setup_methods(c) else value)
            ann = self_annotation(c, attr)
            if annotated_set(ann) and all(self._unread_order(v, frame) for v in values) \
                    and not any(_sorted_call(v) for _, v in assigns):
                # `self.memories: set[str] = store.load()`: the type says what the value does not
                return annotated_unordered(cls_module, ann, f"`self.{attr}`")
            if len(assigns) > MAX_ASSIGNS:
                values.append(dynamic(cls_module.span(c), f"self.{attr}", evidence=f"`self.{attr}` is assigned in many places"))
            typed = self._annotated_instance(cls_module, c, attr, ann)
            if typed is not None and all(unknown_only(self.text_of(v, frame)) and not isinstance(v, Obj) for v in values):
                return typed  # `agent: Optional[Agent]` set from what we cannot read: an Agent, as a parameter
            sdk = mcp_sdk_instance(cls_module, ann) if ann is not None else None
            if sdk is not None and not any(isinstance(v, Obj) for v in values):
                values.append(sdk)  # `self.session: ClientSession | None = None`, opened where we cannot see
            return values[0] if len(values) == 1 else Alt(values, cls_module.span(assigns[0][1]))
        return self._configured(module, cls, attr, self_value)

    def _configured(self, module, cls: ast.ClassDef, attr: str, self_value) -> Value | None:
        """`self.attr` as configuration (`configured.configured_field`) when no class of the MRO
        assigns or grows it in a method, read by the class's own methods or of an instance built
        at a call we read; else None (an instance handed in as a parameter, `reply: Reply`, holds
        what its maker gave it: a message, a record of this request)."""
        if not _own(self_value):
            return None
        mro = list(self.mro(module, cls))
        if any(changed_by_methods(c, attr) for _, c in mro):
            return None
        serving = any(serves_calls(c) for _, c in mro)
        return next((f for f in (configured_field(m, c, attr, serving) for m, c in mro) if f is not None), None)

    def _holds_records(self, module, ann) -> bool:
        """True for the annotation of a list whose items are instances of a class of the tree
        that has no `role` (`self.events: List[Event] = []`): records of something else, not
        the messages of a conversation, whatever the list is named."""
        if not (isinstance(ann, ast.Subscript) and isinstance(ann.value, (ast.Name, ast.Attribute))):
            return False
        item = optional_of(ann.slice)
        if not isinstance(item, (ast.Name, ast.Attribute)):
            return False
        ref = self.eval(item, self.module_frame(module), {})
        if not isinstance(ref, ClassRef):
            return False
        return not any(declares(c, "role") or self_assigns(c, "role") for _, c in self.mro(ref.module, ref.node))

    def _annotated_instance(self, module, c: ast.ClassDef, attr: str, ann) -> Obj | None:
        """An instance of the class of the tree that the attribute's annotation names (the field
        `agent: Optional[Agent] = None`, or `self.agent: Agent = ...`), its construction unknown
        (so its fields read their class defaults, as for an annotated parameter), or None."""
        if ann is None:
            ann = next((s.annotation for s in c.body if isinstance(s, ast.AnnAssign)
                        and isinstance(s.target, ast.Name) and s.target.id == attr), None)
        model = annotated_chat_model(module, ann) if ann is not None else None
        if model is not None:  # `llm: BaseChatModel`, `self.model: Optional[ChatOpenAI] = None`: a LangChain chat model
            return Obj(model, span=module.span(ann), node=ann)
        ann = optional_of(ann)
        if ann is None or builtin_annotation(ann):
            return None
        found = self._class_for_annotation(Frame(module=module, cls=c, module_level=True), ann)
        if found is None:
            return None
        return Obj(f"instance:{found.node.name}", node=found.node, args=[ClassRef(found.module, found.node)])

    def _method_frame(self, module, c: ast.ClassDef, method, self_value, depth: int) -> Frame:
        """The frame of a method that assigns `self.ATTR` (`__init__` with the instance's keyword
        arguments bound), one per (method, instance, depth) in the analysis of one file: a method
        that sets ten attributes is read once, not once per attribute asked for."""
        key = ("method frame", id(method), id(self_value), depth)
        frame = self._return_cache.get(key)
        if frame is None or frame.module is not module or frame.cls is not c:
            bindings = dict(self_value.kwargs) if method.name == "__init__" and isinstance(self_value, Obj) else {}
            frame = self._return_cache[key] = Frame(module=module, func=method, cls=c, self_value=self_value,
                                                    depth=depth, bindings=bindings)
        return frame

    def _class_member(self, module, c: ast.ClassDef, attr: str, self_value, depth: int) -> Value | None:
        for stmt in members_named(c, attr):
            if isinstance(stmt, _FUNCS) and stmt.name == attr:
                fn = Func(module, stmt, c, self_value)
                if any(decorator_name(d) in _PROPERTY for d in stmt.decorator_list):
                    return self.call_function(fn, {}, depth + 1, None)
                return fn
            targets, value = [], None
            built = instance_class(module, c, self_value)
            if required_field(stmt, attr) and _handed_in(self_value) and self.init_of(ClassRef(*built)) is None \
                    and not any(changed_by_methods(k, attr) for _, k in self.mro(*built)):
                # a required field of a record (`payload: dict` of a pydantic model or dataclass) of
                # an instance built elsewhere: what its constructor calls pass (`Request(payload=args)`)
                given = field_arguments(self, *built, attr, lambda: dynamic(module.span(stmt), f"self.{attr}"))
                if given is not None:
                    return given
            if isinstance(stmt, ast.Assign):
                targets, value = stmt.targets, stmt.value
            elif isinstance(stmt, ast.AnnAssign):
                if isinstance(stmt.target, ast.Name) and stmt.target.id == attr and annotated_set(stmt.annotation):
                    # a field typed as a set: whatever each instance holds, it iterates in hash order
                    return annotated_unordered(module, stmt.annotation, f"`{c.name}.{attr}`")
                if stmt.value is not None:
                    targets, value = [stmt.target], stmt.value
                    if set_annotation(stmt.annotation) == NUMBER and isinstance(stmt.target, ast.Name) \
                            and stmt.target.id == attr:  # `ids: set[int] = field(default_factory=set)`
                        return dynamic(module.span(stmt.annotation), attr, evidence=(
                            f"a set of numbers (`{module.code(stmt.annotation)}`): the same order in every process"))
            if any(isinstance(t, ast.Name) and t.id == attr for t in targets):
                frame = Frame(module=module, cls=c, module_level=True, depth=depth + 1)
                if _unbuilt(self_value) and isinstance(stmt, ast.AnnAssign):  # an instance built elsewhere
                    given = field_arguments(self, *built, attr, lambda: (
                        (self._configured(module, c, attr, self_value) or dynamic(module.span(stmt), f"self.{attr}"))
                        if none_default(value)
                        else self._field_default(value, frame, self_value)))
                    if given is not None:
                        return given  # `Config(doc_schema=agent.schema())`: what its constructors pass
                if none_default(value):
                    return None  # `url: str | None = None`: each instance sets it (or the methods do)
                return self._field_default(value, frame, self_value)
        return None

    def _field_default(self, node, frame: Frame, self_value=None) -> Value:
        """A class attribute's value; of a dataclass / pydantic / attrs field (`field(default=...)`,
        `Field(default_factory=...)`, attrs' `field(factory=...)`, `field(default=Factory(f))`, or
        `Factory(f)` itself, pydantic's `PrivateAttr(default=...)`), its default, and a uuid or clock reading its factory makes
        for each new instance identifies that instance (per conversation); a factory that makes a
        set (`default_factory=set`) gives a value in hash order, and one that builds an object
        (`Factory(lambda self: Environment(loader=...), takes_self=True)`: `self` is the instance),
        that object."""
        name = (frame.module.qualified_name(node.func) or "") if isinstance(node, ast.Call) else ""
        short = name.rsplit(".", 1)[-1]
        if short not in ("Field", "field", "ib", "attrib", "Factory", "PrivateAttr"):
            return self.eval(node, frame, {})
        kw = {k.arg: k.value for k in node.keywords if k.arg is not None}
        factory, takes_self = attrs_factory(frame.module, node)
        if factory is None:
            factory = kw.get("default_factory")
        if factory is not None:  # what calling the factory gives: a lambda's body, or a call of it
            made = factory.body if isinstance(factory, ast.Lambda) else ast.copy_location(ast.Call(factory, [], []), factory)
            env = {}
            if takes_self and isinstance(factory, ast.Lambda) and factory.args.args and self_value is not None:
                env = {factory.args.args[0].arg: Thunk("value", value=self_value)}
            value = self.eval(made, frame, env)
            src = most_volatile(self.text_of(value, frame))
            if src is not None and src.kind in (Kind.UNIQUE_ID, Kind.TIMESTAMP):
                made = " (default of each new instance)"
                return Text([replace(src, volatility=Volatility.PER_CONVERSATION,
                                     evidence=src.evidence if src.evidence.endswith(made) else src.evidence + made)])
            if src is not None and src.kind is Kind.UNORDERED_ITERATION:  # `default_factory=set`
                return Text([src])
            if isinstance(value, Obj) and (value.args or value.kwargs) and short != "Field":
                return value  # an object the factory builds (`Environment(loader=...)`)
        if "default" in kw:
            return self.eval(kw["default"], frame, {})
        if short == "PrivateAttr" and node.args and not (isinstance(node.args[0], ast.Constant) and node.args[0].value is Ellipsis):
            return self.eval(node.args[0], frame, {})  # `PrivateAttr("x")`: its first argument is the default
        return self.eval(node, frame, {})

    def mro(self, module, cls: ast.ClassDef):
        """(module, class) of `cls` and its bases of the analysed tree, depth first (a generic base
        `Base[T]` is `Base`), an iterator. Walked lazily (a base is read only when the walk gets
        to it); a whole walk whose every base was read from `_base_class`'s kept readings is kept
        too (`_return_cache`, for the file's analysis) and given again: it is what a walk reading
        those same kept readings gives, and such a walk reads nothing else (no evaluation)."""
        key = ("mro", id(cls), id(module))
        known = self._return_cache.get(key)
        if known is not None and known[0] is cls and known[1] is module:
            return iter(known[2])
        return self._mro_kept(module, cls, key)

    def _mro_kept(self, module, cls: ast.ClassDef, key):
        out: list = []
        settled = [True]
        for pair in self._mro_walk(module, cls, set(), settled):
            out.append(pair)
            yield pair
        if settled[0]:
            self._return_cache[key] = (cls, module, tuple(out))

    def _mro_walk(self, module, cls: ast.ClassDef, seen: set, settled: list):
        """`mro`'s walk; `settled[0]` set False when a base is read that `_base_class` did not keep."""
        if id(cls) in seen or len(seen) > 8:
            return
        seen.add(id(cls))
        yield module, cls
        for base in cls.bases:
            if isinstance(base, ast.Subscript):  # a generic base: `AugmentedLLM[MessageParam, Message]`
                base = base.value
            v = self._base_class(module, base)
            if settled[0] and isinstance(base, (ast.Name, ast.Attribute)):
                kept = self._return_cache.get(("base class", id(base)))
                settled[0] = kept is not None and kept[0] is base
            if v is not None:
                yield from self._mro_walk(v.module, v.node, seen, settled)

    def _base_class(self, module, base: ast.expr) -> ClassRef | None:
        """The class of the analysed tree that a base of a class statement names, or None: read
        (in the module's frame, at import) once in the analysis of a file, not once per walk of
        the bases (every attribute of an instance looked up walks them)."""
        key = ("base class", id(base))
        known = self._return_cache.get(key)
        if known is not None and known[0] is base:
            return known[1]
        v = self.eval(base, self.module_frame(module), {}) if isinstance(base, (ast.Name, ast.Attribute)) else None
        found = v if isinstance(v, ClassRef) else None
        if not self.budget.exhausted:  # (a reading the prompt's budget cut short is not kept)
            self._return_cache[key] = (base, found)
        return found

    def _class_for_annotation(self, frame: Frame, ann) -> ClassRef | None:
        if isinstance(ann, (ast.Name, ast.Attribute)):
            v = self.eval(ann, frame)
            if isinstance(v, ClassRef):
                return v
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str) and ann.value in frame.module.classes:
            return ClassRef(frame.module, frame.module.classes[ann.value])
        return None

    # ---------------------------------------------------------------- by name
    def by_name(self, name: str, near, depth: int = 0) -> Value | None:
        """The prompt text an attribute of an object we cannot resolve stands for, found by its
        name: the class attributes and module constants of that name in the analysed tree that
        are strings (one of them, when several: an Alt). None when there are none."""
        from .values import Alt
        key = ("by_name", name, near.parent)
        if key in self._return_cache:
            return self._return_cache[key]
        self._return_cache[key] = None
        values = []
        for module, cls, node in self.project.definitions(name, near):
            if isinstance(node, ast.Constant) and node.value in (None, True, False):
                continue
            frame = Frame(module=module, cls=cls, module_level=True, depth=depth + 1)
            value = self.eval(node, frame, {})
            if isinstance(value, Text) and any(s.is_static and s.text.strip() for s in value.segs):
                values.append(value)
        result = None if not values else (values[0] if len(values) == 1 else Alt(values))
        self._return_cache[key] = result
        return result


__all__ = ["ObjectsMixin", "decorator_name", "is_static_method", "walk_statements", "Mapping"]
