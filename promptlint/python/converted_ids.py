"""A fresh id made for a message each time it is converted for a request: facts for PRM103.

A function that converts one message of the conversation into a provider's format (its parameter
is the message: annotated as a message class, `msg: ChatMessage`, or named `msg` / `message`) and
puts a value new on every call (`uuid.uuid4()`, a random value; `classify.UNIQUE_ID_CALLS`) in what
it returns (`return {"id": str(uuid4()), ...}`, an item appended to the list it returns, also as
the default of a lookup: `part.extra.get("id", str(uuid.uuid4()))`) gives an old message another
id every time the history is converted again, on every request: the prefix breaks at the first
such message. An id stored on the message (`msg.id = msg.id or uuid4()`) is made once and is
stable; a function that makes a message (its parameter is a response, not a message) makes it
once too, and so does a function of a message the provider sends back (annotated `LiveServerMessage`,
`ChatCompletionMessage`: a response turned into messages or events).

The id may come from a helper (`def _create_unique_id(): return uuid4().hex[-9:]`, in the module or
imported from another module of the package tree) whose every return is built from such a call. A
converter registered for a message class by `functools.singledispatch` (`@to_api.register(AssistantMessage)
def _(message: AssistantMessage[Any])`) is named by its dispatcher. `fresh_ids` adds the request that
sends the converted conversation: a comprehension or `map` that applies the converter (or a function
that hands its message on to it) to each element of a list named as the conversation, written inside the
arguments of a send call of the module (`messages=[to_api(m) for m in messages]`).

A function that converts the whole conversation (`history_ids.py`: its first parameter is the
conversation, by its name, `chat_history`, `messages`, `chat`, or its annotation, `List[AgentMessage]`,
`ChatHistory`) does the same when it makes such a value inside its walk over the conversation's
messages and puts it in what it returns: a new `uuid4()` file name in each converted file part, or
a temporary file's random name (`tempfile.NamedTemporaryFile(...)`, `mkstemp()`) written into the
text of a deep copy of each message (`int_chat = copy.deepcopy(chat)`, `for m in int_chat: m.content
+= f" file {tmp.name}"`, `return int_chat`). Every call converts the older messages again with new
values. A value written on the caller's messages themselves is made once (the next conversion finds
it there); so is one made outside the walk (an id of the request, not of each message).
"""
from __future__ import annotations

import ast
import re

from .module import statements
from .. import classify
from .walk import child_nodes, own_nodes, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: A list named as the conversation (`messages`, `history`, `self.chat_history`).
_CONVERSATION = re.compile(r"(?i:messag|histor|conversation|dialog|transcript|turns)")
#: Parameter names of one message.
MESSAGE_NAMES = {"msg", "message", "chat_message", "m"}
#: An annotation naming a message class (`ChatMessage`, `Message`, `BaseMessage`), not a provider's
#: parameter type (`ChatCompletionMessageParam`).
_MESSAGE_TYPE = re.compile(r"(?:^|\.)\w*Message$")
#: A message class named as what the provider sends back (`LiveServerMessage`, `ChatCompletionMessage`,
#: `StreamEventMessage`): a function of one turns a response into messages or events, made once.
_INCOMING = re.compile(r"Server|Response|Completion|Chunk|Delta|Stream|Event")
#: The text of a function of one message (`def to_api(msg: ChatMessage)`, `def convert(self,
#: message)`): a module without one is not walked (bounded repetition: linear).
CONVERTS_MESSAGE = re.compile(r"def[ \t]{1,8}\w{1,60}\((?:(?:self|cls),[ \t]{0,4})?"
                              r"(?:msg|message|chat_message|m\b|\w{1,40}:[ \t]{0,4}[\"']?[\w.]{0,60}Message\b)")


ID_WORDS = ("uuid", "random", "secrets", "ulid", "nanoid", "ObjectId", "tempfile")
#: Calls whose value holds a new random file name on every call (`tmp.name`, `mkstemp()[1]`).
FRESH_FILES = frozenset({"tempfile.NamedTemporaryFile", "tempfile.mkstemp", "tempfile.mkdtemp", "tempfile.mktemp",
                         "tempfile.TemporaryDirectory"})


