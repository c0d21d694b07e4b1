"""Facts of class bodies, read from the syntax tree once per class node (kept on it): the
`self.ATTR` assignments, annotations and growth of a class's methods, the members and fields a
class body defines (annotated, required, None by default), and the annotation of a list of messages. No evaluation: the evaluator's objects
(`objects.py`) read them."""
from __future__ import annotations

import ast
import re
from collections import deque

from ...classify import CONVERSATION_WORDS
from ..module import unparsed
from ..walk import subtree
from .class_members import members_named
from .configured import same_attribute as _same_attribute

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def walk_statements(body):
    """The statements of a block, recursively, without entering nested defs and classes (breadth
    first: a block's statements, then those nested in them)."""
    stack = deque(body)
    while stack:
        stmt = stack.popleft()
        if isinstance(stmt, (*_FUNCS, ast.ClassDef)):
            continue
        yield stmt
        for attr in ("body", "orelse", "finalbody"):
            sub = getattr(stmt, attr, None)
            if isinstance(sub, list):
                stack.extend(sub)
        for handler in getattr(stmt, "handlers", ()):
            stack.extend(handler.body)
        for case in getattr(stmt, "cases", ()):
            stack.extend(case.body)


def _class_index(cls: ast.ClassDef) -> tuple[dict, set]:
    """The `self.ATTR` writes of a class's methods, read once per class (a syntactic fact of the
    tree, cached on the class node): ATTR -> [(method, value node)] of its assignments in method
    and statement order (`self_assigns`), and the ATTRs a method appends to, extends or `+=`
    with something other than a number (`grown`), each with [(method, node added, True when it
    is a list of items: `extend`, `+=`)] (`added_to`), the ATTRs it steps as counters (`self.turn += 1`,
    `-=`, `*=`: `stepped`), the annotations of `self.ATTR: T = ...` (`self_annotation`), and the
    keys its methods set on a dict `self.ATTR` (`keyed_writes`)."""
    cached = getattr(cls, "_promptlint_self_index", None)
    if cached is not None:
        return cached
    assigns: dict[str, list] = {}
    grows: dict[str, list] = {}  # ATTR -> the value nodes added to it
    steps: set[str] = set()
    annotations: dict[str, ast.AST] = {}
    keyed: dict[str, list] = {}  # ATTR -> [(method, statement)] of `self.ATTR["k"] = v`, `self.ATTR.update(...)`
    for stmt in cls.body:
        if not isinstance(stmt, _FUNCS):
            continue
        for node in walk_statements(stmt.body):
            if isinstance(node, ast.Assign):
                for t, value in _paired(node):
                    if isinstance(t, ast.Subscript) and _is_self(t.value) and isinstance(t.slice, ast.Constant) \
                            and isinstance(t.slice.value, str):
                        keyed.setdefault(t.value.attr, []).append((stmt, node))
                    if _is_self(t) and not _same_attribute(t.attr, value):
                        entries = assigns.setdefault(t.attr, [])
                        if not entries or entries[-1][0] is not stmt or entries[-1][1] is not value:
                            entries.append((stmt, value))
            elif isinstance(node, ast.AnnAssign):
                if _is_self(node.target):
                    annotations.setdefault(node.target.attr, node.annotation)
                if node.value is not None and _is_self(node.target):
                    assigns.setdefault(node.target.attr, []).append((stmt, node.value))
            elif isinstance(node, ast.AugAssign):
                if _is_self(node.target) and isinstance(node.op, ast.Add) and not _number(node.value):
                    grows.setdefault(node.target.attr, []).append((stmt, node.value, True))
                elif _is_self(node.target):
                    steps.add(node.target.attr)  # `self.iteration += 1`: a counter, no list
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute) \
                    and node.value.func.attr in ("append", "extend", "insert") and _is_self(node.value.func.value) \
                    and _list_arity(node.value):
                call = node.value
                added = call.args[-1] if call.args else None
                grows.setdefault(call.func.value.attr, []).append((stmt, added, call.func.attr == "extend"))
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute) \
                    and node.value.func.attr == "update" and _is_self(node.value.func.value) and len(node.value.args) <= 1:
                keyed.setdefault(node.value.func.value.attr, []).append((stmt, node))
    cls._promptlint_self_index = (assigns, grows, annotations, steps, keyed)
    return cls._promptlint_self_index


