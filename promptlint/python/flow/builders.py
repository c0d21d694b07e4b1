"""Prompt-builder instances and the sections their callers add (the facts of the class:
`builder_facts.py`): an instance of such a class that the code builds and then adds to, by
statements (`b.add_section(...)`) or chained calls (`PromptBuilder().add(a).add(b)`), holds
its sections in call order; the text its renderer joins them into is a prompt whose layout
has them in that order (docs/policies.md, Policy 9), so the prefix rules judge it.

The instance's state is `Obj.state`: container attribute -> a tuple of `Item`s, in the order
they were added (a dict set again under an equal static key keeps its first place). A section
added under a condition (`if agent.description: self.add_section(...)`) is judged present; of
two branches that each add (`if events: history else: empty`), the one a plain truth test of a
value keeps (`if x:`: its body; `if not x:`: its `else`), else the one with the most static text.
A dynamic value that enters a section in the builder's own code (the template of
`add_customer_identity`, written once for every prompt) is reported where the caller adds that
section, with the place in the builder as its origin (Policy 8: where it enters this prompt).
"""
from __future__ import annotations

import ast
from typing import NamedTuple

from ...model import Kind, Segment, Span, Volatility, replace
from .budget import MAX_DEPTH
from .builder_facts import builder_of
from .frames import Frame, Thunk
from .segment_text import reenter
from .values import Alt, ClassRef, Func, Mapping, Obj, Seq, Text, Value

#: Words of an adder's name that say the section it adds is the conversation (`add_interaction_history`).
_CONVERSATION = frozenset({"history", "conversation", "transcript", "dialog", "dialogue"})


class Item(NamedTuple):
    """One section: `key` the dict key it was set under (None in a list), `value` what was
    added, `where` the span of the caller's call that added it (None: the builder's own code),
    `history` the name of the adder named for the conversation that added it ("": none)."""
    key: Value | None
    value: Value
    where: Span | None
    history: str = ""


def _facts(value) -> tuple | None:
    """(module, class, Builder) of an instance of a builder class built at a call, else None."""
    if not (isinstance(value, Obj) and value.qualname.startswith("instance:") and value.args
            and isinstance(value.args[0], ClassRef)):
        return None
    ref = value.args[0]
    found = builder_of(ref.node)
    return (ref.module, ref.node, found) if found is not None else None


def _chain(call: ast.Call) -> list:
    """The calls of a chain from the receiver out (`b.a(x).c(y)`: the call of `a`, then of `c`)."""
    out = []
    node = call
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        out.append(node)
        node = node.func.value
    return out[::-1]


def applied(ev, th: Thunk, prev: Value, frame: Frame) -> Value:
    """The value of a name after the statement `th.node` called adders on it (a `called`
    binding of the statement reader): the instance with those sections added; `prev` itself when
    it is no builder or the call no adder."""
    obj = one_builder(ev, prev, frame)
    if obj is None:
        return prev
    for call in _chain(th.node):
        after = add(ev, obj, call.func.attr, call, frame, th.env)
        if after is None:
            break
        obj = after
    return obj if obj is not prev else prev


def one_builder(ev, value: Value, frame: Frame) -> Obj | None:
    """The builder instance a value is; of one of several (sections added in branches of the
    caller), the one with the most static text (as candidates are read in variants)."""
    if _facts(value) is not None:
        return value
    if isinstance(value, Alt):
        flat = _flat(value, [])
        options = [o for o in flat if _facts(o) is not None]
        if options and len(options) == len(flat):
            return max(options, key=lambda o: _static_chars(ev, o, frame))
    return None


def _flat(value: Value, out: list, depth: int = 0) -> list:
    """The options of nested alternatives, flattened (up to 6 deep, 64 options)."""
    if isinstance(value, Alt) and depth < 6:
        for o in value.options:
            _flat(o, out, depth + 1)
    elif len(out) < 64:
        out.append(value)
    return out


def _static_chars(ev, obj: Obj, frame: Frame) -> int:
    return sum(len(s.text) for items in (obj.state or {}).values() for it in items if isinstance(it.value, Text)
               for s in it.value.segs if s.is_static)


def add(ev, obj: Obj, method: str, call: ast.Call, frame: Frame, env) -> Obj | None:
    """The instance `obj` after `obj.method(...)` (the call `call`, read in `frame` with the
    bindings `env`), when `method` is an adder of its class; else None."""
    found = _facts(obj)
    if found is None or method not in found[2].adders or obj.span is None:
        return None
    state = {k: list(v) for k, v in (obj.state if obj.state is not None else _initial(ev, obj, frame)).items()}
    if state is None:
        return None
    if not _run_adder(ev, obj, method, call, frame, env, state, frame.module.span(call), 0, ""):
        return None
    return replace(obj, state={k: tuple(v) for k, v in state.items()})


