"""Parameters: the value of a function's parameter where the evaluator reads it (the Evaluator's
`param`, a mixin beside objects.py). The caller's argument when one is bound; in the prompt's own
frame, what its callers pass (callers.py), unless that says less than its name or type (a value
we cannot read for a parameter annotated as a class of the tree: `_says_less`); else what its
annotation says (a set, a message list, a class of the tree, an MCP session), what its name says
(a hint: Policy 7), a text default, or for an `__init__` parameter what the instance is built with
(the constructor calls of the tree).
"""
from __future__ import annotations

import ast

from ... import classify
from ...model import Kind, Volatility
from ..langchain_models import annotated_chat_model
from .budget import SPENT
from .callers import field_arguments
from .class_facts import message_list, unannotated
from .configured import built_with, init_parameter, own_instance as _own
from .frames import Frame, Thunk
from .hashing import annotated_set
from .mcp_clients import mcp_sdk_instance
from .objects import annotated_unordered, builtin_annotation, instance_class, unknown_only
from .stored_turns import stored_with_answer
from .values import Alt, ClassRef, Func, Obj, Text, Value, dynamic, handed_in


def _named_input(value, segs, name: str):
    """A caller's argument that we cannot read (`segs`, its text: only content of unknown kind and
    volatility, such as its own parameter `message` or a hook's result) passed to a parameter
    named as the user's message or content retrieved for this turn (`user_message`, `query`):
    the name says more than the unread value (a hint, Policy 7), as it does for the prompt's own
    parameters."""
    if not segs or any(s.is_static or s.kind not in (Kind.UNKNOWN, Kind.CONDITIONAL) for s in segs) or not unknown_only(segs):
        return value
    found = classify.classify_name(name)
    if found is None or found[0] is not Kind.USER_INPUT:
        return value
    first = next(s for s in segs if s.kind is Kind.UNKNOWN) if any(s.kind is Kind.UNKNOWN for s in segs) else segs[0]
    return dynamic(first.span, name, found[0], found[1], f"passed as {found[3]}", name_only=True,
                   each=_each_pass(segs) if found[1] is Volatility.PER_REQUEST else None)


def _each_pass(segs):
    """The loop (`Segment.each`) every dynamic segment of `segs` is a value of each pass of, or None."""
    found = {s.each for s in segs if not s.is_static}
    return found.pop() if len(found) == 1 else None


def _typed_model(frame: Frame, param) -> bool:
    """True when the parameter `param` is annotated as a LangChain chat model (`model: BaseChatModel`)."""
    ann = getattr(param, "annotation", None)
    return ann is not None and annotated_chat_model(frame.module, unannotated(ann)) is not None


def _objects(value) -> bool:
    """True when `value` is an object, or a choice with one among its options (a caller's model)."""
    return isinstance(value, Obj) or isinstance(value, Alt) and any(_objects(o) for o in value.options)


def _texts(value) -> bool:
    """True when `value` is text, or a choice between texts (what each caller passes)."""
    return isinstance(value, Text) or isinstance(value, Alt) and all(_texts(o) for o in value.options)


def _serving(self_value) -> ast.ClassDef | None:
    """The class of the instance a method reads (`self:Cls`, an instance built at a call), or None."""
    if isinstance(self_value, Obj) and self_value.args and isinstance(self_value.args[0], ClassRef):
        return self_value.args[0].node
    return None


def _class_receiver(func, param) -> bool:
    """True for the first parameter of a method decorated `@classmethod` (its `cls`)."""
    if func is None or not any(isinstance(d, ast.Name) and d.id == "classmethod" for d in func.decorator_list):
        return False
    first = [*func.args.posonlyargs, *func.args.args][:1]
    return bool(first) and first[0] is param


