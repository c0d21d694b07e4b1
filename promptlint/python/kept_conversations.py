"""A conversation kept on an instance and filled through its methods from other classes
(docs/policies.md, Policies 2 and 9).

A class of the tree (a *keeper*) holds the messages in a list attribute that its methods grow
(`add_message(text, role=...)`: `self.messages.append({...})`) and whose head one of them writes:
a *head writer* puts its text parameter in the system message at index 0 (`self.messages[0] =
{"role": "system", "content": text}`, `self.messages.insert(0, {...})`, or `self.messages =
[{"role": "system", ...}]`), often keeping the text in an attribute too (`self.system_prompt =
text`, read back by the callers: `agent.system_prompt.replace("TASK", task)`). Other classes hold
such instances (`self.planner = ChatAgent(params, PLANNER_PROMPT)`, or a factory's `agent =
ChatAgent(params); agent.set_system_prompt(text); return agent`) and call those methods; the
keeper's own method hands the list to the request, so nothing at the send says what is in it.

    class ChatAgent:                                    # the keeper
        def set_system_prompt(self, text):              # a head writer
            self.system_prompt = text
            self.messages[0] = {"role": "system", "content": text}
        def add_message(self, text, role="user"):
            self.messages.append({"role": role, "content": text})

    class Planner:                                      # a class that holds one
        def step(self, task, screen):
            if self.turn == 0:
                self.planner.set_system_prompt(self.planner.system_prompt.replace("TASK", task))

A call of a head writer from outside its class is judged as the system message it writes followed
by the conversation the instance keeps (`head_written`): the text it is given sits before the whole
history, and content in it that changes (the task, data fetched for it) before the static
instructions keeps them from being shared. What the instance's system text held before the call
(`agent.system_prompt` read in the text) is the text the instance was set up with where the
holder assigns it (`setup_text`: a constructor argument its `__init__` hands to the head writer,
or a factory's argument it hands to the head writer of the instance it returns).

Also (`removed_at`): a method of a keeper that removes the item at an index it is given from the
list (`def remove_message_at(self, index): self.messages.pop(index)`), so that a call of it from a
holder (`self.planner.remove_message_at(1)`) cuts the kept conversation as `self.planner.messages.pop(1)`
would (read by `stored_cuts.py`).

Facts of the syntax of a class (`keeper`, cached on the class node); the evaluator reads the values.
"""
from __future__ import annotations

import ast
from dataclasses import replace
from typing import NamedTuple

from .flow.binding_syntax import param_names
from ..model import Kind, Segment, Volatility
from .flow.callers import argument_node as argument_for
from .flow.class_facts import grown_attrs, holds_conversation, self_assigns, stepped, walk_statements
from .flow.values import Alt, ClassRef, Func, Mapping, Obj, Seq, Spread, Text
from .system_edits import system_message

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: Words of a method's name that make a call of it worth resolving as a head writer (a cost gate:
#: the method's body is the proof; `set_system_prompt`, `add_system_message`, `update_system`).
HEAD_WORDS = ("system",)
#: Words of a method's name that make a call of it with the index 0 or 1 worth resolving as a
#: keeper's remover (`remove_message_at(1)`, `delete_turn(1)`, `drop_message(1)`, `pop_message(1)`;
#: the pre-filter's `_KEEPER_CALL` holds the same words).
REMOVE_WORDS = ("remove", "delete", "drop", "pop")
MAX_ARGS = 3  # arguments of a head-writer call (the text, and options such as `append=True`)


class Keeper(NamedTuple):
    """The facts of a keeper class: `attr` its list attribute, `heads` head-writer method -> its
    text parameter, `stored` head-writer method -> the attribute it keeps the text in (or None),
    `removers` method -> its index parameter, `resets` the methods that start the list anew
    (`self.messages = []`, `self.messages = [{"role": "system", ...}]`)."""
    attr: str
    heads: dict
    stored: dict
    removers: dict
    resets: frozenset = frozenset()


