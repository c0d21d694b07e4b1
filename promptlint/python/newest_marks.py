"""The newest message of a conversation given content for this request only: facts for PRM105
(the rule judges them).

A function handed the conversation (a parameter named for it: `messages`, `msgs`, `history`)
picks its newest message, or the newest of a role, and writes content of its own into it for the
request it is building:

    for msg in reversed(messages):            # newest first, the first user message
        if msg.get("role") == "user":
            msg["content"] = [*wrap(msg["content"]), {"guardContent": {"text": {"text": "[tool_result]"}}}]
            break

    i = len(msgs)                              # the trailing tool results
    while i > 0 and msgs[i - 1]["role"] == "tool":
        i -= 1
    msgs, m = list(msgs), dict(msgs[i])
    m["content"] = [{"type": "text", "text": reminder}, *m["content"]]

    out = copy.deepcopy(messages)              # the newest message itself
    out[-1]["content"] += SUFFIX

Once the next turn is added that message is history, and the conversation is converted again
without the content (it goes to the newest message of that request instead): the history differs
from the previous request's from that message on, so it and the answer after it are read
uncached on every turn (older turns still hit). Found only where the content is the request's
own, not where the conversation keeps it:

- the message written is a copy (`dict(m)`, `{**m}`, `m.copy()`, `model_copy()`, an item of a
  `deepcopy` of the conversation), or
- it is a message of a list converted for this request: bound in the function from a call named
  for a conversion given the conversation (`out = _messages_to_bedrock(messages)`), or handed in
  by a caller of the module that binds it so (`self._mark_last(bedrock_messages)`, the related
  place). A function that writes the caller's own message and whose callers are unknown may be
  handed the kept conversation, where the content stays: not one.

The content must be the function's own: a text constant (`"[tool_result]"`, or a module-level
name bound to one), a parameter other than the conversation (`reminder`), a value of the instance
(`self.suffix`), or what a method of the instance makes from something else than the conversation
(`self._with_memories(messages, found)`), in what is written or in a local it is built in.
A cache breakpoint (`cache_control`, `cachePoint`), a block's `type` or `role`, and the message's
own text re-wrapped are no content. A walk that writes every message (no stop at the first) is
not this shape (python/role_stamps.py).

Shape: `newest_marks(module) -> [(the write, the related node, how)]`: ast nodes; `how` is
"copy" (the function's copy, related: the copy) or "converted" (related: where the list is
converted). In source order.
"""
from __future__ import annotations

import ast

from .prompt_names import words
from .text_gates import holds_any
from .walk import statements, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_CONVERSATION = frozenset({"messages", "msgs", "history", "conversation", "turns", "dialog", "dialogue",
                           "transcript", "chat"})
#: Words of a callee named for converting a conversation (`_messages_to_bedrock`, `format_messages`).
_CONVERTS = frozenset({"to", "convert", "format", "transform", "serialize", "translate", "adapt"})
#: Keys whose value is no content of the message.
_NOT_CONTENT = frozenset({"type", "role", "cache_control", "cachePoint", "name", "id", "tool_call_id"})
_CONTENT = ("content", "text", "parts")
_COPIES = ("dict", "copy", "deepcopy", "model_copy")


def might_mark(source: str) -> bool:
    """The text test before the module's walk: a newest pick (`reversed(`, `[-1]`, `-=`) and a
    content write."""
    return ("reversed(" in source or "[-1]" in source or "-=" in source) and (
        "content" in source) and ("essages" in source or "msgs" in source or "istory" in source)


