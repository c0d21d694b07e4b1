"""Values chosen by configuration: the same for every request a process serves (docs/policies.md,
Policy 7), told from the code, not from names.

- A field of a class of the tree declared in its body with the default None (`description:
  Optional[str] = None`, `x: str = Field(default=None)`) that no method of the class or its bases
  assigns or grows, and no statement of its module writes (`agent.description = ...`): each
  instance is given it when it is built, or keeps the default (`configured_field`). A required
  field (no default: `Field(...)`) is not: each caller gives it, as it likes; unless it holds
  something structured (`plugins: List[BaseTool]`, not text) in a class whose methods take input
  of their own (`run(self, instruction)`): what an agent is built with, fixed for its requests
  (`built_field`).
- A parameter of `__init__` with a default (`def __init__(self, prompt=None)`): the value an
  instance is built with (`init_parameter`); a required one likewise when the class's methods
  take input of their own, so one instance serves many calls (`built_with`).
- A condition of an `if` that reads only such values (`if self.markdown:`, `if not
  self.add_datetime_to_instructions:`, `if self.task is not None and USE_TASKS:`), or a
  parameter typed as a `Literal` of constants (the request's kind, `kind_parameter`): the text it
  adds is fixed text for a given configuration or kind (`configured_test`); so is what a
  function returns when only such tests choose its `return` (`configured_returns`).

A name that says more (`user_id`, `query`, `messages`) keeps what the name says: those values
are not cleared here (Policy 7: the name is then the only evidence, and it is kept).
"""
from __future__ import annotations

import ast

from ... import classify
from ...model import Kind, Volatility
from .class_members import members_named
from .values import Alt, ClassRef, Config, Func, Mapping, Obj, PathV, Seq, Spread, Text, dynamic, handed_in
from ..walk import block_statements, statements, subtree

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


def read_from_configured(src, attr: str | None, span, expr: str):
    """`self.agent.current_time` read off a configured field (`src`: its stable segment, evidence
    ending with MARK): the field is what the instance was built with, not what the object it holds
    keeps in its attributes; an attribute whose name says it changes (a time, an id, the user's
    message: `classify.classify_name`) keeps what the name says. None otherwise."""
    if attr is None or src.volatility is not Volatility.STABLE or not src.evidence.endswith(MARK):
        return None
    found = classify.classify_name(attr)
    if not found:
        return None
    kind, vol, prec, why = found
    return dynamic(span, expr, kind, vol, why, precision=prec, name_only=True)


def same_attribute(attr: str, value) -> bool:
    """True for a value that is `self.attr` itself, or `cast(T, self.attr)` (typing's cast
    returns its argument): `self.llm = cast(LLM, self.llm)` sets nothing new."""
    if isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)) and len(value.args) == 2 \
            and (value.func.id if isinstance(value.func, ast.Name) else value.func.attr) == "cast":
        value = value.args[1]
    return isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == "self" \
        and value.attr == attr


def own_instance(self_value) -> bool:
    """True for the instance a class's own methods read (`self`), or one built at a call we read;
    False for an instance handed in as a parameter or a field (`reply: Reply`): its maker is not
    in view, and it may hold a record of this request."""
    return self_value is None or isinstance(self_value, Obj) and (
        self_value.qualname.startswith("self:") or self_value.span is not None)


def none_field(cls: ast.ClassDef, attr: str) -> ast.stmt | None:
    """The class-body statement declaring `attr` with the default None (`attr = None`, `attr: T =
    None`, `attr: T = Field(default=None)` / `field(default=None)`), or None. Reads the first
    assignment or annotation of `attr` in the body (`members_named`: the body's index)."""
    for stmt in members_named(cls, attr):
        if isinstance(stmt, (ast.AnnAssign, ast.Assign)):
            value = stmt.value
        else:
            continue
        if isinstance(value, ast.Constant) and value.value is None:
            return stmt
        if isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)) \
                and (value.func.id if isinstance(value.func, ast.Name) else value.func.attr) in ("Field", "field", "PrivateAttr"):
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
    for child in block_statements(node):  # (what assigns or deletes, and what defines a function, is a statement)
        if isinstance(child, _FUNCS):
            made = {t.id for n in statements(child) if isinstance(n, ast.Assign) for t in n.targets
                    if isinstance(t, ast.Name)}
            _writes(child, in_init or child.name in _INIT, made, out)
            continue
        if not in_init:
            targets = child.targets if isinstance(child, (ast.Assign, ast.Delete)) else \
                [child.target] if isinstance(child, ast.AugAssign) or \
                isinstance(child, ast.AnnAssign) and child.value is not None else []
            for t in targets:
                for sub in subtree(t):
                    if isinstance(sub, ast.Attribute) and isinstance(sub.ctx, (ast.Store, ast.Del)) \
                            and not (isinstance(sub.value, ast.Name) and sub.value.id in local) \
                            and not _normalised(sub, getattr(child, "value", None)):
                        out.add(sub.attr)
        _writes(child, in_init, local, out)


