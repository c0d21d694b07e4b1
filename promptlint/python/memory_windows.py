"""A conversation kept on an instance and cut or rewritten by the method that adds to it (PRM105):
a memory class whose add method

- grows the list (`self._messages.insert(i, message)`, `.append`, `.extend`; `.put` of a FIFO queue the
  class makes, `self.history_queue = queue.Queue()`) and, under a test
  that compares a size with a bound (`while self.tokens_used > capacity:`, or a method of the
  class that returns such a comparison: `if self._is_overflow():`), first removes an item of it
  (`self._messages.pop(i)`, `.remove(m)`, `del self._messages[i]`, a deque's `.popleft()`, the queue's
  `.get()` while `qsize()` is over a threshold, or a call of a method of the
  same class that does: `await self.delete(oldest)`): once full, every add pushes an older
  message out, a sliding window;
- or replaces the list, on every call, with a new list display built after reading the old one
  and not holding it (`self._messages = [SystemMessage(summary)]` where `summary` is made from
  `[*self._messages, message]`): the conversation is rewritten on every add.

The list is the conversation by its name (`_messages`, `history`: the words of
`history_cuts.CONVERSATION_WORDS`), a generic one (`history`) only when what the module adds to it
is a message (`stored_cuts.held_conversation`: a log of records, `self._history.append(entry)`, is not),
or, whatever its name, because a method of the class turns its items one by one into messages
with a role read from each item (`for event in self.event_queue: messages.append({"role":
Roles(event.kind), "content": event.content})`; a constant role, every item a user message, is a
list of notes). A deque or queue taken from its head (`popleft()`, `get()`) is one only when what is
added to it is a message (a display, a name of one, or a turn of them: `(query, response)`). A removal of the newest item (`.pop()`, `.pop(-1)`), a clear
(`self._messages = []`) and a replacement under a condition (a cut in steps, at a limit) are not
windows. Reported where the list is cut (the rule raises it to a warning when a request of the
module sends the list as its history: `module_facts.gather`, `stored_cuts.sent_history`).
"""
from __future__ import annotations

import ast

from .module import self_attr
from .module import statements
from .text_gates import holds_any
from .prompt_names import words
from .history_cuts import CONVERSATION_WORDS
from .stored_cuts import held_conversation, message_item
from .walk import subtree

_GROWS = ("append", "insert", "extend", "put", "put_nowait")
_REMOVES = ("pop", "remove", "popleft")
#: A FIFO queue's add and take (`queue.Queue`, `asyncio.Queue`, `multiprocessing.Queue`): the take
#: is the oldest item. Read only for an attribute the class assigns such a queue.
_QUEUE_ADDS = ("put", "put_nowait")
_QUEUE_TAKES = ("get", "get_nowait")
_FIFO = ("Queue", "SimpleQueue", "JoinableQueue")
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _conversation(attr: str) -> bool:
    return bool(words(attr) & CONVERSATION_WORDS)


def queues(cls) -> frozenset[str]:
    """The attributes of `self` a method of `cls` assigns a FIFO queue (`self.history_queue =
    queue.Queue()`, `asyncio.Queue(maxsize=0)`; not a `LifoQueue` or a `PriorityQueue`)."""
    out = set()
    for n in subtree(cls):
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call):
            f = n.value.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if name in _FIFO:
                out |= {a for t in n.targets if (a := self_attr(t)) is not None}
    return frozenset(out)


def _grown(func, rendered: frozenset[str] = frozenset(), fifo: frozenset[str] = frozenset()) -> set[str]:
    """The conversation attributes of `self` that `func` adds to (named for it, or in `rendered`);
    `put` counts only for a queue of `fifo`."""
    return {a for n in subtree(func) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr in _GROWS and (a := self_attr(n.func.value)) is not None
            and (n.func.attr not in _QUEUE_ADDS or a in fifo) and (_conversation(a) or a in rendered)}


def rendered_as_messages(cls) -> frozenset[str]:
    """The attributes of `self` that a method of `cls` turns item by item into messages with a role
    read from the item (`for event in self.event_queue: messages.append({"role": Roles(event.kind),
    "content": event.content})`, or a comprehension whose element is such a dict): whatever their
    name, they hold the conversation."""
    out = set()
    for func in cls.body:
        if not isinstance(func, _FUNCS):
            continue
        for n in subtree(func):
            if isinstance(n, (ast.For, ast.AsyncFor)):
                held, var, body = self_attr(n.iter), n.target, n.body
            elif isinstance(n, (ast.ListComp, ast.GeneratorExp)) and len(n.generators) == 1:
                held, var, body = self_attr(n.generators[0].iter), n.generators[0].target, [n.elt]
            else:
                continue
            if held is None or not isinstance(var, ast.Name):
                continue
            if any(isinstance(d, ast.Dict) and _own_role(d, var.id) for b in body for d in subtree(b)):
                out.add(held)
    return frozenset(out)


def _own_role(d: ast.Dict, item: str) -> bool:
    """True for a message display whose role is read from the item (`{"role": Roles(e.kind.value),
    "content": e.text}`): items of several roles, a conversation; a constant role (`{"role": "user",
    "content": note}`: every item the same kind of message) says no more than a list of notes."""
    keys = {k.value: v for k, v in zip(d.keys, d.values) if isinstance(k, ast.Constant)}
    role = keys.get("role")
    return "content" in keys and role is not None and any(
        isinstance(x, ast.Name) and x.id == item for x in subtree(role))