def _self_attr(node) -> str | None:
    """`X` of `self.X`, else None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


def _reads(node, param: str, kept: set[str]) -> bool:
    """True when the expression reads the parameter `param` or an attribute the method set from it
    (`self.system_prompt` after `self.system_prompt = text`)."""
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id == param:
            return True
        if _self_attr(n) in kept and isinstance(n.ctx, ast.Load):
            return True
    return False


def _head_of(method, lists: set[str]):
    """(list attribute, text parameter, attribute kept) when `method` writes a system message made
    of one of its parameters at the head of one of `lists` (see the module docstring), else None."""
    params = param_names(method, receiver=False)
    stmts = list(walk_statements(method.body))
    kept: dict[str, str] = {}  # attribute -> the parameter it is set from
    for s in stmts:
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and _self_attr(s.targets[0]) \
                and isinstance(s.value, ast.Name) and s.value.id in params:
            kept[_self_attr(s.targets[0])] = s.value.id
    for s in stmts:
        held, message = None, None
        if isinstance(s, ast.Assign) and len(s.targets) == 1:
            t = s.targets[0]
            if isinstance(t, ast.Subscript) and _self_attr(t.value) in lists and isinstance(t.slice, ast.Constant) \
                    and t.slice.value == 0:
                held, message = _self_attr(t.value), s.value  # `self.messages[0] = {...}`
            elif _self_attr(t) in lists and isinstance(s.value, ast.List) and s.value.elts:
                held, message = _self_attr(t), s.value.elts[0]  # `self.messages = [{...}]`
        elif isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Attribute) \
                and s.value.func.attr == "insert" and len(s.value.args) == 2 and _self_attr(s.value.func.value) in lists \
                and isinstance(s.value.args[0], ast.Constant) and s.value.args[0].value == 0:
            held, message = _self_attr(s.value.func.value), s.value.args[1]  # `self.messages.insert(0, {...})`
        if held is None or not system_message(message):
            continue
        for p in params:
            attrs = {a for a, q in kept.items() if q == p}
            if _reads(message, p, attrs):
                return held, p, next(iter(sorted(attrs)), None)
    return None


def _remover_of(method, lists: set[str]):
    """(list attribute, index parameter) when `method` removes the item at one of its parameters
    from one of `lists` (`self.messages.pop(index)`, `del self.messages[index]`), else None."""
    params = param_names(method, receiver=False)
    for s in walk_statements(method.body):
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Attribute) \
                and s.value.func.attr == "pop" and len(s.value.args) == 1 and _self_attr(s.value.func.value) in lists \
                and isinstance(s.value.args[0], ast.Name) and s.value.args[0].id in params:
            return _self_attr(s.value.func.value), s.value.args[0].id
        if isinstance(s, ast.Delete) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Subscript) \
                and _self_attr(s.targets[0].value) in lists and isinstance(s.targets[0].slice, ast.Name) \
                and s.targets[0].slice.id in params:
            return _self_attr(s.targets[0].value), s.targets[0].slice.id
    return None


def _restarts(method, attr: str) -> bool:
    """True when `method` binds the list `self.<attr>` to a new list display (`self.messages = []`,
    `self.messages = [{"role": "system", ...}]`): the conversation starts again."""
    return any(isinstance(s, ast.Assign) and len(s.targets) == 1 and _self_attr(s.targets[0]) == attr
               and isinstance(s.value, ast.List) for s in walk_statements(method.body))


def keeper(cls: ast.ClassDef) -> Keeper | None:
    """The keeper facts of `cls` (its own methods; cached on the node), or None when no list
    attribute that its methods grow with messages has a head writer."""
    cached = getattr(cls, "_promptlint_keeper", False)
    if cached is not False:
        return cached
    methods = [s for s in cls.body if isinstance(s, _FUNCS)]
    lists = {attr for attr in grown_attrs(cls) if holds_conversation(cls, attr)}
    found = None
    if lists:
        heads: dict[str, tuple] = {}
        for m in methods:
            head = _head_of(m, lists)
            if head is not None:
                heads[m.name] = head
        if heads:
            attr = next(iter(heads.values()))[0]
            removers = {m.name: r[1] for m in methods if (r := _remover_of(m, {attr})) is not None}
            resets = frozenset(m.name for m in methods if m.name != "__init__" and _restarts(m, attr))
            found = Keeper(attr, {n: h[1] for n, h in heads.items() if h[0] == attr},
                           {n: h[2] for n, h in heads.items() if h[0] == attr}, removers, resets)
    cls._promptlint_keeper = found
    return found


# ---------------------------------------------------------------- calls from a holder
def might_write_head(node: ast.Call) -> bool:
    """True for a call worth resolving as a head writer's: a method of an object other than
    `self` / `cls` (`self.planner.set_system_prompt(text)`, `agent.add_system_prompt(text)`) whose
    name holds a word of `HEAD_WORDS`, with one to `MAX_ARGS` arguments."""
    f = node.func
    if not isinstance(f, ast.Attribute) or isinstance(f.value, ast.Name) and f.value.id in ("self", "cls"):
        return False
    n = len(node.args) + len(node.keywords)
    return 1 <= n <= MAX_ARGS and any(w in f.attr.lower() for w in HEAD_WORDS)


def _keeper_method(ev, node: ast.Call, frame):
    """(Func, Keeper) of the method a call resolves to when it is a keeper's method, else None."""
    fn = ev.eval(node.func, frame)
    options = fn.options if isinstance(fn, Alt) else [fn]
    for f in options:
        if isinstance(f, Func) and f.cls is not None:
            k = keeper(f.cls)
            if k is not None:
                return f, k
    return None