def _normalised(target: ast.Attribute, value) -> bool:
    """True for `self.attr` written with a call given only that same attribute and constants
    (`self.text, names = parse(self.text)`, `self.text = dedent(self.text)`): the configured value
    put in another form, still what the instance was configured with (not data of a request)."""
    if not isinstance(target.value, ast.Name) or target.value.id != "self" or not isinstance(value, ast.Call):
        return False
    args = [*value.args, *(k.value for k in value.keywords)]
    return any(same_attribute(target.attr, a) for a in args) \
        and all(same_attribute(target.attr, a) or isinstance(a, ast.Constant) for a in args)


def configured_field(module, cls: ast.ClassDef, attr: str, serving: bool = False):
    """The value of `self.attr` when `attr` is a configuration field of `cls` (see the module
    docstring: declared with the default None, never written after the instance is built; or,
    when `serving` (a class of its MRO `serves_calls`), a required field of a structured type,
    `built_field`), a stable segment at its declaration; else None."""
    stmt = none_field(cls, attr)
    what = "a field with a default, set when the instance is built"
    if stmt is None and serving:
        stmt = built_field(cls, attr)
        what = ("a field each instance is built with (its methods take the request's input), never "
                "written after: configured per instance, fixed for its requests")
    if stmt is None or named_otherwise(attr) or written_in_module(module.tree, attr):
        return None
    return dynamic(module.span(stmt), f"self.{attr}", Kind.UNKNOWN, Volatility.STABLE,
                   f"`{cls.name}.{attr}`: {what} {MARK}")


def built_field(cls: ast.ClassDef, attr: str) -> ast.stmt | None:
    """The class-body statement declaring `attr` as a required field of a structured type (`plugins:
    List[BaseTool]`, `llm: OpenAIClient`, `tools: list[Tool] = Field(...)`: `_structured`; not
    text, `str`, which each caller may word as it likes), or None. Only for a class whose
    instances serve calls (`serves_calls`): the tools an agent is built with, the same on every
    `run(instruction)`."""
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == attr:
            value = stmt.value
            if value is not None and not (
                    isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute))
                    and (value.func.id if isinstance(value.func, ast.Name) else value.func.attr) == "Field"
                    and not [k for k in value.keywords if k.arg in ("default", "default_factory")]
                    and (not value.args or isinstance(value.args[0], ast.Constant) and value.args[0].value is Ellipsis)):
                return None
            if "ClassVar" in ast.unparse(stmt.annotation) or not _structured(stmt.annotation):
                return None
            return stmt
    return None


def init_parameter(frame, param: ast.arg, has_default: bool):
    """The value of a parameter of `__init__` with a default that no caller we read binds: the
    configuration the instance is built with (stable), or None for any other parameter."""
    func = frame.func
    if func is None or frame.cls is None or func.name != "__init__" or not has_default \
            or named_otherwise(param.arg):
        return None
    return dynamic(frame.module.span(param), param.arg, Kind.UNKNOWN, Volatility.STABLE,
                   f"the parameter `{param.arg}` of `{frame.cls.name}.__init__`, with a default {MARK}",
                   **handed_in(param.arg))


def built_with(frame, param: ast.arg, serving: ast.ClassDef | None = None):
    """The value of a required parameter of `__init__` (no default) that no constructor call we
    read passes, in a class whose instances serve calls (`serves_calls`): what the instance is
    built with (`LLMIntentClassifier(llm, intents)`: the intents it classifies into), the same on
    every call of its methods (`classify(request)`), so stable across the requests made through
    one instance, while the method's own parameters carry what each call brings. None for any
    other parameter (a default: `init_parameter`; `*args`, `**kwargs`; a name that says it
    changes: `query`, `session_id`; text or no annotation: `_structured`), and in a class none of
    whose methods takes input of its own (a record built per request and rendered whole:
    `Prompt(question, docs).text()`).
    `serving`: the class of the instance read, when it is not the one defining `__init__` (a
    subclass adds the methods)."""
    func = frame.func
    if func is None or frame.cls is None or func.name != "__init__" or named_otherwise(param.arg) \
            or param is func.args.vararg or param is func.args.kwarg or not _structured(param.annotation):
        return None
    if not any(serves_calls(c) for c in (frame.cls, serving) if c is not None):
        return None
    return dynamic(frame.module.span(param), param.arg, Kind.UNKNOWN, Volatility.STABLE,
                   f"the parameter `{param.arg}` of `{frame.cls.name}.__init__`: what the instance is built "
                   f"with, the same on every call of its methods", **handed_in(param.arg))