def _removal(node, attr: str, fifo: frozenset[str] = frozenset()) -> bool:
    """True for a statement's call or `del` that removes an item of `self.attr` other than the newest
    (`.pop(0)`, `.popleft()` of a deque, `.get()` of a FIFO queue of `fifo`)."""
    if isinstance(node, ast.Delete):
        return any(isinstance(t, ast.Subscript) and self_attr(t.value) == attr for t in node.targets)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _QUEUE_TAKES:
        return attr in fifo and self_attr(node.func.value) == attr
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _REMOVES \
            and self_attr(node.func.value) == attr:
        if node.func.attr == "pop":
            arg = node.args[0] if node.args else None
            if arg is None or isinstance(arg, ast.UnaryOp) and isinstance(arg.op, ast.USub) \
                    or isinstance(arg, ast.Constant) and not isinstance(arg.value, int):
                return False  # the newest item, or a key
        return True
    return False


def _removers(cls, attr: str, fifo: frozenset[str] = frozenset()) -> set[str]:
    """The methods of `cls` that remove an item of `self.attr` (`delete(self, message)`)."""
    return {f.name for f in cls.body if isinstance(f, _FUNCS) and any(_removal(n, attr, fifo) for n in subtree(f))}


def _fifo_taken(cls, attr: str) -> bool:
    """True when a method of `cls` takes `self.attr` from its head as a FIFO: a deque's `popleft()`
    or a queue's `get()` / `get_nowait()`."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and self_attr(n.func.value) == attr
               and n.func.attr in ("popleft", *_QUEUE_TAKES) for n in subtree(cls))


def _adds_messages(cls, attr: str) -> bool:
    """True when a method of `cls` adds a message to `self.attr` (`stored_cuts.message_item`): a
    FIFO deque or queue is a conversation only then (time windows, rate limits and seen-id sets
    are kept in deques too, `self._history.append((level, duration))`)."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _GROWS
               and self_attr(n.func.value) == attr and n.args and message_item(n.args[-1]) for n in subtree(cls))


def _orders(node) -> bool:
    """True when an expression holds an ordering comparison (`len(self.m) > self.size`)."""
    return any(isinstance(n, ast.Compare) and any(isinstance(op, (ast.Gt, ast.GtE, ast.Lt, ast.LtE)) for op in n.ops)
               for n in subtree(node))


def _size_test(test, cls) -> bool:
    """True for a test that compares a size with a bound: an ordering comparison in it, or a call
    of a method of the class that returns one (`self._is_overflow()`)."""
    if _orders(test):
        return True
    called = {a for n in subtree(test) if isinstance(n, ast.Call) and (a := self_attr(n.func)) is not None}
    return any(isinstance(f, _FUNCS) and f.name in called and any(
        isinstance(r, ast.Return) and r.value is not None and _orders(r.value) for r in subtree(f)) for f in cls.body)


def _conditional_removal(func, cls, attr: str, removers: set[str], fifo: frozenset[str] = frozenset()):
    """The first call or statement under an `if` / `while` of `func` whose test compares a size
    with a bound that removes an item of `self.attr` (directly or by a method of `removers`), else None."""
    for test in subtree(func):
        if not isinstance(test, (ast.If, ast.While)) or not _size_test(test.test, cls):
            continue
        for stmt in test.body:
            for n in subtree(stmt):
                if _removal(n, attr, fifo):
                    return n
                if isinstance(n, ast.Call) and self_attr(n.func) in removers:
                    return n
    return None


def _replaced(func) -> tuple[ast.AST, str] | None:
    """(the assignment, the attribute) when a top-level statement of `func` replaces a conversation
    attribute by a list display that does not hold it, after the method read it."""
    params = [a for a in (*func.args.args, *func.args.kwonlyargs) if a.arg != "self"]
    if not params:
        return None
    for stmt in func.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.value, ast.List)
                and stmt.value.elts):
            continue
        attr = self_attr(stmt.targets[0])
        if attr is None or not _conversation(attr):
            continue
        if any(self_attr(n) == attr for n in subtree(stmt.value)):
            continue  # the old list kept in the new one (`[summary, *self.messages[-4:]]`)
        read = any(self_attr(n) == attr for s in func.body if s.lineno < stmt.lineno for n in subtree(s))
        if read:
            return stmt, attr
    return None


def memory_windows(module) -> list[tuple[ast.AST, str, str, str]]:
    """(where, `self.attr`, method name, "slides" | "rewrites") for each conversation a method of
    a class of the module cuts or rewrites as it adds to it."""
    out, seen = [], set()
    for cls in statements(module.tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        rendered, fifo = None, queues(cls) if holds_any(module, cls, ("Queue",)) else frozenset()
        for func in cls.body:
            if not isinstance(func, _FUNCS):
                continue
            # (a method that adds to a list names the adding method: the cheap test before its walk)
            if rendered is None and holds_any(module, func, _GROWS):
                rendered = rendered_as_messages(cls)
            for attr in sorted(_grown(func, rendered or frozenset(), fifo)) if holds_any(module, func, _GROWS) else ():
                at = _conditional_removal(func, cls, attr, _removers(cls, attr, fifo) - {func.name}, fifo)
                if at is not None and (cls, attr, "slides") not in seen and (
                        attr in (rendered or ()) or held_conversation(module, f"self.{attr}")) and (
                        not _fifo_taken(cls, attr) or _adds_messages(cls, attr)):  # (a FIFO: only of messages)
                    seen.add((cls, attr, "slides"))
                    out.append((at, f"self.{attr}", func.name, "slides"))
            replaced = _replaced(func)
            if replaced is not None and (cls, replaced[1], "rewrites") not in seen:  # one cause per list
                seen.add((cls, replaced[1], "rewrites"))
                out.append((replaced[0], f"self.{replaced[1]}", func.name, "rewrites"))
    return out
