"""A value of the call added to every message of a role of the conversation: facts for PRM105 (the
rule judges them).

A function handed the conversation (a parameter named for it: `messages`, `history`) that walks it
(`for msg in messages:`) and, for each message of a role (`if msg["role"] == "user":`, a test of
the role alone, not of the newest), writes its content (`msg["content"] = content`, `msg.content =
...`, `messages[i]["content"] = ...`) or adds a message made for it (`out.append({"role": "user", "content": content})`) with a
value taken from another of its parameters (`url_variables`, `image`, `context`, or a value made
from one: `for _, url in url_variables.items()`, `data = encode(path)`), or, in a method, from the
object's changing state (an attribute a method other than `__init__` assigns, a field of an object
it holds: `lang = self.detector.dominant_language`), stamps what this call
brings on every message of that role, the older ones and the examples too, not only the newest.
When a call brings another value (another file, another context), the conversation differs from
the previous request's from its first such message on, and nothing after it is read from cache.

A rewrite made of the message alone (a format conversion: `[{"type": "text", "text":
msg["content"]}]`) writes the same on every call: not one. A parameter handed to a call together
with the message's own text (`convert(msg["content"], provider)`) is an option of the conversion,
not content: not followed; nor is a parameter named as the request's configuration
(`model_request_parameters`, `settings`, `options`: the same across a conversation's calls), nor a
test that stops at the first message of the role (`break`: one message, not every one). Whether the caller's value changes between calls is not followed here:
info, at the write, with the place where the value enters it as a related place.

Read in the modules the prefilter lets through (`prefilter.might_hold_prompt`), which the
modules that send or build a prompt do; the text test below adds none.

Shape: `role_stamps(module) -> [(the write, the node where the parameter's value enters, the
parameter's name, the role)]` (ast nodes, names), in source order.
"""
from __future__ import annotations

import ast
import re

from .prompt_names import words
from .flow.binding_syntax import target_names
from .walk import statements, subtree

_HISTORY = frozenset({"history", "messages", "msgs", "conversation", "transcript", "dialog", "dialogue", "turns"})
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_NOT_VALUES = frozenset({"self", "cls"})
#: Words of a parameter that configures the request (the same across a conversation's calls).
_SETTINGS = frozenset({"params", "parameters", "settings", "config", "options", "kwargs"})
#: Keys of a content block whose value is an option of the block, not content (`"detail": detail`).
_OPTION_KEYS = frozenset({"type", "detail", "cache_control", "role", "name", "mime_type", "media_type", "format"})
#: The text test before the module's walk: a test of a message's role.
TEXT = re.compile(r"""(?:\[["']role["']\]|\.role|get\(["']role["']\))\s{0,4}(?:==|in\b)""")


def might_stamp(source: str) -> bool:
    """True when `source` may hold a stamp: a walk (`for `), a role test (`TEXT`) and a content write."""
    return "for " in source and "role" in source and "content" in source and TEXT.search(source) is not None