def newest_marks(module) -> list[tuple[ast.AST, ast.AST, str]]:
    """(the write, the related node, "copy" | "converted") for each function of the module docstring's
    shape, in source order."""
    funcs = [f for f in statements(module.tree) if isinstance(f, _FUNCS)]
    defs = {f.name: f for f in funcs}
    texts = {t.id for n in module.tree.body if isinstance(n, ast.Assign) and (
        isinstance(n.value, ast.JoinedStr) or isinstance(n.value, ast.Constant) and isinstance(n.value.value, str))
             for t in n.targets if isinstance(t, ast.Name)}  # module-level texts (`JSON_HINT = "..."`)
    out = []
    for func in funcs:
        params = [a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)]
        conv = [p for p in params if words(p) & _CONVERSATION]
        if not conv or not holds_any(module, func, ("reversed(", "[-1]", "-=")) \
                or not holds_any(module, func, _CONTENT):
            continue  # (the cheap text tests before the function's walk)
        nodes = list(subtree(func))
        names = _names(nodes, set(conv), defs)
        own = {p for p in params if p not in conv and p not in ("self", "cls")} | texts
        for write, block in _picked_writes(func, nodes, names):
            if not _own_content(write, block, own, {*names.lists, *names.items, *names.picked}):
                continue
            how = _per_request(write, names, nodes)
            if how is None and _written_list(write, names) in conv:
                how = _handed_converted(func, params, _written_list(write, names), funcs, defs)
            if how is not None:
                out.append((write, how[0], how[1]))
    return sorted({id(w): t for t in out for w in [t[0]]}.values(), key=lambda t: (t[0].lineno, t[0].col_offset))


class _Names:
    """The conversation's names in a function: `lists` name -> how it was made ("param", "shallow",
    "deep", or the node of the conversion call), `items` a message's copy -> its node, `picked` a
    message name -> the list it was picked from."""

    def __init__(self, defs: dict):
        self.defs = defs  # the module's functions by name (a conversion's own code)
        self.lists: dict[str, object] = {}
        self.items: dict[str, ast.AST] = {}
        self.picked: dict[str, str] = {}


def _names(nodes, conv: set[str], defs: dict) -> _Names:
    """The lists first (in source order: a copy of a copy is known), then the items newest-first
    loops pick from them, then the copies of messages."""
    out = _Names(defs)
    out.lists.update((p, "param") for p in conv)
    assigns = [n for n in nodes if isinstance(n, ast.Assign) and len(n.targets) == 1]
    for n in assigns:
        for target, value in _pairs(n):
            listed = _listed(value, out)
            if listed is not None:
                out.lists[target] = listed
    for loop in nodes:
        if isinstance(loop, (ast.For, ast.AsyncFor)) and isinstance(loop.target, ast.Name):
            listed = _newest_first(loop.iter)
            if listed in out.lists:
                out.picked[loop.target.id] = listed
    for n in assigns:
        for target, value in _pairs(n):
            if target not in out.lists and _item_copy(value, out):
                out.items[target] = n
    return out


def _pairs(n: ast.Assign) -> list[tuple[str, ast.AST]]:
    """(name, value) bound by an assignment: `a, b = x, y` pairwise, `out, system = f(...)` its
    first name to the call."""
    t, v = n.targets[0], n.value
    if isinstance(t, ast.Name):
        return [(t.id, v)]
    if not isinstance(t, ast.Tuple) or not t.elts:
        return []
    if isinstance(v, ast.Tuple) and len(v.elts) == len(t.elts):
        return [(e.id, x) for e, x in zip(t.elts, v.elts) if isinstance(e, ast.Name)]
    return [(t.elts[0].id, v)] if isinstance(t.elts[0], ast.Name) and isinstance(v, ast.Call) else []


def _listed(value, names: _Names):
    """How `value` makes a conversation list from one already known ("shallow", "deep", the
    conversion call), or None."""
    if isinstance(value, ast.Name) and value.id in names.lists:
        return names.lists[value.id]
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice) and _known(value.value, names):
        return "shallow"
    if isinstance(value, ast.List) and value.elts and all(isinstance(e, ast.Starred) for e in value.elts) \
            and any(_known(e.value, names) for e in value.elts):
        return "shallow"
    if isinstance(value, ast.ListComp) and len(value.generators) == 1 and _known(value.generators[0].iter, names):
        target = value.generators[0].target
        if isinstance(target, ast.Name) and _copies_name(value.elt, target.id):
            return "deep"  # `[dict(m) for m in messages]`: every message a new object
        return "shallow" if isinstance(value.elt, ast.Name) else None
    if not isinstance(value, ast.Call):
        return None
    f = value.func
    callee = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
    args = [*value.args, *(k.value for k in value.keywords)]
    if callee == "deepcopy" and args and _known(args[0], names):
        return "deep"
    if callee in ("list", "copy") and args and _known(args[0], names) or \
            callee == "copy" and isinstance(f, ast.Attribute) and _known(f.value, names):
        return "shallow"
    if _converts(callee, names.defs) and any(_known(a, names) and names.lists.get(a.id) == "param" for a in args):
        return value
    return None