def find_fresh_ids(module, project=None) -> list[tuple[ast.Call, str, str]]:
    """Each id call made in a message converter's result (see the module docstring), as (the
    call, the function's name (a singledispatch converter's: its dispatcher's), the message
    parameter's name); one per function. `project` (a `tree.Project`) resolves id helpers
    imported from other modules of the package tree; without it only the module's own are read.
    An id given to a field of a record class of the package is left out (`record_field`)."""
    return [(call, name, param) for call, name, param, _ in _converters(module, project)
            if not record_field(module, call, project)]


def record_field(module, call: ast.Call, project) -> bool:
    """True when the id `call` makes is given by keyword to a field of a class the package itself
    defines (`MessagePiece(id=uuid.uuid4(), role=..., converted_value=...)`): a record of the
    package, whose fields reach a request only where the package's code that builds the request
    reads them, not linked here (an id a provider's type holds, `ToolCall(id=...)`, or a dict
    written in the provider's format is sent as it is). Only the keyword's own value, perhaps
    wrapped (`str(uuid4())`), counts; the class is found in the module or through its imports
    in the package tree (`project`), re-exports followed a few steps."""
    holder = _keyword_call(module, call)
    if holder is None:
        return False
    func = holder.func
    if isinstance(func, ast.Name) and func.id in module.classes:
        return True
    qual = module.qualified_name(func)
    for _ in range(4):
        if not qual or project is None:
            return False
        found = project.resolve_symbol(qual)
        if found is None:
            return False
        owner, name = found
        if name in owner.classes:
            return True
        qual = owner.imports.get(name)
    return False


def _keyword_call(module, call: ast.Call) -> ast.Call | None:
    """The call whose keyword argument is `call`'s value, itself or wrapped in calls of one
    argument (`str(uuid4())`, `uuid4().hex`), or None."""
    target = call
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Call) and any(_wraps(k.value, target) for k in node.keywords if k.arg):
            return node
    return None


def _wraps(value, call: ast.Call) -> bool:
    """True when `value` is `call`, or `call` read through attributes or passed alone to calls."""
    while value is not call:
        if isinstance(value, ast.Attribute):
            value = value.value
        elif isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords:
            value = value.args[0]
        else:
            return False
    return True


def fresh_ids(module, project, sites) -> list[tuple[ast.Call, str, str, ast.AST | None]]:
    """`find_fresh_ids` with, for each, the expression that converts the conversation with that
    converter inside a send call of the module (its span within one of `sites`, the spans of the
    module's send calls), or None when none is found here."""
    found = _converters(module, project)
    sent = _sent_by_converter(module, {n for _, n, _, _ in found}, sites) if found and sites else {}
    return [(c, n, p, sent.get(n)) for c, n, p, func in found
            if sent.get(n) is not None or not (record_field(module, c, project) or _sends(module, func, sites))]


def _sends(module, func, sites) -> bool:
    """True when `func` sends a request itself: one of `sites` (the spans of the module's send
    calls) is inside it, or it calls a function of the module (`self.complete(history)`) that
    holds one. Such a function handles a turn (`def send_new_message(self, message)`: the text
    of the newest message, the request, and a new conversation id returned with the reply); it
    is called once per turn, not on every message of the history again."""
    if not sites:
        return False

    def holds(f) -> bool:
        span = module.span(f)
        return any(span.start <= s.start and s.end <= span.end for s in sites)

    if holds(func):
        return True
    senders = {f.name for f in statements(module.tree) if isinstance(f, _FUNCS) and holds(f)}
    for node in body_nodes(func):
        if isinstance(node, ast.Call):
            callee = node.func
            if isinstance(callee, ast.Name) and callee.id in senders:
                return True
            if isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name) \
                    and callee.value.id in ("self", "cls") and callee.attr in senders:
                return True
    return False