def role_stamps(module) -> list[tuple[ast.AST, ast.AST, str, str]]:
    """(the write, where the value enters, the parameter, the role) for each message of a role
    written with a value of another parameter of the function (module docstring)."""
    out = []
    for f in statements(module.tree):
        if not isinstance(f, _FUNCS):
            continue
        a = f.args
        params = [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
        held = {p for p in params if words(p) & _HISTORY}
        others = {p for p in params if p not in held and p not in _NOT_VALUES and not words(p) & _SETTINGS}
        method = bool(params) and params[0] == "self"
        state = _state_of(module, f) if method else frozenset()
        if not held or not others and not method:
            continue
        binds = _binds(f)
        for loop in subtree(f):
            walked = _walked(loop, held) if isinstance(loop, ast.For) else None
            if walked is None:
                continue
            item, index, walked_list = walked
            for test in [n for stmt in loop.body for n in subtree(stmt) if isinstance(n, ast.If)]:
                role = _role_test(test.test, item)
                if role is None or _stops(test.body):
                    continue  # (the first message of the role only: `break`)
                for write, value in _writes(test.body, item, index, walked_list):
                    entry = _entry(value, item, binds, others, state)
                    if entry is not None:
                        out.append((write, entry[0], entry[1], role))
    return sorted({id(w): t for t in out for w in [t[0]]}.values(), key=lambda t: (t[0].lineno, t[0].col_offset))


def _walked(loop, held: set[str]):
    """(item name, index name or None, the list's name) of a walk of the conversation parameter:
    `for m in messages:`, `for i, m in enumerate(messages):`; else None."""
    if isinstance(loop.target, ast.Name) and _walks(loop.iter, held):
        return loop.target.id, None, _list_name(loop.iter)
    it = loop.iter
    if isinstance(loop.target, ast.Tuple) and len(loop.target.elts) == 2 \
            and all(isinstance(e, ast.Name) for e in loop.target.elts) \
            and isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate" \
            and len(it.args) == 1 and _walks(it.args[0], held):
        return loop.target.elts[1].id, loop.target.elts[0].id, _list_name(it.args[0])
    return None


def _list_name(node) -> str:
    return node.value.id if isinstance(node, ast.Subscript) else node.id


def _state_of(module, f) -> frozenset[str]:
    """The attributes of `self` that hold the object's changing state where `f` is a method: those a
    method of its class other than `__init__` assigns (`self.language = detected`). A field only
    `__init__` sets is configuration (docs/policies.md, Policy 7). Read once per class (kept on its node)."""
    for cls in subtree(module.tree):
        if isinstance(cls, ast.ClassDef) and f in cls.body:
            found = getattr(cls, "_promptlint_state", None)
            if found is None:
                found = cls._promptlint_state = frozenset(
                    t.attr for m in cls.body if isinstance(m, _FUNCS) and m.name != "__init__"
                    for n in subtree(m) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))
                    for t in (getattr(n, "targets", None) or [n.target])
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self")
            return found
    return frozenset()


def _walks(node, held: set[str]) -> bool:
    """True for the conversation parameter itself, or a slice of it (`messages[1:]`)."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        node = node.value
    return isinstance(node, ast.Name) and node.id in held


def _stops(body) -> bool:
    """True when `body` leaves the walk (`break` or `return` outside a loop of its own)."""
    for stmt in body:
        if isinstance(stmt, (ast.Break, ast.Return)):
            return True
        if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, *_FUNCS, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            if _stops(getattr(stmt, field, None) or ()):
                return True
    return False


def _is_role(node, item: str) -> bool:
    """True for `item["role"]`, `item.role` or `item.get("role")`."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == "role":
        return isinstance(node.value, ast.Name) and node.value.id == item
    if isinstance(node, ast.Attribute) and node.attr == "role":
        return isinstance(node.value, ast.Name) and node.value.id == item
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args \
            and isinstance(node.args[0], ast.Constant) and node.args[0].value == "role":
        return isinstance(node.func.value, ast.Name) and node.func.value.id == item
    return False


def _role_test(test, item: str) -> str | None:
    """The role a test picks when it tests the item's role alone against constants
    (`m["role"] == "user"`, `m.role in ("user", "human")`), else None."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        roles = [_role_test(v, item) for v in test.values]
        return None if None in roles else "/".join(roles)
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and _is_role(test.left, item)):
        return None
    op, right = test.ops[0], test.comparators[0]
    if isinstance(op, ast.Eq) and isinstance(right, ast.Constant) and isinstance(right.value, str):
        return right.value
    if isinstance(op, ast.In) and isinstance(right, (ast.Tuple, ast.List, ast.Set)) and right.elts \
            and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in right.elts):
        return "/".join(e.value for e in right.elts)
    return None


def _writes(body, item: str, index: str | None = None, walked: str = ""):
    """(statement, the value written) for `item["content"] = v`, `item.content = v` (also through
    the walk's index: `messages[i]["content"] = v`) and `L.append({..., "content": v})` in `body`."""
    for stmt in body:
        for n in subtree(stmt):
            if isinstance(n, ast.Assign) and len(n.targets) == 1:
                t = n.targets[0]
                if (isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) and t.slice.value == "content"
                        or isinstance(t, ast.Attribute) and t.attr == "content") \
                        and (isinstance(t.value, ast.Name) and t.value.id == item or _at_index(t.value, walked, index)):
                    yield n, n.value
            elif isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Attribute) \
                    and n.value.func.attr == "append" and len(n.value.args) == 1 \
                    and isinstance(n.value.args[0], ast.Dict):
                for k, v in zip(n.value.args[0].keys, n.value.args[0].values):
                    if isinstance(k, ast.Constant) and k.value == "content":
                        yield n, v