def _structured(ann) -> bool:
    """True for the annotation of something an instance is configured with (`List[Intent]`,
    `dict[str, Agent]`, `AugmentedLLM`), False for text (`str`, `Optional[str]`, `str | None`) and
    for no annotation: a text handed to the constructor is the caller's own prompt text for that
    instance (`IVRNavigator(goal)`, built per phone call), as varied as the caller's uses."""
    if ann is None:
        return False
    if isinstance(ann, ast.Subscript) and isinstance(ann.value, (ast.Name, ast.Attribute)) \
            and (ann.value.id if isinstance(ann.value, ast.Name) else ann.value.attr) == "Optional":
        ann = ann.slice
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):  # `Intent | None`
        sides = [x for x in (ann.left, ann.right) if not (isinstance(x, ast.Constant) and x.value is None)]
        return bool(sides) and all(_structured(x) for x in sides)
    name = ann.value if isinstance(ann, ast.Constant) else ann.id if isinstance(ann, ast.Name) else None
    return name not in ("str", "Any", "object")


def serves_calls(cls: ast.ClassDef) -> bool:
    """True when a method of `cls` other than a dunder takes input of its own (a parameter besides
    `self` / `cls`): its instance is built once and called with new input (`classify(self,
    request)`, `run(self, task)`), not a record whose methods only render what it was built with."""
    for stmt in cls.body:
        if isinstance(stmt, _FUNCS) and not (stmt.name.startswith("__") and stmt.name.endswith("__")):
            args = stmt.args
            own = [*args.posonlyargs, *args.args][1:] + list(args.kwonlyargs)
            if own or args.vararg is not None:
                return True
    return False


def default_over_configured(options: list[list]) -> list[list]:
    """The variants of a value or its default (`Alt.fallback`: an `__init__` parameter with a
    default, `template: str = TEMPLATE`, that no constructor call of the tree passes) as text,
    without the variants that are only that configuration value unread (`init_parameter`): the
    default's text stands for it, as a deployment that keeps the default sends it (the value a
    deployment passes instead is as fixed, and its text unknown). Unchanged when no variant has
    static text."""
    unread = [o for o in options if len(o) == 1 and not o[0].is_static and o[0].kind is Kind.UNKNOWN
              and o[0].volatility is Volatility.STABLE and MARK in o[0].evidence]
    rest = [o for o in options if not any(o is u for u in unread)]
    if not unread or not any(s.is_static and s.text for o in rest for s in o):
        return options
    return rest


def configuration_holder(node: ast.AST) -> str | None:
    """The name that says the object a value is read from is the run's configuration (`self.cfg`
    of `self.cfg.max_images`, `settings` of `settings.model`; `classify.classify_name`: stable
    by name, Policy 7), or None. Only a hint, for a value whose source is otherwise unknown."""
    holder = node.value if isinstance(node, (ast.Attribute, ast.Subscript)) else None
    name = holder.attr if isinstance(holder, ast.Attribute) else holder.id if isinstance(holder, ast.Name) else None
    found = classify.classify_name(name) if name else None
    return name if found is not None and found[0] is Kind.UNKNOWN and found[1] is Volatility.STABLE else None


def is_configured(segs) -> bool:
    """True for text made only of static text and values this module finds to be configuration
    (at least one): the same bytes on every request of a process."""
    return any(not s.is_static and MARK in s.evidence for s in segs) and \
        all(s.is_static or s.volatility is Volatility.STABLE for s in segs)