def fresh_times(module, sites) -> list[tuple[ast.Call, str, str, ast.AST, object]]:
    """The clock readings (`datetime.now()`, `time.time()`; `classify.TIMESTAMP_CALLS`) a message
    converter puts in what it returns, where the module sends the conversation converted with it
    (see `fresh_ids`): (the call, the converter's name, the message parameter, the conversion in
    the send call, the reading's `model.Precision` as written: `.strftime("%Y-%m-%d")` a day).
    The time of the conversion, not of the message: every older message is re-rendered with the
    time of each request. Only those linked to a send (a clock in a converter whose result is
    stored is the time the message was made)."""
    if not sites or CONVERTS_MESSAGE.search(module.source) is None \
            or not any(w in module.source for w in ("time", "now(", "today(")):
        return []
    found = []
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        param = _message_param(func)
        if param is None:
            continue
        own = body_nodes(func)
        clocks = [n for n in own if isinstance(n, ast.Call) and module.qualified_name(n.func) in classify.TIMESTAMP_CALLS]
        if not clocks:
            continue
        returned = returned_names(own)
        parents = {id(c): p for p in own for c in child_nodes(p)}
        for call in sorted(clocks, key=lambda c: (c.lineno, c.col_offset)):
            if into_result(call, parents, own, returned, param):
                found.append((call, _dispatcher(func) or func.name, param,
                              _precision(module, call, parents)))
                break
    if not found:
        return []
    sent = _sent_by_converter(module, {f[1] for f in found}, sites)
    return [(c, n, p, sent[n], prec) for c, n, p, prec in found if prec is not None and n in sent]


def _precision(module, call: ast.Call, parents: dict):
    """The precision of the clock reading `call` as its expression keeps it (`.strftime(fmt)`,
    `.date()`, `.isoformat()`, `.year`), or None when it keeps no time (`%Z`)."""
    prec = classify.TIMESTAMP_CALLS[module.qualified_name(call.func)]
    node = parents.get(id(call))
    if isinstance(node, ast.FormattedValue) and isinstance(node.format_spec, ast.JoinedStr):  # f"{now():%H:%M}"
        spec = "".join(v.value for v in node.format_spec.values if isinstance(v, ast.Constant))
        return classify.strftime_precision(spec) if "%" in spec else prec
    if isinstance(node, ast.Attribute):
        outer = parents.get(id(node))
        if node.attr == "strftime" and isinstance(outer, ast.Call) and outer.args \
                and isinstance(outer.args[0], ast.Constant) and isinstance(outer.args[0].value, str):
            return classify.strftime_precision(outer.args[0].value)
        if node.attr in classify.TIMESTAMP_ATTRS:
            return classify.TIMESTAMP_ATTRS[node.attr]
        kept = classify.TIMESTAMP_METHODS.get(node.attr, prec)
        return prec if kept is None else kept
    return prec


def _converters(module, project) -> list[tuple[ast.Call, str, str, ast.AST]]:
    if CONVERTS_MESSAGE.search(module.source) is None:
        return []
    words = any(head in module.source for head in ID_WORDS)
    if not words and project is None:
        return []
    helpers: dict[str, bool] = {}
    out = []
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        param = _message_param(func)
        if param is None:
            continue
        own = body_nodes(func)
        calls = [n for n in own if isinstance(n, ast.Call)]
        returned = returned_names(own)
        parents = {id(c): p for p in own for c in child_nodes(p)}
        for call in sorted(calls, key=lambda c: (c.lineno, c.col_offset)):
            if not makes_id(module, call, project, helpers):
                continue
            if into_result(call, parents, own, returned, param):
                out.append((call, _dispatcher(func) or func.name, param, func))
                break
    return out


def makes_id(module, call: ast.Call, project, helpers: dict[str, bool]) -> bool:
    """True when `call` makes a new id: a call of `classify.UNIQUE_ID_CALLS`, or of a function
    without parameters of the module or (through `project`) of the package tree whose every
    return is built from one (`return uuid4().hex[-9:]`). `helpers` caches the answers by name."""
    qual = module.qualified_name(call.func)
    if qual in classify.UNIQUE_ID_CALLS or qual in FRESH_FILES:
        return True
    if call.args or call.keywords or not isinstance(call.func, ast.Name):
        return False
    key = qual or call.func.id
    if key not in helpers:
        helpers[key] = _id_helper(module, call.func.id, qual, project)
    return helpers[key]