def _at_index(node, walked: str, index: str | None) -> bool:
    """True for `walked[index]`: the walked item, reached through the walk's index."""
    return index is not None and isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) \
        and node.value.id == walked and isinstance(node.slice, ast.Name) and node.slice.id == index


def _binds(f) -> dict[str, list[ast.AST]]:
    """name -> the values bound to it in the function: assignments, loop targets (the iterable),
    `name.append(x)` / `name.extend(x)` / `name += x` (what is added)."""
    out: dict[str, list[ast.AST]] = {}
    for n in subtree(f):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                for name in target_names(t):
                    out.setdefault(name, []).append(n.value)
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign)) and n.value is not None:
            for name in target_names(n.target):
                out.setdefault(name, []).append(n.value)
        elif isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)):
            for name in target_names(n.target):
                out.setdefault(name, []).append(n.iter)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend") \
                and isinstance(n.func.value, ast.Name):
            out.setdefault(n.func.value.id, []).extend(n.args)
    return out



def _entry(value, item: str, binds, others: set[str], state: frozenset[str] = frozenset()):
    """(node, parameter) where a parameter of `others` enters `value`, following local names
    through what is bound to them; or (node, `self.x...`) where the object's state does: an
    attribute of `state`, or a field of another object it holds (`self.detector.language`). A
    call handed the item's own content alongside is not followed into (its other arguments are
    options of a conversion). None when none enters."""
    seen: set[str] = set()
    todo = [value]
    while todo:
        node = todo.pop()
        held = _held_state(node, state)
        if held is not None:
            return node, held
        if isinstance(node, ast.Name):
            if node.id == item or node.id in seen:
                continue
            seen.add(node.id)
            if node.id in others:
                return node, node.id
            todo.extend(binds.get(node.id, ()))
            continue
        if isinstance(node, ast.Call) and _reads_item(node, item):
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):  # a method's receiver, not the method
            todo.extend([node.func.value, *node.args, *(k.value for k in node.keywords)])
            continue
        if isinstance(node, ast.Dict):
            todo.extend(v for k, v in zip(node.keys, node.values)
                        if not (isinstance(k, ast.Constant) and k.value in _OPTION_KEYS))
            continue
        if isinstance(node, ast.IfExp):
            todo.extend((node.body, node.orelse))
            continue
        todo.extend(n for n in ast.iter_child_nodes(node) if isinstance(n, ast.expr))
    return None


def _reads_item(call: ast.Call, item: str) -> bool:
    """True when an argument of the call reads the item (`convert(msg["content"], ...)`), or the call
    is a method of the item (`msg.get_content(compressed=flag)`: its arguments are options of it)."""
    receiver = [call.func.value] if isinstance(call.func, ast.Attribute) else []
    return any(isinstance(n, ast.Name) and n.id == item
               for arg in (*receiver, *call.args, *(k.value for k in call.keywords)) for n in ast.walk(arg))


def _held_state(node, state: frozenset[str]) -> str | None:
    """`self.x` for an attribute of `state`, `self.x.y` for a field of an object the instance holds
    (its state, not configuration of this one); else None."""
    if not isinstance(node, ast.Attribute):
        return None
    chain, root = [node.attr], node.value
    while isinstance(root, ast.Attribute):
        chain.append(root.attr)
        root = root.value
    if not (isinstance(root, ast.Name) and root.id == "self"):
        return None
    chain.reverse()
    if words(chain[0]) & _SETTINGS or words(chain[0]) & {"cfg", "configuration"}:
        return None  # the instance's configuration (`self.config.language`)
    return "self." + ".".join(chain) if len(chain) > 1 or chain[0] in state else None