def _known(node, names: _Names) -> bool:
    return isinstance(node, ast.Name) and node.id in names.lists


def _item_copy(value, names: _Names) -> bool:
    """True for a copy of a message of a known list (`dict(msgs[i])`, `{**m}`, `m.copy()`,
    `msgs[-1].model_copy()`, `deepcopy(msgs[-1])`)."""
    if isinstance(value, ast.Dict):
        return bool(value.keys) and value.keys[0] is None and _message(value.values[0], names)
    if not isinstance(value, ast.Call):
        return False
    f = value.func
    if isinstance(f, ast.Attribute) and f.attr in ("copy", "model_copy") and not value.args:
        return _message(f.value, names)
    callee = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
    return callee in _COPIES and len(value.args) == 1 and _message(value.args[0], names)


def _copies_name(value, name: str) -> bool:
    """True for a copy of the message `name` (`dict(m)`, `{**m}`, `m.copy()`, `deepcopy(m)`)."""
    if isinstance(value, ast.Dict):
        return bool(value.keys) and value.keys[0] is None and isinstance(value.values[0], ast.Name) \
            and value.values[0].id == name
    if not isinstance(value, ast.Call):
        return False
    f = value.func
    if isinstance(f, ast.Attribute) and f.attr in ("copy", "model_copy") and not value.args:
        return isinstance(f.value, ast.Name) and f.value.id == name
    callee = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
    return callee in _COPIES and len(value.args) == 1 and isinstance(value.args[0], ast.Name) \
        and value.args[0].id == name


def _message(node, names: _Names) -> bool:
    """True for a message of a known list: `msgs[i]`, or a name picked from one."""
    if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
        return _known(node.value, names)
    return isinstance(node, ast.Name) and node.id in names.picked


def _picked_writes(func, nodes, names: _Names):
    """(a content write, the block it is read in) for each write into the newest message a pick of the
    function reaches: a newest-first loop's item written in a branch that ends the walk, the item at
    an index a walk from the end moved back, or `xs[-1]`."""
    for loop in nodes:
        if isinstance(loop, (ast.For, ast.AsyncFor)):
            listed = _newest_first(loop.iter)
            if listed is None or listed not in names.lists or not isinstance(loop.target, ast.Name):
                continue
            item = loop.target.id
            for branch in subtree(loop):
                if isinstance(branch, ast.If) and branch.body and isinstance(branch.body[-1], (ast.Break, ast.Return)):
                    for n in _block_nodes(branch.body):
                        if _content_of(n) is not None and _target_item(n, item, names):
                            yield n, branch.body
    backs = _walked_back(nodes, names)
    for n in nodes:
        target = _content_of(n)
        if target is None:
            continue
        base = target.value
        if isinstance(base, ast.Subscript) and _known(base.value, names) and (
                _minus_one(base.slice) or isinstance(base.slice, ast.Name) and base.slice.id in backs):
            yield n, func.body
        elif isinstance(base, ast.Name) and base.id in names.items and _from_newest(names.items[base.id], backs):
            yield n, func.body


def _newest_first(it) -> str | None:
    """The list a loop walks newest first (`reversed(xs)`, `xs[::-1]`, `reversed(range(len(xs)))`,
    `range(len(xs) - 1, -1, -1)`), or None."""
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "reversed" and it.args:
        inner = it.args[0]
        if isinstance(inner, ast.Name):
            return inner.id
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id in ("range", "list") \
                and inner.args:
            return _len_of(inner.args[-1] if inner.func.id == "range" else inner.args[0])
    if isinstance(it, ast.Subscript) and isinstance(it.slice, ast.Slice) and isinstance(it.value, ast.Name) \
            and _minus_one(it.slice.step) and it.slice.lower is None and it.slice.upper is None:
        return it.value.id
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and len(it.args) == 3 \
            and _minus_one(it.args[2]) and isinstance(it.args[0], ast.BinOp):
        return _len_of(it.args[0].left)
    return None


def _len_of(node) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and node.args \
            and isinstance(node.args[0], ast.Name):
        return node.args[0].id
    return None


def _minus_one(node) -> bool:
    return isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
        and node.operand.value == 1 or isinstance(node, ast.Constant) and node.value == -1