def _id_helper(module, name: str, qual: str | None, project) -> bool:
    owner, func = module, module.functions.get(name)
    if func is None and qual and project is not None and "." in qual:
        found = project.resolve_symbol(qual)
        if found is not None:
            owner, func = found[0], found[0].functions.get(found[1])
    if func is None or func.args.args or func.args.posonlyargs or func.args.kwonlyargs:
        return False
    own = own_nodes(func, body_only=True)
    rets = [r for r in own if isinstance(r, ast.Return)]
    local = {t.id: n.value for n in own if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    return bool(rets) and all(r.value is not None and _drawn(owner, r.value, local) for r in rets)


def _drawn(owner, value, local: dict, depth: int = 0) -> bool:
    """True when `value` is built from a new id or random draw: a call of `classify.UNIQUE_ID_CALLS`,
    a random method of a generator made unseeded at module level (`rng = random.SystemRandom()`,
    then `rng.getrandbits(128)`), or a local name assigned one (`bits = ...`, then `uuid.UUID(int=bits)`)."""
    for n in subtree(value):
        if isinstance(n, ast.Call) and owner.qualified_name(n.func) in classify.UNIQUE_ID_CALLS:
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) \
                and f"random.{n.func.attr}" in classify.UNIQUE_ID_CALLS and _generator(owner, n.func.value.id):
            return True
        if isinstance(n, ast.Name) and depth < 2 and n.id in local and _drawn(owner, local[n.id], local, depth + 1):
            return True
    return False


def _generator(owner, name: str) -> bool:
    """True when the module assigns `name` an unseeded random generator (`random.SystemRandom()`)."""
    return any(isinstance(v, ast.Call) and owner.qualified_name(v.func) in classify.RANDOM_GENERATORS and not v.args
               for v in owner.assigns.get(name, ()))


def _sent_by_converter(module, names: set[str], sites) -> dict[str, ast.AST]:
    """For each converter of `names`, the first conversion of the conversation with it (or a
    function that hands its message on to it) inside a send call of the module."""
    out = {}
    for name in names:
        sent = _sent_conversions(module, _handed_on({name}, module), sites)
        if sent:
            out[name] = sent[0]
    return out


def _dispatcher(func) -> str | None:
    """The name of the `functools.singledispatch` function `func` is registered with
    (`@to_api.register` or `@to_api.register(T)`), or None."""
    for dec in func.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        if isinstance(target, ast.Attribute) and target.attr == "register" and isinstance(target.value, ast.Name):
            return target.value.id
    return None


def _handed_on(names: set[str], module) -> set[str]:
    """`names` with the module's functions that return a converter of `names` applied to their
    own message parameter (`async def _(message): return to_api(message)`), by their names or
    their dispatchers' (to a fixed point)."""
    funcs = [f for f in statements(module.tree) if isinstance(f, _FUNCS)]
    while True:
        more = set()
        for func in funcs:
            param = _message_param(func)
            name = _dispatcher(func) or func.name
            if param is None or name in names:
                continue
            if any(isinstance(r, ast.Return) and isinstance(r.value, ast.Call) and _applies(r.value, names, param)
                   for r in own_nodes(func, body_only=True)):
                more.add(name)
        if not more:
            return names
        names = names | more


def _applies(node, names: set[str], target: str) -> bool:
    """True when `node` is `conv(target)` or `await conv(target)` for a converter of `names`."""
    if isinstance(node, ast.Await):
        node = node.value
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names \
        and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Name) \
        and node.args[0].id == target


def _sent_conversions(module, names: set[str], sites) -> list[ast.AST]:
    """The expressions inside a send call (`sites`: spans) that convert a list named as the
    conversation one element at a time with a converter of `names`: `[conv(m) for m in messages]`
    (also with `await`, as a generator) or `map(conv, history)`, in source order."""
    out = []
    for node in subtree(module.tree):
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1:
            gen = node.generators[0]
            if not (isinstance(gen.target, ast.Name) and _applies(node.elt, names, gen.target.id)):
                continue
            source = gen.iter
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "map" \
                and len(node.args) == 2 and isinstance(node.args[0], ast.Name) and node.args[0].id in names:
            source = node.args[1]
        else:
            continue
        if _CONVERSATION.search(module.code(source)) is None:
            continue
        span = module.span(node)
        if any(s.start <= span.start and span.end <= s.end for s in sites):
            out.append(node)
    return out