class ParamsMixin:
    """The Evaluator's reading of parameters (see the module docstring)."""

    def _says_less(self, found, frame: Frame, param, name: str) -> bool:
        """True when `found`, what the callers pass for the parameter `param`, says less than the
        parameter's name or type: a value we cannot read (of unknown volatility) of a parameter
        named for its content (`query`) or annotated as a chat model, or a text that holds nothing
        read (`parameter` of `for parameter in self.parameters`, of unknown kind:
        how often it changes at most) of a parameter annotated as a set or as a class of the tree
        (`variable: Variable`, whose attributes the class says: `variable.gradients` a set)."""
        segs = self.text_of(found, frame)
        if unknown_only(segs) and (classify.classify_name(name) or _typed_model(frame, param) and not _objects(found)):
            return True
        if not _texts(found) or not segs or any(s.is_static or s.kind is not Kind.UNKNOWN for s in segs):
            return False  # (an object, a dict or a list the callers build says what it holds)
        ann = unannotated(getattr(param, "annotation", None))
        return ann is not None and (annotated_set(ann) or not builtin_annotation(ann)
                                    and self._class_for_annotation(frame, ann) is not None)

    def param(self, frame: Frame, th: Thunk) -> Value:
        """The value of a parameter: the caller's argument when bound, else what its annotation
        or name says (a hint: Policy 7)."""
        name = th.name
        if name in frame.bindings:
            bound = frame.bindings[name]
            if isinstance(bound, Thunk):  # an argument, evaluated in the caller's frame on first use
                value = self.force(bound.value, bound)
                return _named_input(value, self.text_of(value, frame) if isinstance(value, (Text, Alt)) else [], name)
            return bound
        if name == "self" and frame.cls is not None:
            # (its class, with the module it is defined in: `self` handed to another module's code)
            return frame.self_value or Obj(f"self:{frame.cls.name}", args=[ClassRef(frame.module, frame.cls)],
                                           node=frame.cls)
        if frame.cls is not None and _class_receiver(frame.func, th.node):
            # `cls` of a `@classmethod` (`return cls(template_string=text)`): the class it is called on
            # (an instance's class; else the class that defines it)
            built = _serving(frame.self_value)
            return ClassRef(frame.self_value.args[0].module, built) if built is not None else ClassRef(frame.module, frame.cls)
        if (frame.depth == 0 or frame.hops is not None) and name not in ("self", "cls"):
            # the prompt's own frame, or a wrapper's caller that passes its own parameter: ask its callers
            from .callers import caller_arguments
            spent = not self.budget.following
            found = caller_arguments(self, frame, name)
            if found is not None and not self._says_less(found, frame, th.node, name):
                return found
            each = _each_pass(self.text_of(found, frame)) if found is not None else None
        else:
            spent = False
            each = None
        m = frame.module
        captured = self.defaults(Func(m, frame.func, frame.cls)).get(name) if frame.func is not None else None
        if captured is not None and captured.kind == "bound":
            return self.force(captured.value, captured)  # `def score(*, keys=keys)`: the enclosing function's `keys`
        param: ast.arg = th.node
        ann = unannotated(param.annotation)  # (`Annotated[Calendar, Depends(...)]`: a `Calendar`)
        if annotated_set(ann):
            return annotated_unordered(m, param, f"the parameter `{name}`", handed=name)
        if message_list(ann):  # `log: list[Message]`: the conversation, whatever its name
            return dynamic(m.span(param), name, Kind.HISTORY, Volatility.UNKNOWN, f"the parameter `{name}`", **handed_in(name))
        if ann is not None and not builtin_annotation(ann):
            cls = self._class_for_annotation(frame, ann)
            if cls is not None:
                return Obj(f"instance:{cls.node.name}", node=cls.node, args=[ClassRef(cls.module, cls.node)])
        if ann is not None and (sdk := mcp_sdk_instance(m, ann)) is not None:
            return sdk  # `session: ClientSession`: an MCP client session handed in
        if ann is not None and (model := annotated_chat_model(m, ann)) is not None:
            return Obj(model, span=m.span(param), node=param)  # `model: BaseChatModel`: a LangChain chat model handed in
        found = classify.classify_name(name)
        span = m.span(param)
        if found:
            kind, vol, prec, why = found
            known = self._known_default(frame, name, kind)
            if known is not None:
                return known  # `current_time=STAMP`: what the default holds says more than the name
            # (the callers' element of a loop, read by the name: still a value of each pass, loop_values.py)
            return dynamic(span, name, kind, vol, why, precision=prec, name_only=True,
                           each=each if vol is Volatility.PER_REQUEST else None)
        if name.lower() in classify.HISTORY_NAMES:
            return dynamic(span, name, Kind.HISTORY, Volatility.UNKNOWN, f"the parameter `{name}`", **handed_in(name))
        if frame.func is not None and stored_with_answer(frame.func, name):
            return dynamic(span, name, Kind.USER_INPUT, Volatility.PER_REQUEST,
                           f"the parameter `{name}`, kept with the answer to it as the newest turn", **handed_in(name))
        default = self._text_default(frame, name)
        if frame.func is not None and frame.func.name == "__init__" and _own(frame.self_value):
            # (a `**kwargs` of `__init__` defaults to no entry: the options the instance is built with)
            configured = init_parameter(frame, param, self.defaults(Func(m, frame.func)).get(name) is not None
                                        or param is frame.func.args.kwarg)
            if configured is not None:  # `def __init__(self, prompt=None)`: what the instance is built with,
                # unless the constructor calls of the tree pass it (`Prompt(context=docs)` per request);
                # a text default (`system_prompt: str = SYSTEM_PROMPT`) is one of the values it may take
                built = configured if default is None else Alt([configured, default], fallback=True)
                given = self._init_arguments(frame, name, lambda: built if default is None else default)
                return built if given is None else given
            built = None if self.defaults(Func(m, frame.func)).get(name) is not None else \
                built_with(frame, param, _serving(frame.self_value))
            if built is not None:  # `def __init__(self, llm, intents)` of a classifier: what it is built with,
                # unless the constructor calls of the tree pass it
                given = self._init_arguments(frame, name, lambda: built)
                return built if given is None else given
        unread = dynamic(span, name, Kind.UNKNOWN, Volatility.UNKNOWN,
                         f"the parameter `{name}` (its callers {SPENT})" if spent else f"the parameter `{name}`",
                         **handed_in(name))
        # `def __init__(self, system_prompt: str = SYSTEM_PROMPT)` that no caller of the tree is
        # known to pass: what a caller gives, or its default, one per caller (as `x or DEFAULT`)
        return unread if default is None else Alt([unread, default], fallback=True)

    def _init_arguments(self, frame: Frame, name: str, default):
        """What the constructor calls of the instance's class pass for parameter `name` of the
        `__init__` of `frame` (`callers.field_arguments`), or None. The instance of a subclass
        is built by the subclass's calls; one whose class defines an `__init__` of its own
        (that calls this one with arguments of its own) by no call that passes this one's."""
        module, cls = instance_class(frame.module, frame.cls, frame.self_value)
        own = self.init_of(ClassRef(module, cls))
        if own is None or own.node is not frame.func:
            return None
        return field_arguments(self, module, cls, name, default)

    def _default_value(self, frame: Frame, name: str) -> Value | None:
        """The value of the default of parameter `name` of the frame's function (evaluated once,
        at import), or None when it has none or its default is `None`."""
        if frame.func is None:
            return None
        th = self.defaults(Func(frame.module, frame.func)).get(name)
        if th is None or isinstance(th.node, ast.Constant) and th.node.value is None:
            return None
        return self.force(th.value, th)

    def _text_default(self, frame: Frame, name: str) -> Value | None:
        """The default of parameter `name` of the frame's function when it is text with some
        static text (`system_prompt: str = SYSTEM_PROMPT`, `sep: str = ", "`), else None (no
        default, `None`, a list, an object)."""
        value = self._default_value(frame, name)
        if not isinstance(value, Text) or not any(s.is_static and s.text for s in value.segs):
            return None
        return value

    def _known_default(self, frame: Frame, name: str, kind: Kind) -> Value | None:
        """The default of parameter `name` (evaluated at import: per process) when it is a value of
        `kind` known from the code, not from a name (`current_time=TIME_AT_IMPORT`), else None."""
        value = self._default_value(frame, name)
        if value is None:
            return None
        segs = self.text_of(value, frame) if isinstance(value, (Text, Alt)) else []
        return value if any(s.kind is kind and not s.name_only for s in segs) else None