def _walked_back(nodes, names: _Names) -> set[str]:
    """Index names a `while` loop over a known list moves back from its end (`i = len(msgs)`, then
    `while i > 0 and msgs[i - 1]["role"] == "tool": i -= 1`)."""
    starts = {n.targets[0].id for n in nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
              and isinstance(n.targets[0], ast.Name) and _from_len(n.value, names)}
    out = set()
    for w in nodes:
        if not isinstance(w, ast.While):
            continue
        read = {n.value.id for n in subtree(w.test) if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name)}
        stepped = {s.target.id for s in w.body if isinstance(s, ast.AugAssign) and isinstance(s.op, ast.Sub)
                   and isinstance(s.target, ast.Name)}
        if read & set(names.lists) and stepped & starts:
            out |= stepped & starts
    return out


def _from_len(value, names: _Names) -> bool:
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Sub):
        value = value.left
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "len" \
        and bool(value.args) and _known(value.args[0], names)


def _from_newest(stmt, backs: set[str]) -> bool:
    """True when the copy bound by `stmt` is of the newest message or of one at a walked-back index."""
    for n in subtree(stmt.value if isinstance(stmt, ast.Assign) else stmt):
        if isinstance(n, ast.Subscript) and (_minus_one(n.slice) or isinstance(n.slice, ast.Name)
                                              and n.slice.id in backs):
            return True
    return False


def _block_nodes(body):
    """The nodes of a block, without those of functions defined in it."""
    todo = list(reversed(body))
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, (*_FUNCS, ast.Lambda)):
            todo.extend(reversed(list(ast.iter_child_nodes(n))))


def _content_of(n) -> ast.AST | None:
    """The written place of a content write (`m["content"] = ...`, `m.content += ...`), or None."""
    if isinstance(n, ast.Assign) and len(n.targets) == 1:
        t = n.targets[0]
    elif isinstance(n, ast.AugAssign):
        t = n.target
    else:
        return None
    if isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) and t.slice.value in _CONTENT:
        return t
    if isinstance(t, ast.Attribute) and t.attr in _CONTENT:
        return t
    return None


def _target_item(write, item: str, names: _Names) -> bool:
    base = _content_of(write).value
    return isinstance(base, ast.Name) and (base.id == item or base.id in names.items)