def _message_param(func) -> str | None:
    """The name of the function's one message parameter (the first after `self` / `cls`), or None."""
    args = [*func.args.posonlyargs, *func.args.args]
    if args and args[0].arg in ("self", "cls"):
        args = args[1:]
    if len(args) != 1:
        return None
    a = args[0]
    node = a.annotation.value if isinstance(a.annotation, ast.Subscript) else a.annotation  # `Message[Any]`
    ann = ast.unparse(node) if node is not None else ""
    if ann:
        ann = ann.strip("'\"")
        return a.arg if _MESSAGE_TYPE.search(ann) and _INCOMING.search(ann) is None else None
    return a.arg if a.arg in MESSAGE_NAMES else None


def _root(target) -> str | None:
    """The name an assignment target is, or is an item or attribute of (`out["id"]`, `m.content`)."""
    while isinstance(target, (ast.Subscript, ast.Attribute)):
        target = target.value
    return target.id if isinstance(target, ast.Name) else None


def returned_names(own: list) -> set[str]:
    """The names read in the values of the `return` statements among `own` (a function's body
    nodes), except those read only as a lookup key (`return self.consumers[consumer_id]`: the item
    found is what is returned, not the key)."""
    out = set()
    for r in own:
        if isinstance(r, ast.Return) and r.value is not None:
            keys = {id(n) for s in subtree(r.value) if isinstance(s, ast.Subscript)
                    for n in subtree(s.slice) if isinstance(n, ast.Name)}
            out.update(n.id for n in subtree(r.value) if isinstance(n, ast.Name) and id(n) not in keys)
    return out


def body_nodes(func) -> list[ast.AST]:
    """The nodes of a function's body statements, not those of functions nested in it."""
    return own_nodes(func, body_only=True)


def into_result(call, parents: dict, own: list, returned: set[str], param: str | frozenset) -> bool:
    """True when the value of `call` goes into what the function returns: its statement returns
    it, appends it to (or extends) a list the function returns, or assigns it to a name the
    function returns, itself or through local names it is assigned to first (`call_id = ...`,
    then `block = {"id": call_id}`, also `with NamedTemporaryFile() as tmp:`), or writes it into
    an item or attribute of one (`out["id"] = ...`, `m.content += ...` for an item of a deep copy
    the function returns); never when it is stored on the message (`msg.id = ...`; `param`: its
    name, or the names of the caller's messages), nor when it is only a key looked up
    (`return self.consumers[random.choice(keys)]`: the item found is not new)."""
    held = {param} if isinstance(param, str) else param
    todo, seen = [call], set()
    while todo:
        node = todo.pop()
        while id(node) in parents and not isinstance(node, ast.stmt):
            child, node = node, parents[id(node)]
            if isinstance(node, ast.Subscript) and node.slice is child:
                break  # a lookup key (`self.consumers[consumer_id]`): what is found holds no new id
        if not isinstance(node, ast.stmt) or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, ast.Return):
            return True
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Attribute):
            f = node.value.func
            if f.attr in ("append", "extend", "insert") and isinstance(f.value, ast.Name) and f.value.id in returned:
                return True
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.With)) and len(seen) <= 5:
            targets = [i.optional_vars for i in node.items if i.optional_vars is not None] \
                if isinstance(node, ast.With) else getattr(node, "targets", None) or [node.target]
            if any(isinstance(n, ast.Name) and n.id in held for t in targets for n in subtree(t)):
                continue  # stored on the message: made once
            if any(_root(t) in returned for t in targets if not isinstance(node, ast.With)):
                return True
            names = {n.id for t in targets for n in ([t] if isinstance(t, ast.Name) else
                                                     t.elts if isinstance(t, ast.Tuple) else ()) if isinstance(n, ast.Name)}
            todo.extend(n for n in own if isinstance(n, ast.Name) and n.id in names and isinstance(n.ctx, ast.Load)
                        and (n.lineno, n.col_offset) > (node.lineno, node.col_offset))
    return False