def configured_test(ev, node: ast.expr, frame, env, depth: int = 0) -> bool:
    """True when the condition `node` (of an `if`, or `a if node else b`) reads only what the
    configuration chooses: constants, configuration fields of the instance, values the analysis
    finds stable (a module constant, a setting, a loop counter), the presence or length of a list
    whose items are present by such conditions (`len(instructions) > 0`), combined by `not`,
    `and`, `or`, comparisons and `len` / `isinstance` / `callable`... A parameter of the method,
    the user's message, data fetched for the request, an instance handed in: not."""
    if depth > 4:
        return False
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp):
        return configured_test(ev, node.operand, frame, env, depth + 1)
    if isinstance(node, ast.BoolOp):
        return all(configured_test(ev, v, frame, env, depth + 1) for v in node.values)
    if isinstance(node, ast.Compare):
        return all(configured_test(ev, v, frame, env, depth + 1) for v in (node.left, *node.comparators))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _PURE_CALLS:
        return not node.keywords and all(configured_test(ev, a, frame, env, depth + 1) for a in node.args
                                         if not isinstance(a, ast.Starred))
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self" \
            and frame.cls is not None and ev._configured(frame.module, frame.cls, node.attr, frame.self_value) is not None:
        return True  # `self.knowledge_base`: a field the instance is built with (whatever its type)
    if isinstance(node, ast.Call) and not node.args and not node.keywords and isinstance(node.func, ast.Attribute) \
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "self" and frame.cls is not None:
        found = _one_return(ev, frame, node.func.attr)
        if found is not None:  # `self.is_part_of_team()`: `return self.team is not None and len(self.team) > 0`
            method_frame, expr = found
            return configured_test(ev, expr, method_frame, ev.env_at(method_frame, expr), depth + 1)
    if isinstance(node, ast.Name) and kind_parameter(frame.func, node.id):
        return True  # `gen_type == "eval"` of `gen_type: Literal["training", "eval"]`: the request's kind
    if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)):
        return configured_value(ev, ev.eval(node, frame, env), frame)
    return False


def kind_parameter(func, name: str) -> bool:
    """True when `name` is a parameter of `func` annotated as a `Literal` of constants
    (`gen_type: Literal["training", "eval"]`, also `Optional[...]` or `... | None` of one) that
    the function never rebinds: one of a closed set of kinds the caller picks, so text chosen by a
    test of it is one fixed variant per kind (the requests of one kind share their prefix), not a
    choice made by the request's data (Policy 7: a choice by the request's kind)."""
    if func is None or not isinstance(func, _FUNCS):
        return False
    args = func.args
    param = next((a for a in [*args.posonlyargs, *args.args, *args.kwonlyargs] if a.arg == name), None)
    if param is None or not _literal(param.annotation):
        return False
    return not any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in subtree(func))


def _literal(ann) -> bool:
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):  # `Literal["a", "b"] | None`
        sides = [x for x in (ann.left, ann.right) if not (isinstance(x, ast.Constant) and x.value is None)]
        return len(sides) == 1 and _literal(sides[0])
    if not isinstance(ann, ast.Subscript) or not isinstance(ann.value, (ast.Name, ast.Attribute)):
        return False
    head = ann.value.id if isinstance(ann.value, ast.Name) else ann.value.attr
    if head == "Optional":
        return _literal(ann.slice)
    items = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
    return head == "Literal" and bool(items) and all(isinstance(i, ast.Constant) for i in items)


def configured_returns(ev, frame) -> bool:
    """True when the frame's function chooses what it returns by `if` tests that read only
    configuration or the request's kind (`configured_test`): every `if` that holds a `return`
    (nested functions left out), no `return` inside a loop, a `try` or a `with` (then other data
    may choose), and at least one such `if`. `if gen_type == "training": return A` / `elif
    gen_type == "eval": return B`: one variant per kind, fixed text for it."""
    func = frame.func
    if func is None:
        return False
    tests = _return_tests(func)
    return bool(tests) and all(configured_test(ev, t, frame, ev.env_at(frame, t)) for t in tests)


def _return_tests(func) -> tuple:
    """The tests of the `if`s of `func` that hold a `return` (nested functions left out), in the
    order `_own_nodes` meets them; () when a `return` is inside a loop, a `try`, a `with` or a
    `match`. Read once per function node (kept on it: trees are never changed after parsing)."""
    known = getattr(func, "_promptlint_return_tests", None)
    if known is not None:
        return known
    tests: list = []
    for node in _own_nodes(func):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.Try, ast.With, ast.AsyncWith, ast.Match)) \
                and any(isinstance(r, ast.Return) for r in _own_nodes(node)):
            tests = []
            break
        if isinstance(node, ast.If) and any(isinstance(r, ast.Return) for r in _own_nodes(node)):
            tests.append(node.test)
    func._promptlint_return_tests = tuple(tests)
    return func._promptlint_return_tests


def _own_nodes(node):
    """The nodes under `node`, nested functions, classes and lambdas left out."""
    stack = list(ast.iter_child_nodes(node))
    while stack:
        n = stack.pop()
        if isinstance(n, (*_FUNCS, ast.ClassDef, ast.Lambda)):
            continue
        yield n
        stack.extend(ast.iter_child_nodes(n))