def head_written(finder, node: ast.Call, frame) -> bool:
    """A call of a keeper's head writer from outside its class: a candidate of the system message
    holding the text it is given, followed by the conversation the instance keeps (see the module
    docstring). True when a layout was added."""
    from .message_candidates import message_list
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return False
    found = _keeper_method(finder.ev, node, frame)
    if found is None:
        return False
    fn, k = found
    param = k.heads.get(fn.node.name)
    text_node = None if param is None else argument_for(fn.node, node, param, method=True)
    if text_node is None:
        return False
    receiver = node.func.value
    stored = k.stored.get(fn.node.name)
    if stored is not None:
        _seed(finder.ev, receiver, frame, k, stored)
    span = finder.m.span(node)
    held = f"{finder.m.code(receiver)}.{k.attr}"
    history = Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, expr=held, span=span,
                      evidence=f"the conversation kept in `{held}`, grown by the methods of its class",
                      origin=span, origin_note="the conversation the instance keeps after its system message")
    text = finder.ev.eval(text_node, frame)
    start = _at_start(node, frame) or _restarted(node, frame, k)
    if start is not None:
        text = _written_once(text, finder.m.code(start))
    message = Mapping({"role": Text([Segment(text="system", span=span)]), "content": text}, span=span)
    return message_list(finder, node, Seq([message, Spread(Text([history]), span, held)]), frame)


def _at_start(node: ast.Call, frame) -> ast.expr | None:
    """The test of an `if` of the calling function around `node` that holds only on the first turn
    of the conversation: a counter of the instance that its methods step (`self.turn += 1`) compared
    with 0 (`if self.turn == 0:`, `if not self.turn:`, `self.turn < 1`); else None."""
    func, cls = frame.func, frame.cls
    if not isinstance(func, _FUNCS) or cls is None:
        return None
    for stmt in walk_statements(func.body):
        if isinstance(stmt, ast.If) and stmt.body and stmt.body[0].lineno <= node.lineno \
                and node.end_lineno <= stmt.body[-1].end_lineno and _counter_at_zero(stmt.test, cls):
            return stmt.test
    return None


def _restarted(node: ast.Call, frame, k: Keeper) -> ast.AST | None:
    """The statement of the calling function before `node` that starts the conversation of the
    same receiver anew: a call of one of the keeper's resets (`self.judge.reset()`), or a new
    instance bound to it (`self.judge = Keeper(...)`, `agent = make_agent(...)`); else None."""
    func = frame.func
    if not isinstance(func, _FUNCS):
        return None
    receiver = ast.unparse(node.func.value)
    found = None
    for stmt in walk_statements(func.body):
        if stmt.lineno >= node.lineno:
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute) \
                and stmt.value.func.attr in k.resets and ast.unparse(stmt.value.func.value) == receiver:
            found = stmt if found is None or stmt.lineno > found.lineno else found
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and ast.unparse(stmt.targets[0]) == receiver \
                and isinstance(stmt.value, ast.Call):
            found = stmt if found is None or stmt.lineno > found.lineno else found
    return found


def _counter_at_zero(test, cls: ast.ClassDef) -> bool:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _self_attr(test.operand) is not None and stepped(cls, _self_attr(test.operand))
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if isinstance(left, ast.Constant):
            left, right = right, left
            op = {ast.Lt: ast.Gt, ast.Gt: ast.Lt}.get(type(op), type(op))()
        return _self_attr(left) is not None and stepped(cls, _self_attr(left)) and isinstance(right, ast.Constant) \
            and (isinstance(op, ast.Eq) and right.value == 0 or isinstance(op, ast.Lt) and right.value == 1)
    return False


def _written_once(value, start: str):
    """`value` with its dynamic content marked `written_once` (per-request content made
    per-conversation): written into the system message when the conversation starts (`start`: the
    test of its first turn, or the statement that starts it anew) and re-sent unchanged with it."""
    if isinstance(value, Alt):
        return Alt([_written_once(o, start) for o in value.options], value.span, value.fallback)
    if isinstance(value, Text):
        note = f"written into the system message when the conversation starts (`{start}`), then re-sent with it"
        return Text([s if s.is_static else replace(
            s, written_once=True, volatility=Volatility.PER_CONVERSATION if s.volatility is Volatility.PER_REQUEST
            else s.volatility, evidence=f"{s.evidence}; {note}" if s.evidence else note) for s in value.segs])
    return value