def _initial(ev, obj: Obj, frame: Frame) -> dict:
    """The state of a new instance: its containers as `__init__` leaves them, with the
    constructor's arguments bound."""
    module, cls, facts = _facts(obj)
    state: dict = {attr: [] for attr in facts.kinds}
    init = next((s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and s.name == "__init__"), None)
    if init is not None and facts.init:
        inner = Frame(module=module, func=init, cls=cls, bindings=dict(obj.kwargs), self_value=obj,
                      depth=frame.depth + 1)
        ev.ensure(inner)
        _run(ev, obj, facts.init, inner, state, None, 1, "")
    return state


def _run_adder(ev, obj: Obj, method: str, call: ast.Call, frame: Frame, env, state: dict, where, depth: int,
               history: str) -> bool:
    """Add to `state` what the adder `method` adds when called by `call`; False when it cannot
    be followed (too deep, the budget spent, a method of another class). `history`: the name of
    an adder named for the conversation this one is called by (its sections are the conversation)."""
    if frame.depth + depth > MAX_DEPTH or not ev.budget.following:
        return False
    module, cls, facts = _facts(obj)
    fn = next((s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == method), None)
    if fn is None or method not in facts.adders:
        return False
    func = Func(module, fn, cls, obj)
    args = [a for a in call.args if not isinstance(a, ast.Starred)]
    kwargs = {k.arg: k.value for k in call.keywords if k.arg is not None}
    bound = ev.bind(func, args, kwargs, frame, env, call)
    inner = Frame(module=module, func=fn, cls=cls, bindings=bound, self_value=obj, depth=frame.depth + 1)
    ev.ensure(inner)
    ev.reached.append(module.span(fn))
    ev.reached_funcs.append((module, fn))
    if not history and set(method.lower().split("_")) & _CONVERSATION:
        history = method
    return _run(ev, obj, facts.adders[method], inner, state, where, depth, history)


def _run(ev, obj: Obj, ops, inner: Frame, state: dict, where, depth: int, history: str) -> bool:
    """Apply add operations (builder_facts) read in the adder's frame `inner` to `state`."""
    for op in ops:
        kind = op[0]
        if kind == "if":
            branch = _branch(ev, obj, op, inner, state, where, depth, history)
            if branch is None:
                return False
            for attr, items in branch.items():
                state[attr] = items
        elif kind == "call":
            if not _run_adder(ev, obj, op[1], op[2], inner, None, state, where, depth + 1, history):
                return False
        else:
            attr, node = op[1], op[2]
            value = ev.eval(node, inner)
            if kind == "extend":
                items = value.items if isinstance(value, Seq) and not value.repeated else [value]
                state[attr].extend(Item(None, i, where, history) for i in items)
            elif kind == "front":
                state[attr].insert(0, Item(None, value, where, history))
            elif kind == "set":
                key = ev.eval(op[3], inner)
                text = ev.static_text(key, inner)
                same = [i for i, it in enumerate(state[attr]) if text is not None and it.key is not None
                        and ev.static_text(it.key, inner) == text]
                if same:
                    state[attr][same[0]] = Item(key, value, where, history)
                else:
                    state[attr].append(Item(key, value, where, history))
            else:
                state[attr].append(Item(None, value, where, history))
    return True


def _branch(ev, obj, op, inner, state, where, depth, history: str) -> dict | None:
    """The containers after an `if` of an adder (module docstring: which branch is judged)."""
    _, test, body, orelse = op
    present = _truth_test(test)
    if not orelse or present is True:
        chosen = [body]
    elif not body or present is False:
        chosen = [orelse]
    else:
        chosen = [body, orelse]
    results = []
    for ops in chosen:
        copy = {k: list(v) for k, v in state.items()}
        if not _run(ev, obj, ops, inner, copy, where, depth, history):
            return None
        results.append(copy)
    if len(results) == 1:
        return results[0]
    return max(results, key=lambda st: sum(len(s.text) for items in st.values() for it in items
                                           if isinstance(it.value, Text) for s in it.value.segs if s.is_static))