def _paired(node: ast.Assign) -> list[tuple[ast.AST, ast.AST]]:
    """(target, value node) of each target of an assignment: its value for a single target, and
    each element of a parallel assignment for the element of a tuple or list written in the same
    place (`self.prompt, self.rules = prompt, rules`: a constructor's settings, one statement).
    Elements of a value not written as a tuple (`self.a, self.b = pair()`) are not paired."""
    out = []
    for t in node.targets:
        if isinstance(t, (ast.Tuple, ast.List)) and isinstance(node.value, (ast.Tuple, ast.List)) \
                and len(t.elts) == len(node.value.elts) \
                and not any(isinstance(e, ast.Starred) for e in (*t.elts, *node.value.elts)):
            out.extend(zip(t.elts, node.value.elts))
        else:
            out.append((t, node.value))
    return out


def _list_arity(call: ast.Call) -> bool:
    """True for a call given what a list's method takes: one item for `append` / `extend`, an
    index and an item for `insert`, no keyword (`self.store.append(session_id, message)` is a
    store's own method, not a list grown)."""
    if call.keywords:
        return False
    if any(isinstance(a, ast.Starred) for a in call.args):
        return True  # (`insert(*where)`: its count is not written)
    return len(call.args) == (2 if call.func.attr == "insert" else 1)


def _number(node) -> bool:
    """True for a number literal (`1`, `0.5`, `-1`): what a counter is stepped by."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _is_self(target) -> bool:
    return isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"


def self_assigns(cls: ast.ClassDef, attr: str) -> list:
    """(method, value node) of every `self.attr = value` in the class's methods."""
    return _class_index(cls)[0].get(attr, [])


def self_annotation(cls: ast.ClassDef, attr: str) -> ast.AST | None:
    """The annotation of the first `self.attr: T = ...` in the class's methods, or None."""
    return _class_index(cls)[2].get(attr)


def stepped(cls: ast.ClassDef, attr: str) -> bool:
    """True when a method changes `self.attr` by an augmented assignment that grows no list: a
    counter stepped by a number (`self.iteration += 1`), `-=`, `*=`..."""
    return attr in _class_index(cls)[3]


def keyed_writes(cls: ast.ClassDef, attr: str) -> list:
    """(method, statement) of every `self.attr["key"] = value` and `self.attr.update(...)` in the
    class's methods, in method and statement order: keys set on a dict attribute."""
    return _class_index(cls)[4].get(attr, [])


def grown(cls: ast.ClassDef, attr: str) -> bool:
    """True when a method appends to, extends or `+=` the list `self.attr`."""
    return attr in _class_index(cls)[1]


def grown_attrs(cls: ast.ClassDef) -> list[str]:
    """The attributes a method of `cls` appends to, extends or `+=` (`grown`), sorted."""
    return sorted(_class_index(cls)[1])


def added_to(cls: ast.ClassDef, attr: str) -> list:
    """(method, node added, True for a list of items) of every `self.attr.append(x)` /
    `.insert(i, x)` (x), `.extend(xs)` / `+= xs` (xs) in the class's methods."""
    return _class_index(cls)[1].get(attr, [])


#: The methods that set an object up: what they compute is computed once per object.
SETUP_METHODS = ("__init__", "__post_init__", "setup")


def grown_at_setup(cls: ast.ClassDef, attr: str) -> bool:
    """True when the list `self.attr` is assigned and grown (`grown`) only in the methods that set
    the object up (`setup_methods`): built once per object (`self.names = names.copy()`, then
    `self.names.append("noop")` in `__init__`), not across the turns of a conversation."""
    adds, assigns = added_to(cls, attr), self_assigns(cls, attr)
    if not adds:
        return False
    setup = setup_methods(cls)
    return all(m.name in setup for m, *_ in (*adds, *assigns))