def _own_content(write, block, own: set[str], known: set[str]) -> bool:
    """True when what is written holds content of the function's own: a text constant, a parameter
    in `own` or a value of the instance, also through a local the block fills (`new.append(...)`)."""
    value = write.value
    read = {n.id for n in subtree(value) if isinstance(n, ast.Name)}
    places = [value]
    for n in _block_nodes(block):
        if n is write:
            continue
        if isinstance(n, (ast.Assign, ast.AugAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            if any(isinstance(t, ast.Name) and t.id in read for t in targets):
                places.append(n.value)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in (
                "append", "extend", "insert") and isinstance(n.func.value, ast.Name) and n.func.value.id in read:
            places.extend(n.args)
    return any(_foreign(p, own, known) for p in places)


def _foreign(node, own: set[str], known: set[str]) -> bool:
    """True when `node` holds content of the function's own (`_own_content`); `known` names the
    conversation's lists and messages."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value.strip() != ""
    if isinstance(node, ast.Name):
        return node.id in own
    if isinstance(node, ast.Attribute):
        return isinstance(node.value, ast.Name) and node.value.id == "self" or _foreign(node.value, own, known)
    if isinstance(node, ast.Dict):
        return any(not (isinstance(k, ast.Constant) and k.value in _NOT_CONTENT) and _foreign(v, own, known)
                   for k, v in zip(node.keys, node.values))
    if isinstance(node, (ast.List, ast.Tuple)):
        return any(_foreign(e, own, known) for e in node.elts)
    if isinstance(node, ast.Starred):
        return _foreign(node.value, own, known)
    if isinstance(node, ast.BinOp):
        return _foreign(node.left, own, known) or _foreign(node.right, own, known)
    if isinstance(node, ast.JoinedStr):
        return any(_foreign(v.value if isinstance(v, ast.FormattedValue) else v, own, known) for v in node.values)
    if isinstance(node, ast.IfExp):
        return _foreign(node.body, own, known) or _foreign(node.orelse, own, known)
    if isinstance(node, ast.Call):  # its text arguments are how it renders, not content (`.replace("a", "b")`)
        args = [*node.args, *(k.value for k in node.keywords)]
        by_self = isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
            and node.func.value.id == "self"
        return any(not isinstance(a, ast.Constant) and _foreign(a, own, known) for a in args) or by_self and any(
            isinstance(a, ast.Name) and a.id not in known for a in args)  # (`self._with_memories(msgs, found)`)
    return False


def _written_list(write, names: _Names) -> str | None:
    """The known list whose message `write` writes (`msgs[-1][...]`, an item picked from it)."""
    base = _content_of(write).value
    if isinstance(base, ast.Subscript) and isinstance(base.value, ast.Name):
        return base.value.id
    if isinstance(base, ast.Name):
        return names.picked.get(base.id)
    return None


def _per_request(write, names: _Names, nodes) -> tuple[ast.AST, str] | None:
    """(the related node, "copy" | "converted") when the message written is the request's own: a copy
    of a message, an item of a deep copy, or a message of a list converted in the function."""
    base = _content_of(write).value
    if isinstance(base, ast.Name) and base.id in names.items:
        return names.items[base.id], "copy"
    listed = _written_list(write, names)
    how = names.lists.get(listed) if listed else None
    if how == "deep" or isinstance(how, ast.Call):
        made = next((n for n in nodes if isinstance(n, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == listed or isinstance(t, ast.Tuple) and any(
                isinstance(e, ast.Name) and e.id == listed for e in t.elts) for t in n.targets)), None)
        return (made or write), "copy" if how == "deep" else "converted"
    return None


def _handed_converted(func, params: list[str], param: str, funcs, defs) -> tuple[ast.AST, str] | None:
    """(the call, "converted") for a call of `func` in the module that hands it, for `param`, a list
    its caller bound from a call named for a conversion (`self._mark(out)` after `out, system =
    _messages_to_bedrock(messages)`), or None."""
    index = params.index(param) - (1 if params and params[0] in ("self", "cls") else 0)
    for caller in funcs:
        if caller is func:
            continue
        calls = [n for n in subtree(caller) if isinstance(n, ast.Call) and (
            isinstance(n.func, ast.Attribute) and n.func.attr == func.name
            or isinstance(n.func, ast.Name) and n.func.id == func.name)]
        if not calls:
            continue
        converted = _converted_locals(caller, defs)
        for call in calls:
            given = call.args[index] if 0 <= index < len(call.args) else next(
                (k.value for k in call.keywords if k.arg == param), None)
            if isinstance(given, ast.Name) and given.id in converted:
                return call, "converted"
    return None


def _converted_locals(func, defs: dict) -> set[str]:
    """Names a function binds from a call named for a conversion (`out, system = to_bedrock(msgs)`)."""
    out = set()
    for n in subtree(func):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.value, ast.Call):
            f = n.value.func
            callee = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if not _converts(callee, defs):
                continue
            t = n.targets[0]
            first = t.elts[0] if isinstance(t, ast.Tuple) and t.elts else t
            if isinstance(first, ast.Name):
                out.add(first.id)
    return out


def _converts(callee: str, defs: dict) -> bool:
    """True for a callee named for converting the conversation into another form (`_messages_to_bedrock`,
    `convert_messages`) whose code, when the module defines it, returns no message it was handed
    (`return [system] + messages` hands back the caller's own messages: not a conversion)."""
    if not words(callee) & _CONVERTS:
        return False
    func = defs.get(callee)
    if func is None:
        return True
    handed = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)} - {"self", "cls"}
    return not any(isinstance(n, ast.Return) and n.value is not None and _hands_back(n.value, handed)
                   for n in subtree(func))


def _hands_back(value, handed: set[str]) -> bool:
    """True when a returned value is a parameter, or puts one's items in the list it makes."""
    if isinstance(value, ast.Name):
        return value.id in handed
    if isinstance(value, ast.BinOp):
        return _hands_back(value.left, handed) or _hands_back(value.right, handed)
    if isinstance(value, ast.Tuple):  # `return messages, system`
        return any(_hands_back(e.value if isinstance(e, ast.Starred) else e, handed) for e in value.elts)
    if isinstance(value, ast.List):
        return any(isinstance(e, ast.Starred) and _hands_back(e.value, handed) for e in value.elts)
    return False