def _truth_test(test) -> bool | None:
    """True for a plain truth test of a value (`x`, `self.x`, `len(x)`, `x is not None`): its
    body runs when the value is there; False for its negation; None for any other test."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _truth_test(test.operand)
        return None if inner is None else not inner
    if isinstance(test, (ast.Name, ast.Attribute)):
        return True
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "len" and len(test.args) == 1:
        return True
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.comparators[0], ast.Constant) \
            and test.comparators[0].value is None:
        return True if isinstance(test.ops[0], ast.IsNot) else False if isinstance(test.ops[0], ast.Is) else None
    return None


def _repoint(ev, segs: list[Segment], it: Item, module, cls) -> list[Segment]:
    """The text of a section: dynamic segments that entered it in the builder's own code are
    reported where the caller added it (module docstring); of a section an adder named for the
    conversation added, those of no known kind are the conversation (a hint, as for
    `history_renders`: the name of the method says what it adds)."""
    if it.history:
        segs = [replace(s, kind=Kind.HISTORY, volatility=Volatility.UNKNOWN,
                        evidence=f"added by `{it.history}`, named for the conversation")
                if not s.is_static and s.kind in (Kind.UNKNOWN, Kind.SERIALIZED) else s for s in segs]
    where = it.where
    if where is None:
        return segs
    body = module.span(cls)
    inside = [s for s in segs if not s.is_static and s.span is not None and body.contains(s.span)]
    if not inside:
        return segs
    ids = {id(s) for s in inside}
    out = []
    for s in segs:
        out.extend(reenter([s], where, s.expr, None) if id(s) in ids else [s])
    return out


def member(ev, obj: Obj, attr: str, frame: Frame) -> Value | None:
    """`obj.attr` of a builder instance whose sections are known: a list of what was added (a
    dict: its values by key where the key is static text), the text added to a text container;
    None for anything else (then read as the class says)."""
    if obj.state is None or attr not in obj.state:
        return None
    module, cls, facts = _facts(obj)
    items = obj.state[attr]
    values = [_pointed(ev, it, module, cls, frame) for it in items]
    kind = facts.kinds[attr]
    if kind == "text":
        return Text([s for v in values for s in ev.text_of(v, frame)])
    if kind == "dict":
        keys = [ev.static_text(it.key, frame) if it.key is not None else None for it in items]
        if all(k is not None for k in keys) and len(set(keys)) == len(keys):
            return Mapping(dict(zip(keys, values)))
        return None
    if kind == "list":
        return Seq(values)
    return None


def _pointed(ev, it: Item, module, cls, frame) -> Value:
    """An item's value with its text re-pointed (`_repoint`) when it is text."""
    if isinstance(it.value, Text):
        return Text(_repoint(ev, it.value.segs, it, module, cls))
    return it.value


def rendered(ev, obj: Obj, method: str, frame: Frame) -> Text | None:
    """The text a loop renderer of a builder instance whose sections are known makes of them:
    each section's writes, one section after the other (with the separator of a join between
    them); None when the method is no loop renderer or the sections are not known."""
    found = _facts(obj)
    if found is None or obj.state is None:
        return None
    module, cls, facts = found
    render = facts.renders.get(method)
    if render is None or render.attr not in obj.state:
        return None
    fn = next(s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == method)
    inner = Frame(module=module, func=fn, cls=cls, self_value=obj, depth=frame.depth + 1)
    ev.ensure(inner)
    loop = next(s for s in fn.body if isinstance(s, (ast.For, ast.AsyncFor)) and s.target is render.target)
    base = ev.env_at(inner, loop.body[0])
    sep = ev.text_of(ev.eval(render.sep, inner), inner) if render.sep is not None else []
    out: list[Segment] = []
    for i, it in enumerate(obj.state[render.attr]):
        env = dict(base)
        _bind(env, render.target, render.view, it)
        if i and sep:
            out.extend(sep)
        for node in render.writes:
            segs = ev.text_of(ev.eval(node, inner, env), inner)
            out.extend(_repoint(ev, segs, it, module, cls))
    return Text(out)


def _bind(env: dict, target, view: str, it: Item) -> None:
    """Bind the loop target of a renderer to one section (`for name, s in d.items()`; a dict's
    own iteration gives its keys)."""
    key = it.key if it.key is not None else Text([])
    if view == "items" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
        pairs = zip(target.elts, (key, it.value))
    elif view == "keys" or view == "" and it.key is not None:
        pairs = [(target, key)]
    else:
        pairs = [(target, it.value)]
    for node, value in pairs:
        if isinstance(node, ast.Name):
            env[node.id] = Thunk("value", value=value)


def called(ev, base: Value, method: str, node: ast.Call, frame: Frame, env) -> Value | None:
    """`base.method(...)` in an expression, for a builder instance: an adder that returns the
    instance (`return self`: a chain, `PromptBuilder().add(a).add(b)`) gives the instance with
    the section added; a loop renderer gives the text (`rendered`). None otherwise."""
    found = _facts(base)
    if found is None:
        return None
    module, cls, facts = found
    if method in facts.adders and _returns_self(cls, method):
        return add(ev, base, method, node, frame, env)
    if method in facts.renders:
        return rendered(ev, base, method, frame)
    return None


def _returns_self(cls, method: str) -> bool:
    fn = next((s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == method), None)
    return fn is not None and any(isinstance(n, ast.Return) and isinstance(n.value, ast.Name) and n.value.id == "self"
                                  for n in ast.walk(fn))