def held_writes(cls: ast.ClassDef) -> frozenset[tuple[str, str]]:
    """(HOLDER, ATTR) of every `self.HOLDER.ATTR = ...` (also `+=`, annotated) in the methods of
    `cls`: fields of an object the instance holds (a state record) that its methods set, whatever
    the record's own class says they hold. Cached on the class node."""
    cached = getattr(cls, "_promptlint_held_writes", None)
    if cached is not None:
        return cached
    found = set()
    for stmt in cls.body:
        if isinstance(stmt, _FUNCS):
            for node in walk_statements(stmt.body):
                targets = node.targets if isinstance(node, ast.Assign) else \
                    [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
                for t in targets:
                    if isinstance(t, ast.Attribute) and _is_self(t.value):
                        found.add((t.value.attr, t.attr))
    cls._promptlint_held_writes = frozenset(found)
    return cls._promptlint_held_writes


def setup_methods(cls: ast.ClassDef) -> frozenset[str]:
    """`SETUP_METHODS` and the methods of `cls` that only they use (`self._setup_internals()` in
    `__init__`), and only those, transitively: what runs once, when an object is made. A method
    named anywhere else in the class (called, or handed on as `self.m`) is not one. Cached on the
    class node."""
    cached = getattr(cls, "_promptlint_setup", None)
    if cached is not None:
        return cached
    methods = {s.name: s for s in cls.body if isinstance(s, _FUNCS)}
    users: dict[str, set] = {name: set() for name in methods}  # method -> the methods that name it
    for name, f in methods.items():
        for n in subtree(f):
            if isinstance(n, ast.Attribute) and n.attr in users and isinstance(n.value, ast.Name) and n.value.id == "self":
                users[n.attr].add(name)
    setup = set(SETUP_METHODS)
    grew = True
    while grew:
        grew = False
        for name, by in users.items():
            if name not in setup and by and by <= setup:
                setup.add(name)
                grew = True
    cls._promptlint_setup = frozenset(setup)
    return cls._promptlint_setup


#: Roles a `(role, text)` pair names (LangChain takes such tuples as messages).
_ROLES = frozenset({"system", "user", "human", "assistant", "ai", "model", "tool"})


def holds_conversation(cls: ast.ClassDef, attr: str) -> bool:
    """True when the list `self.attr` that the class grows is the conversation by more than its
    growth: a word of its name says so (`classify.CONVERSATION_WORDS`: `self.transcript`) unless the
    name says messages and every item added to it is a dict display with no key a message has
    (`not_a_message`: a UI's display log `self.messages`), or what
    a method adds to it is a message (`message_node`), written there or bound to a name of that
    method (`msg = HumanMessage(q)`, then `self.log.append(msg)`), or a turn written as text that
    opens with its speaker's label (`self.log.append(f"User: {q}")`: `turn_line`), or a value the
    class also sends as a message's content (`_sent_message`: the user's text). A list of
    anything else (candidates, questions asked, notes) grows too, but is no conversation."""
    named = set(re.findall(r"[a-z]+", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", attr).lower()))
    if named & CONVERSATION_WORDS:
        if not named & MESSAGE_WORDS:
            return True  # (`self.history` of an agent's steps is the history it replays, whatever its items)
        added = [_bound(method, i) for method, node, many in added_to(cls, attr)
                 for i in (node.elts if many and isinstance(node, (ast.List, ast.Tuple)) else [node])]
        return not added or not all(not_a_message(i) for i in added)  # (a UI's display log is not)
    for method, node, many in added_to(cls, attr):
        items = node.elts if many and isinstance(node, (ast.List, ast.Tuple)) else [node]
        if any(message_node(bound) or turn_line(bound) for bound in (_bound(method, i) for i in items)):
            return True
        if any(isinstance(i, ast.Name) and _sent_message(cls, method, i.id) for i in items):
            return True
    return False


def _sent_message(cls: ast.ClassDef, method, name: str) -> bool:
    """True when what `method` adds, `name`, is a message the class sends: a method writes it as the
    content of a message with a role (`{"role": "user", "content": text}`) and adds it there
    itself, or hands it to `method`, whose parameter `name` is (`self._remember(text)`)."""
    args = [a.arg for a in (*method.args.posonlyargs, *method.args.args)]
    at = args.index(name) - (1 if args and args[0] == "self" else 0) if name in args else None
    for other in (s for s in cls.body if isinstance(s, _FUNCS)):
        sent, calls = _message_contents(other)
        if other is method and name in sent:
            return True
        if at is not None and at >= 0 and sent and any(
                n.func.attr == method.name and len(n.args) > at
                and isinstance(n.args[at], ast.Name) and n.args[at].id in sent for n in calls):
            return True
    return False


def _message_contents(func) -> tuple[frozenset, list]:
    """(the names `func` writes as the content of a message with a role, `{"role": ..., "content":
    text}`; its calls of a method of `self`, `self.m(...)`), anywhere in it, nested functions
    too. Read once per function node (`_sent_message` asks for every item each method of the
    class adds, about every method of the class)."""
    cached = getattr(func, "_promptlint_contents", None)
    if cached is not None:
        return cached
    nodes = subtree(func)
    sent = frozenset(v.id for n in nodes if isinstance(n, ast.Dict)
                     and any(isinstance(k, ast.Constant) and k.value == "role" for k in n.keys)
                     for k, v in zip(n.keys, n.values) if isinstance(k, ast.Constant) and k.value == "content"
                     and isinstance(v, ast.Name))
    calls = [n for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and isinstance(n.func.value, ast.Name) and n.func.value.id == "self"]
    func._promptlint_contents = (sent, calls)
    return sent, calls


#: A speaker's label that opens a turn written as text ("User: ", "Assistant:", "Human:").
_TURN_LABEL = re.compile(r"\s*(?:user|human|assistant|ai|bot|model|system)\s*:", re.IGNORECASE)


def turn_line(node) -> bool:
    """True for text written in the code that opens with a speaker's label: an f-string or string
    constant such as `f"User: {q}"` or `"Assistant: " + answer` (a line of a transcript)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return turn_line(node.left)
    if isinstance(node, ast.JoinedStr) and node.values:
        node = node.values[0]
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and _TURN_LABEL.match(node.value) is not None


#: Words of a list's name that say its items are messages: items that say they are not
#: (`not_a_message`) contradict the name.
MESSAGE_WORDS = frozenset({"message", "messages", "msg", "msgs"})
#: Keys of a dict display that may be a message (or hold one) in some API or framework.
_MESSAGE_KEYS = frozenset({"role", "content", "parts", "message", "messages", "type", "data", "author", "speaker",
                           "sender", "from", "user", "assistant", "human", "ai", "tool_calls", "name"})


def not_a_message(node) -> bool:
    """True for an item added to a list that says it is not a message: a dict display whose keys
    are all constant strings, none a key a message has (`{"id": ..., "text": ..., "level": ...}`:
    a line of a UI's display log)."""
    return isinstance(node, ast.Dict) and bool(node.keys) and all(
        isinstance(k, ast.Constant) and isinstance(k.value, str) and k.value not in _MESSAGE_KEYS for k in node.keys)


def message_node(node) -> bool:
    """True for a message written in the code: a call of a message class (`HumanMessage(...)`,
    `ChatMessage(role=..., ...)`: a name ending in Message, or a `role=` keyword), a dict display
    with a "role" key, or a `("user", text)` pair."""
    if isinstance(node, ast.Call):
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        return name.endswith("Message") or any(k.arg == "role" for k in node.keywords)
    if isinstance(node, ast.Dict):
        return any(isinstance(k, ast.Constant) and k.value == "role" for k in node.keys)
    return isinstance(node, ast.Tuple) and len(node.elts) == 2 and isinstance(node.elts[0], ast.Constant) \
        and node.elts[0].value in _ROLES


def _bound(method, node):
    """The value a name is last bound to in `method` before it is used (`msg = HumanMessage(q)`),
    or its annotation's class called (a parameter `msg: HumanMessage`); else the node itself."""
    if not isinstance(node, ast.Name):
        return node
    binds = [stmt for stmt in walk_statements(method.body) if isinstance(stmt, ast.Assign)
             and stmt.lineno < node.lineno and any(isinstance(t, ast.Name) and t.id == node.id for t in stmt.targets)]
    found = max(binds, key=lambda stmt: stmt.lineno).value if binds else node
    if found is node:
        a = method.args
        ann = next((p.annotation for p in (*a.posonlyargs, *a.args, *a.kwonlyargs) if p.arg == node.id), None)
        if isinstance(ann, (ast.Name, ast.Attribute)):
            return ast.Call(func=ann, args=[], keywords=[])
    return found


def changed_by_methods(cls: ast.ClassDef, attr: str) -> bool:
    """True when a method of `cls` sets `self.attr` again, grows it as a list or steps it as a
    counter (`self_assigns`, `grown`, `stepped`): the attribute does not keep what the instance
    was built with."""
    return bool(self_assigns(cls, attr)) or grown(cls, attr) or stepped(cls, attr)


_LISTS = ("list", "List", "Sequence", "Iterable", "MutableSequence")


def optional_of(ann):
    """`X` of `Optional[X]`, `X | None` or `"X"` (a forward reference); the annotation otherwise."""
    if isinstance(ann, ast.Subscript) and isinstance(ann.value, (ast.Name, ast.Attribute)) \
            and (ann.value.id if isinstance(ann.value, ast.Name) else ann.value.attr) == "Optional":
        ann = ann.slice
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        sides = [x for x in (ann.left, ann.right) if not (isinstance(x, ast.Constant) and x.value is None)]
        ann = sides[0] if len(sides) == 1 else None
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str) and ann.value.isidentifier():
        ann = ast.copy_location(ast.Name(ann.value, ast.Load()), ann)
    return ann


def unannotated(ann):
    """The type an `Annotated[T, ...]` annotation (`typing` or `typing_extensions`) gives: `T`
    (`Annotated[Calendar, Depends("calendar")]` -> `Calendar`: what follows it is metadata for a
    framework, not the type); any other annotation (None too) as it is."""
    if isinstance(ann, ast.Subscript) and (isinstance(ann.value, ast.Name) and ann.value.id == "Annotated"
                                           or isinstance(ann.value, ast.Attribute) and ann.value.attr == "Annotated"):
        inner = ann.slice
        return inner.elts[0] if isinstance(inner, ast.Tuple) and inner.elts else inner
    return ann


def message_list(ann) -> bool:
    """True for the annotation of a list of messages (`list[Message]`, `List["ChatMessage"]`,
    `Sequence[BaseMessage]`): a class whose name ends in Message, in a list."""
    if not (isinstance(ann, ast.Subscript) and isinstance(ann.value, (ast.Name, ast.Attribute))):
        return False
    outer = ann.value.id if isinstance(ann.value, ast.Name) else ann.value.attr
    inner = ann.slice
    if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
        name = inner.value.rsplit(".", 1)[-1]
    elif isinstance(inner, (ast.Name, ast.Attribute)):
        name = inner.id if isinstance(inner, ast.Name) else inner.attr
    else:
        return False
    return outer in _LISTS and name.endswith("Message")


def attrs_factory(module, node) -> tuple[ast.AST | None, bool]:
    """(the factory, whether it takes the instance) of an attrs field's default: `Factory(f,
    takes_self=True)`, `field(default=Factory(f))`, `field(factory=f)` / `attr.ib(factory=f)`;
    (None, False) for any other value."""
    if not isinstance(node, ast.Call):
        return None, False
    short = (module.qualified_name(node.func) or "").rsplit(".", 1)[-1]
    kw = {k.arg: k.value for k in node.keywords if k.arg is not None}
    if short == "Factory":
        made = node.args[0] if node.args else kw.get("factory")
        takes = kw.get("takes_self")
        if takes is None and len(node.args) > 1:
            takes = node.args[1]
        return made, isinstance(takes, ast.Constant) and takes.value is True
    if short in ("field", "ib", "attrib"):
        if "factory" in kw:
            return kw["factory"], False
        if "default" in kw:
            return attrs_factory(module, kw["default"])
    return None, False


def declares(cls: ast.ClassDef, attr: str) -> bool:
    """True when the class body annotates `attr` (a dataclass or pydantic field)."""
    return any(isinstance(s, ast.AnnAssign) for s in members_named(cls, attr))  # (its index: `attr: T`)


def required_field(stmt, attr: str) -> bool:
    """True for a field annotated without a value in a class body (`payload: dict`), not a
    `ClassVar`."""
    return isinstance(stmt, ast.AnnAssign) and stmt.value is None and isinstance(stmt.target, ast.Name) \
        and stmt.target.id == attr and "ClassVar" not in unparsed(stmt.annotation)


def none_default(node) -> bool:
    """True for a class attribute whose default is None (`x = None`, `x: str | None = None`,
    `x: str = Field(default=None)` / `field(default=None)`, pydantic's `PrivateAttr(default=None)`),
    or a required field (`Field(...)`, `Field(description=...)`, `PrivateAttr(...)`): a placeholder
    each instance or a method fills in, not a value of the class."""
    if isinstance(node, ast.Constant) and node.value is None:
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
        name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
        if name in ("Field", "field", "PrivateAttr"):
            kw = {k.arg: k.value for k in node.keywords if k.arg is not None}
            default = kw.get("default", node.args[0] if node.args else None)
            # (no default, or `...`: a required field, which each instance is given)
            return "default_factory" not in kw and (default is None or isinstance(default, ast.Constant)
                                                    and default.value in (None, Ellipsis))
    return False