def _seed(ev, receiver, frame, k: Keeper, stored: str) -> None:
    """Tell the evaluator what `receiver.<stored>` holds before the call: the text the instance was
    set up with (`setup_text`), when it is known."""
    text = setup_text(ev, receiver, frame, k)
    if text is None:
        return
    value = ev.eval(receiver, frame)
    for obj in (value.options if isinstance(value, Alt) else [value]):
        if isinstance(obj, Obj) and obj.args and isinstance(obj.args[0], ClassRef) and keeper(obj.node) is k:
            ev.know_member(obj, stored, text)


def setup_text(ev, receiver, frame, k: Keeper):
    """The text the instance held in `receiver` (`self.planner`) was set up with, from each
    assignment of that attribute in the class of `frame` and its bases (one value per assignment:
    an Alt): the argument of a constructor call for the parameter `__init__` hands to a head
    writer, or of a factory call for the parameter the factory hands to the head writer of the
    instance it makes. None when an assignment gives no such text."""
    attr = _self_attr(receiver)
    if attr is None or frame.cls is None:
        return None
    values = []
    for module, c in ev.mro(frame.module, frame.cls):
        for method, value in self_assigns(c, attr):
            if not isinstance(value, ast.Call):
                return None
            mframe = ev.unbound_frame(module, method, c, frame.depth + 1)
            given = _given(ev, value, mframe, k)
            if given is None:
                return None
            values.append(given)
    if not values:
        return None
    return values[0] if len(values) == 1 else Alt(values)


def _given(ev, call: ast.Call, frame, k: Keeper):
    """The value `call` (a constructor of the keeper, or a factory) gives the head writer, or None."""
    callee = ev.eval(call.func, frame)
    if isinstance(callee, ClassRef) and keeper(callee.node) is k:
        func = next((s for s in callee.node.body if isinstance(s, _FUNCS) and s.name == "__init__"), None)
        receiver, method = "self", True
    elif isinstance(callee, Func):
        func, receiver, method = callee.node, None, callee.cls is not None
    else:
        return None
    param = None if func is None else _handed(func, receiver, k)
    if param is None:
        return None
    node = argument_for(func, call, param, method=method)
    return None if node is None else ev.eval(node, frame)


def _handed(func, receiver: str | None, k: Keeper) -> str | None:
    """The parameter of `func` it passes to a head writer of `k` called on `receiver` (`self` in an
    `__init__`; any local name in a factory), else None."""
    params = param_names(func, receiver=False)
    for s in walk_statements(func.body):
        if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)):
            continue
        f = s.value.func
        if not (isinstance(f, ast.Attribute) and f.attr in k.heads and isinstance(f.value, ast.Name)
                and (f.value.id == receiver if receiver else f.value.id not in ("self", "cls"))):
            continue
        args = [*s.value.args, *(kw.value for kw in s.value.keywords)]
        if len(args) == 1 and isinstance(args[0], ast.Name) and args[0].id in params:
            return args[0].id
    return None


# ---------------------------------------------------------------- removals from a holder
def removed_shape(call: ast.Call) -> bool:
    """True for a call worth resolving as a keeper's remover: a method of an object other than
    `self` / `cls`, named with a word of `REMOVE_WORDS` (a cost gate, as `HEAD_WORDS`), given only
    the index 0 or 1 (`self.planner.remove_message_at(1)`); not the list's own `pop`."""
    f = call.func
    return isinstance(f, ast.Attribute) and f.attr != "pop" and any(w in f.attr.lower() for w in REMOVE_WORDS) \
        and len(call.args) == 1 and not call.keywords and isinstance(call.args[0], ast.Constant) \
        and type(call.args[0].value) is int and call.args[0].value in (0, 1) \
        and not (isinstance(f.value, ast.Name) and f.value.id in ("self", "cls"))


def removed_at(ev, call: ast.Call, frame) -> str | None:
    """The kept list a call of a keeper's remover cuts (`self.planner.remove_message_at(1)` ->
    "self.planner.messages"), as source text; None when the method is no keeper's remover."""
    found = _keeper_method(ev, call, frame)
    if found is None or found[0].node.name not in found[1].removers:
        return None
    return f"{ast.unparse(call.func.value)}.{found[1].attr}"