def _one_return(ev, frame, name: str):
    """(frame, expression) of a method `name` of the frame's class (or its bases) whose body is
    one `return expression` (a docstring before it allowed), or None."""
    for module, cls in ev.mro(frame.module, frame.cls):
        method = next((s for s in cls.body if isinstance(s, _FUNCS) and s.name == name), None)
        if method is None:
            continue
        body = [s for s in method.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None \
                or len(method.args.args) != 1 or method.decorator_list:
            return None
        return ev.function_frame(module, method, cls, self_value=frame.self_value, depth=frame.depth + 1), body[0].value
    return None


def configured_value(ev, value, frame, depth: int = 0, memo: dict | None = None) -> bool:
    """True when a value, its presence and its length are the same on every request: text made
    of static text and stable values, a constant's container, an object the class builds itself,
    one of several such values chosen by configuration (`Alt.configured`, or a value or its
    default), a list whose items are present by configuration (their own text may change: a
    clock reading's presence is what the length counts)."""
    memo = {} if memo is None else memo
    if id(value) in memo:
        return memo[id(value)]
    if depth > 40:  # (one level per `if` that grew the list)
        return False
    memo[id(value)] = False  # while computing
    memo[id(value)] = found = _configured_value(ev, value, frame, depth, memo)
    return found


def _configured_value(ev, value, frame, depth: int, memo: dict) -> bool:
    if isinstance(value, Text):
        return all(s.is_static or s.volatility is Volatility.STABLE for s in value.segs)
    if isinstance(value, Alt):
        return (value.configured or value.fallback) and all(configured_value(ev, o, frame, depth + 1, memo)
                                                             for o in value.options)
    if isinstance(value, Seq):
        if value.repeated:
            return False
        for item in value.items:
            if isinstance(item, Spread) and not configured_value(ev, item.value, frame, depth + 1, memo):
                return False
            if isinstance(item, Alt) and not (item.configured or ev._present_by_configuration(item, frame)):
                return False
        return True
    if isinstance(value, Mapping):
        return not value.repeated
    if isinstance(value, Obj):
        return value.qualname.startswith("self:") or value.qualname.startswith("instance:") and value.span is not None
    return isinstance(value, (ClassRef, Config, Func)) or isinstance(value, PathV) and value.path is not None


def all_configured(value) -> bool:
    """True when every choice nested in an Alt (of lists grown in branches) is made by
    configuration (`Alt.configured`); False for a value that is no Alt."""
    if not isinstance(value, Alt):
        return False
    seen, stack = set(), [value]
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if not (v.configured or v.fallback):
            return False
        stack.extend(o for o in v.options if isinstance(o, Alt))
    return True


def present_by_configuration(ev, span, frame) -> bool:
    """True when the code at `span` (an item appended to a list, text added to a string) runs
    under `if` statements of the frame's function whose conditions all read configuration only
    (`configured_test`): it is present or absent per deployment, not per request. False outside
    the frame's function, or under no `if` (then it is not present by a condition of its own)."""
    func = frame.func
    if func is None or span is None or span.filename != frame.module.filename:
        return False
    key = ("present by configuration", id(func), id(frame), span.start.row, span.start.column)
    cached = ev._return_cache.get(key)
    if cached is None:
        tests = _enclosing_tests(func.body, span.start.row)
        cached = ev._return_cache[key] = bool(tests) and all(
            configured_test(ev, t, frame, ev.env_at(frame, t)) for t in tests)
    return cached


def _enclosing_tests(body, row: int) -> list | None:
    """The conditions of the `if` statements around line `row` in `body` (nested defs left
    out), outermost first; None when the line is not in `body`."""
    for stmt in body:
        if not (stmt.lineno <= row <= (stmt.end_lineno or stmt.lineno)) or isinstance(stmt, (*_FUNCS, ast.ClassDef)):
            continue
        if isinstance(stmt, ast.If):
            for sub in (stmt.body, stmt.orelse):
                inner = _enclosing_tests(sub, row)
                if inner is not None:
                    return [stmt.test, *inner]
            return []  # the condition itself
        for attr in ("body", "orelse", "finalbody"):
            inner = _enclosing_tests(getattr(stmt, attr, None) or [], row)
            if inner is not None:
                return inner
        for handler in getattr(stmt, "handlers", ()):
            inner = _enclosing_tests(handler.body, row)
            if inner is not None:
                return inner
        return []
    return None
